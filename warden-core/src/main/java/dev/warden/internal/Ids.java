package dev.warden.internal;

import java.security.SecureRandom;

/** Random ids that nobody can guess or collide with: permit ids, waiter and operation ids. */
final class Ids {
  private static final SecureRandom RANDOM = new SecureRandom();

  private Ids() {}

  /** Returns 128 random bits as 32 lower-case hex digits. */
  static String random128() {
    byte[] bytes = new byte[16];
    RANDOM.nextBytes(bytes);
    StringBuilder id = new StringBuilder(32);
    for (byte b : bytes) {
      id.append(Character.forDigit((b >> 4) & 0xf, 16)).append(Character.forDigit(b & 0xf, 16));
    }
    return id.toString();
  }
}
