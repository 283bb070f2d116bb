package dev.warden.internal;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.regex.Pattern;

/**
 * Measures Java source without a parser: {@link #code} blanks out comments and literals, and {@link
 * #count} counts non-comment source statements (NCSS), so that Javadoc and comments cost a class
 * nothing.
 *
 * <p>The count is one per semicolon that ends a statement or a declaration (not those inside a
 * {@code for} header or a resource list: they are inside parentheses) and one per opening brace (a
 * class, method or lambda body, the block of an {@code if}, {@code else}, loop, {@code try}, {@code
 * catch} or {@code switch}, an initializer). {@code package} and {@code import} lines count
 * nothing. So {@code void f() { return; }} counts 2, and {@code if (a) { b(); } else { c(); }}
 * counts 4: close to what JavaNCSS reports.
 */
final class Ncss {
  private static final Pattern PACKAGE_OR_IMPORT =
      Pattern.compile("^\\s*(?:package|import)\\b[^;]*;", Pattern.MULTILINE);

  private Ncss() {}

  /** Returns the NCSS of one source file. */
  static int count(String source) {
    String code = PACKAGE_OR_IMPORT.matcher(code(source)).replaceAll("");
    Deque<Character> open = new ArrayDeque<>();
    int count = 0;
    for (int i = 0; i < code.length(); i++) {
      char c = code.charAt(i);
      switch (c) {
        case '(', '[' -> open.push(c);
        case '{' -> {
          open.push(c);
          count++;
        }
        case ')', ']', '}' -> open.poll();
        case ';' -> {
          if (open.isEmpty() || open.peek() == '{') {
            count++;
          }
        }
        default -> {}
      }
    }
    return count;
  }

  /**
   * Returns {@code source} with every comment and every string, text block and character literal
   * replaced by spaces (line breaks kept, so line numbers still hold): what is left is code.
   */
  static String code(String source) {
    StringBuilder code = new StringBuilder(source.length());
    int i = 0;
    while (i < source.length()) {
      int end;
      if (source.startsWith("//", i)) {
        end = source.indexOf('\n', i);
        end = end < 0 ? source.length() : end;
      } else if (source.startsWith("/*", i)) {
        end = source.indexOf("*/", i + 2);
        end = end < 0 ? source.length() : end + 2;
      } else if (source.startsWith("\"\"\"", i)) {
        end = closing(source, i + 3, "\"\"\"");
      } else if (source.charAt(i) == '"' || source.charAt(i) == '\'') {
        end = closing(source, i + 1, String.valueOf(source.charAt(i)));
      } else {
        code.append(source.charAt(i++));
        continue;
      }
      for (; i < end; i++) {
        code.append(source.charAt(i) == '\n' ? '\n' : ' ');
      }
    }
    return code.toString();
  }

  /** The index after the {@code quote} that closes a literal opened before {@code from}. */
  private static int closing(String source, int from, String quote) {
    int i = from;
    while (i < source.length()) {
      if (source.charAt(i) == '\\') {
        i += 2; // an escape: \" or \\ does not close the literal
      } else if (source.startsWith(quote, i)) {
        return i + quote.length();
      } else {
        i++;
      }
    }
    return source.length();
  }
}
