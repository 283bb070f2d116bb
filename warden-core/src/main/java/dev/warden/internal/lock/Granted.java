package dev.warden.internal.lock;

/**
 * A successful attempt: the hold's token, the owner's hold count as this client counts it (which
 * Redis now counts too), the acquisition that took it (which a give-back names), and when the
 * attempt was sent.
 */
record Granted(long token, int holdCount, String acquisitionId, long sentAtNanos) {}
