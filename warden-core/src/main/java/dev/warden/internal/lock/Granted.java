package dev.warden.internal.lock;

/**
 * A successful attempt: the hold's token, the owner's hold count as this client counts it, the
 * count Redis reported (which a give-back must name), and when the attempt was sent.
 */
record Granted(long token, int holdCount, int redisCount, long sentAtNanos) {}
