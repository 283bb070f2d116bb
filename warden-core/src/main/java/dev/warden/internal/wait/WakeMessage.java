package dev.warden.internal.wait;

/**
 * What a release wakes, parsed from the payload a script publishes (or given directly by a release
 * of this client, which wakes its own waiters when its reply arrives). The whole vocabulary, also
 * tabled in CONCURRENCY.md ("Wake messages"):
 *
 * <ul>
 *   <li>{@code released <client id>} (a lock release): one waiter; the releasing client ignores its
 *       own message. {@code released <client id> <nominated client id>}: the same, but only the
 *       nominated client wakes a waiter ({@link Subscriptions} drops it elsewhere). {@code
 *       released} alone (a force-unlock) and any other text: one waiter.
 *   <li>{@code all}: every parked waiter (a writer left, readers left, a latch opened, a
 *       condition's signalAll).
 *   <li>{@code w:<id>}: that waiter alone (the fair lock's head, a signalled condition waiter);
 *       remembered if it is not parked at the moment, so that it does not park on a wake-up it
 *       missed.
 *   <li>{@code <n>}: up to {@code n} waiters, those parked longest (permits were released).
 *   <li>{@code <n> <id>}: the waiter of that id first, if parked here, and up to {@code n} others
 *       (a semaphore's head and the permits left over).
 * </ul>
 *
 * @param kind what the message does
 * @param count how many of the longest-parked waiters to wake (besides {@code waiter})
 * @param waiter the id of a waiter to wake first, or null
 */
public record WakeMessage(Kind kind, int count, String waiter) {
  /** What a message does. */
  public enum Kind {
    /** Nothing: the release handed the object straight to a waiter of this client. */
    NONE,
    /** Wakes {@code waiter} alone, remembered when it is not parked ({@code w:<id>}). */
    ONLY,
    /** Counts as a wake-up, and wakes {@code waiter} (if parked) and {@code count} others. */
    WAKE
  }

  /** Wakes nobody: the release handed the object straight to a waiter of this client. */
  public static final WakeMessage NONE = new WakeMessage(Kind.NONE, 0, null);

  /** Wakes the longest-parked waiter. */
  public static final WakeMessage ONE = new WakeMessage(Kind.WAKE, 1, null);

  /** Wakes every parked waiter. */
  public static final WakeMessage ALL = new WakeMessage(Kind.WAKE, Integer.MAX_VALUE, null);

  /** The payload that wakes every waiter. */
  public static final String ALL_PAYLOAD = "all";

  /** The prefix of a payload that wakes one named waiter alone. */
  public static final String ONLY_PREFIX = "w:";

  /** The payload a lock release of client {@code clientId} publishes. */
  public static String released(String clientId) {
    return "released " + clientId;
  }

  /** Wakes the waiter of that id alone (see {@code w:<id>}). */
  public static WakeMessage only(String waiter) {
    return new WakeMessage(Kind.ONLY, 0, waiter);
  }

  /** Parses a published payload; see the class comment for the vocabulary. */
  public static WakeMessage parse(String payload) {
    if (payload.startsWith(ONLY_PREFIX)) {
      return only(payload.substring(ONLY_PREFIX.length()));
    }
    if (payload.equals(ALL_PAYLOAD)) {
      return ALL;
    }
    int space = payload.indexOf(' ');
    String count = space < 0 ? payload : payload.substring(0, space);
    if (count.isEmpty() || !count.chars().allMatch(Character::isDigit)) {
      return ONE; // released [<client id>], or anything unknown: a release wakes one
    }
    int others = count.length() > 9 ? Integer.MAX_VALUE : Integer.parseInt(count);
    return new WakeMessage(Kind.WAKE, others, space < 0 ? null : payload.substring(space + 1));
  }

  /** Wakes the waiters of {@code topic} this message names. */
  void deliver(Topic topic) {
    switch (kind) {
      case ONLY -> topic.wakeWaiter(waiter);
      case WAKE -> topic.wake(count, waiter);
      case NONE -> {}
    }
  }
}
