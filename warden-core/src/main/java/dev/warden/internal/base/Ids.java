package dev.warden.internal.base;

import java.security.SecureRandom;
import java.util.HexFormat;

/** Random ids that nobody can guess or collide with: client, permit, waiter and operation ids. */
public final class Ids {
  private static final SecureRandom RANDOM = new SecureRandom();
  private static final HexFormat HEX = HexFormat.of();

  private Ids() {}

  /** Returns 128 random bits as 32 lower-case hex digits. */
  public static String random128() {
    return randomHex(16);
  }

  /** Returns {@code bytes} random bytes as lower-case hex digits. */
  public static String randomHex(int bytes) {
    byte[] random = new byte[bytes];
    RANDOM.nextBytes(random);
    return HEX.formatHex(random);
  }
}
