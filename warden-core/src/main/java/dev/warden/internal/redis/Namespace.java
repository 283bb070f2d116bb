package dev.warden.internal.redis;

import java.util.List;
import java.util.regex.Pattern;

/**
 * Where one {@code Warden}'s keys and channels live: {@code warden:} by default, or {@code
 * <prefix>:warden:} with a key prefix ({@code Warden.Builder.keyPrefix}). Every key and channel
 * name Warden uses starts with {@link #head()} and carries the object's hash tag {@code {NAME}}
 * right after it, so a prefix changes neither an object's slot nor which objects share one.
 *
 * <p>The prefix comes first so that an application's own key pattern ({@code ~billing:*}) covers
 * Warden's keys too, and {@code warden:} stays so that Warden's keys are told apart from the
 * application's within it. Immutable.
 *
 * @param prefix the key prefix as the user gave it, or {@code ""} for none
 * @param head what every key and channel starts with: {@code warden:} or {@code <prefix>:warden:}
 */
public record Namespace(String prefix, String head) {
  /** The longest key prefix accepted. */
  public static final int MAX_PREFIX_LENGTH = 64;

  /** No prefix: every name starts with {@code warden:}. */
  public static final Namespace DEFAULT = new Namespace("", "warden:");

  // letters, digits and . _ - / : in segments; no braces (they would move the hash tag), no
  // blanks, no glob characters (they would widen the ACL pattern that names the prefix)
  private static final Pattern PREFIX = Pattern.compile("[A-Za-z0-9._/-]+(:[A-Za-z0-9._/-]+)*");

  /**
   * The namespace of a key prefix.
   *
   * @throws IllegalArgumentException naming {@code keyPrefix} and its value if it is null, empty,
   *     longer than {@value #MAX_PREFIX_LENGTH} characters, holds anything but letters, digits and
   *     {@code . _ - /}, in segments joined by single colons, or has a segment {@code warden}
   */
  public static Namespace of(String keyPrefix) {
    if (keyPrefix == null
        || keyPrefix.length() > MAX_PREFIX_LENGTH
        || !PREFIX.matcher(keyPrefix).matches()) {
      throw new IllegalArgumentException(
          "keyPrefix must be 1 to "
              + MAX_PREFIX_LENGTH
              + " letters, digits and . _ - /, in segments joined by single colons (no braces,"
              + " blanks or glob characters; no leading or trailing colon): "
              + (keyPrefix == null ? "null" : "\"" + shown(keyPrefix) + "\""));
    }
    // P:warden:* covers the keys of a prefix P:warden or P:warden:Q (P:warden:warden:{NAME}...),
    // and warden:* those of warden or warden:Q: with no segment 'warden', no namespace's pattern
    // (its ACL rule) covers another's keys or channels
    if (List.of(keyPrefix.split(":")).contains("warden")) {
      throw new IllegalArgumentException(
          "keyPrefix must not have a segment 'warden' (its keys would fall under the ACL pattern"
              + " of a shorter prefix, or of none): \""
              + keyPrefix
              + "\"");
    }
    return new Namespace(keyPrefix, keyPrefix + ":" + DEFAULT.head);
  }

  /** The main key of an object: {@code <head>{NAME}:<type>}. */
  public String key(String name, String type) {
    return head + "{" + name + "}:" + type;
  }

  /** The pattern of every key and channel of this namespace, as an ACL rule writes it. */
  public String pattern() {
    return head + "*";
  }

  private static String shown(String value) {
    return value.length() <= 100 ? value : value.substring(0, 100) + "...";
  }
}
