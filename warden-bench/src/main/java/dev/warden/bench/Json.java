package dev.warden.bench;

import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Writes maps, lists, strings, numbers, booleans and nulls as indented JSON: the results file,
 * without a JSON library. Maps keep their iteration order (use {@link java.util.LinkedHashMap});
 * numbers that JSON cannot carry (NaN, infinities) become {@code null}; whole doubles lose their
 * ".0". Stateless.
 */
final class Json {
  private static final String INDENT = "  ";

  private Json() {}

  /**
   * Returns {@code value} as JSON text ending in a newline.
   *
   * @throws IllegalArgumentException naming the type of a value it cannot write
   */
  static String write(Object value) {
    StringBuilder out = new StringBuilder();
    append(out, value, "");
    return out.append('\n').toString();
  }

  private static void append(StringBuilder out, Object value, String indent) {
    if (value == null) {
      out.append("null");
    } else if (value instanceof String text) {
      quote(out, text);
    } else if (value instanceof Boolean flag) {
      out.append(flag);
    } else if (value instanceof Double || value instanceof Float) {
      out.append(number(((Number) value).doubleValue()));
    } else if (value instanceof Number number) {
      out.append(number.longValue());
    } else if (value instanceof Map<?, ?> map) {
      appendEntries(out, map.entrySet().iterator(), '{', '}', indent);
    } else if (value instanceof List<?> list) {
      appendEntries(out, list.iterator(), '[', ']', indent);
    } else {
      throw new IllegalArgumentException(
          "cannot write a " + value.getClass().getName() + " as JSON");
    }
  }

  /** Writes the members of an object (entries) or an array (elements), one per line. */
  private static void appendEntries(
      StringBuilder out, Iterator<?> members, char open, char close, String indent) {
    out.append(open);
    if (!members.hasNext()) {
      out.append(close);
      return;
    }
    String inner = indent + INDENT;
    while (members.hasNext()) {
      out.append('\n').append(inner);
      Object member = members.next();
      if (member instanceof Map.Entry<?, ?> entry) {
        quote(out, String.valueOf(entry.getKey()));
        out.append(": ");
        append(out, entry.getValue(), inner);
      } else {
        append(out, member, inner);
      }
      if (members.hasNext()) {
        out.append(',');
      }
    }
    out.append('\n').append(indent).append(close);
  }

  /** Returns a double as JSON: null when not finite, without a fraction when whole. */
  static String number(double value) {
    if (!Double.isFinite(value)) {
      return "null";
    }
    if (value == Math.rint(value) && Math.abs(value) < 1e15) {
      return Long.toString((long) value);
    }
    String text = String.format(Locale.ROOT, "%.6g", value);
    int exponent = text.indexOf('e');
    String mantissa = exponent < 0 ? text : text.substring(0, exponent);
    if (mantissa.indexOf('.') >= 0) { // drop the fraction's trailing zeros, and a bare point
      mantissa = mantissa.replaceFirst("\\.?0+$", "");
    }
    return exponent < 0 ? mantissa : mantissa + text.substring(exponent);
  }

  private static void quote(StringBuilder out, String text) {
    out.append('"');
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      switch (c) {
        case '"' -> out.append("\\\"");
        case '\\' -> out.append("\\\\");
        case '\n' -> out.append("\\n");
        case '\r' -> out.append("\\r");
        case '\t' -> out.append("\\t");
        default -> {
          if (c < 0x20) {
            out.append(String.format(Locale.ROOT, "\\u%04x", (int) c));
          } else {
            out.append(c);
          }
        }
      }
    }
    out.append('"');
  }
}
