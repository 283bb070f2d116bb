package dev.warden.internal.redis;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Keeps credentials out of messages and logs: a Redis URI's user info ({@code user:password@}) is
 * replaced by {@code ***@} wherever a text quotes one.
 */
public final class Redaction {
  /** A scheme's {@code ://} up to the last {@code @} of the same whitespace-free word. */
  private static final Pattern USER_INFO = Pattern.compile("://\\S*@");

  private Redaction() {}

  /**
   * Returns {@code text} with the user info of every URI in it replaced by {@code ***}, e.g. {@code
   * redis://***@host:6379/0}; {@code "null"} for null.
   */
  public static String redact(String text) {
    if (text == null) {
      return "null";
    }
    if (text.indexOf('@') < 0) {
      return text;
    }
    return USER_INFO.matcher(text).replaceAll(Matcher.quoteReplacement("://***@"));
  }

  /**
   * Returns {@code text} redacted, and with {@code secret} (a password given apart from a URI, or
   * the one a URI carried) replaced by {@code ***} wherever it still appears.
   */
  public static String redact(String text, CharSequence secret) {
    String redacted = redact(text);
    if (secret == null || secret.length() == 0) {
      return redacted;
    }
    return redacted.replace(secret, "***");
  }
}
