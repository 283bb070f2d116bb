package dev.warden.reactor.blockhound;

import java.util.List;
import reactor.blockhound.BlockHound;
import reactor.blockhound.integration.BlockHoundIntegration;

/**
 * Tells <a href="https://github.com/reactor/BlockHound">BlockHound</a> which short waits on a
 * non-blocking thread are not blocking calls, so that a test running Warden's asynchronous or
 * Reactor API under BlockHound sees only real ones. {@code BlockHound.install()} finds it by itself
 * (this module's {@code META-INF/services} entry); there is nothing to call. Without BlockHound on
 * the class path this class is never loaded.
 *
 * <p><b>What it allows.</b> Warden sends a command and arms its timers from the thread that asks (a
 * release, an acquisition, a give-up), and two steps on the way lock a {@link
 * java.util.concurrent.locks.ReentrantLock} for a few instructions: Lettuce's lock around every
 * command it writes to a connection, and the queue lock of Warden's timer when a timer is armed or
 * cancelled. Two threads there at the same moment make one park for those instructions. No I/O
 * happens under either lock and nothing waits for Redis there.
 *
 * <p><b>Why it matters more than a false alarm.</b> BlockHound reports a park by throwing from
 * inside it. On JDK 17, a {@code ReentrantLock} whose waiter threw from its park keeps that waiter
 * in its queue: the next unlock wakes the departed waiter instead of the one behind it, which then
 * waits for ever. A connection then writes no more commands, or Warden's timer runs no more tasks,
 * and everything behind them hangs, the client's shutdown included. (JDK 21 and later drop the
 * departed waiter.)
 *
 * @since 0.2
 */
public final class WardenBlockHoundIntegration implements BlockHoundIntegration {
  /** A method inside which a park is a short wait for a lock. */
  record Allowed(String type, String method) {}

  /** The methods inside which a park is a short wait for a lock. */
  static final List<Allowed> ALLOWED =
      List.of(
          // Lettuce's lock around each command written to a connection
          new Allowed("io.lettuce.core.protocol.SharedLock", "incrementWriters"),
          // Warden's timer: arming and cancelling take its executor's queue lock
          new Allowed("dev.warden.internal.base.SystemTimer", "schedule"),
          new Allowed("dev.warden.internal.base.SystemTimer", "scheduleAtFixedRate"),
          new Allowed("dev.warden.internal.base.SystemTimer", "execute"),
          new Allowed("dev.warden.internal.base.SystemTimer$Task", "cancel"));

  /** Created by BlockHound's service loader. */
  public WardenBlockHoundIntegration() {}

  @Override
  public void applyTo(BlockHound.Builder builder) {
    for (Allowed allowed : ALLOWED) {
      builder.allowBlockingCallsInside(allowed.type(), allowed.method());
    }
  }
}
