package dev.warden.it.model;

/**
 * One generated step: what happens, to which object, by which client's thread, and a variant that
 * picks the fault or the waiter. Steps are interpreted against the state they meet, so any
 * sub-sequence of a sequence is a sequence too (a step that does not apply changes nothing): that
 * is what lets the shrinker drop steps freely.
 */
record Step(Op op, int target, int client, int thread, int variant) {
  /** What a step does. */
  enum Op {
    ACQUIRE,
    RETRY,
    GIVE_UP,
    RELEASE,
    RENEW,
    EXPIRE,
    SNAPSHOT,
    REWIND,
    MULTI_LOCK,
    MULTI_UNLOCK,
    LATE_LEAVE,
    RELOCK,
    TURN_ENDS,
    AWAIT,
    SIGNAL,
    WAKE,
    SET,
    COUNT_DOWN,
    IDLE
  }

  String owner() {
    return "c" + client + ":t" + thread;
  }

  String clientPrefix() {
    return "c" + client + ":";
  }

  Clients.Fault acquireFault() {
    return switch (variant % 10) {
      case 5, 9 -> Clients.Fault.LOST_RETRY;
      case 6 -> Clients.Fault.LOST_GIVE_UP;
      case 7 -> Clients.Fault.ABANDON;
      case 8 -> Clients.Fault.LOST_PARK;
      default -> Clients.Fault.NONE;
    };
  }

  boolean willWait() {
    return variant % 10 != 4 && variant % 10 != 9;
  }

  Clients.Fault releaseFault() {
    return switch (variant % 8) {
      case 3, 7 -> Clients.Fault.LOST_RETRY;
      case 5 -> Clients.Fault.LOST_FAIL;
      default -> Clients.Fault.NONE;
    };
  }

  /** For a release of a last hold: whether it hands off to a parked waiter of its client. */
  boolean handsOff() {
    return variant % 6 >= 2;
  }

  /** For a release of a last hold: whether its client's row of hand-offs has lasted too long. */
  boolean rowTimeUp() {
    return variant % 5 == 0;
  }

  /** For a direct grant the step's release made: whether its message is lost. */
  boolean grantLost() {
    return variant % 7 == 3;
  }

  /** For a waiter that gives up: whether its leave (and give-back) reach Redis only later. */
  boolean late() {
    return variant % 3 == 0;
  }
}
