package dev.warden.internal.wait;

import dev.warden.WardenActivity;
import dev.warden.WardenListener;
import dev.warden.internal.base.Clock;
import dev.warden.internal.base.Events;
import dev.warden.internal.base.Subject;
import java.time.Duration;
import java.util.concurrent.CancellationException;

/**
 * What one {@link Acquisition} tells listeners (its start, if somebody listens then, and its end
 * with the outcome and the time it took, only if its start was told), and how it is listed in
 * {@link WardenActivity}.
 */
final class Reporting {
  private final Events events;
  private final Clock clock;
  private final Subject subject; // null: neither reported nor listed
  private final boolean reported;
  private final long startedNanos;
  private volatile boolean told;
  private volatile long id; // given when its start is told

  Reporting(Waiting waiting, Claim<?> claim) {
    this.events = waiting.events();
    this.clock = waiting.clock();
    this.subject = claim.subject();
    this.reported = subject != null && claim.reported();
    this.startedNanos = clock.nanoTime();
  }

  /** When the acquisition began, on the client's monotonic clock. */
  long startedNanos() {
    return startedNanos;
  }

  /**
   * The acquisition as {@link WardenActivity} lists it at {@code nowNanos}, or null if it is not.
   */
  WardenActivity.Waiter waiter(long nowNanos) {
    return subject == null
        ? null
        : new WardenActivity.Waiter(
            subject.type(), subject.name(), Duration.ofNanos(Math.max(0, nowNanos - startedNanos)));
  }

  /** Tells the start, if listeners are registered now. */
  void started() {
    if (reported && events.on()) {
      told = true;
      id = Events.newAcquisitionId();
      events.acquisitionStarted(subject.type(), subject.name(), id);
    }
  }

  /** Tells how the acquisition ended: its grant, or null when the wait ran out, or its failure. */
  void ended(Object granted, Throwable failure) {
    if (!told) {
      return;
    }
    WardenListener.Outcome outcome;
    if (failure instanceof CancellationException) {
      outcome = WardenListener.Outcome.CANCELLED;
    } else if (failure != null) {
      outcome = WardenListener.Outcome.FAILED;
    } else if (granted == null) {
      outcome = WardenListener.Outcome.TIMED_OUT;
    } else {
      outcome = WardenListener.Outcome.ACQUIRED;
    }
    events.acquisitionEnded(
        subject.type(), subject.name(), id, outcome, clock.nanoTime() - startedNanos);
  }
}
