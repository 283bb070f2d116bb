package dev.warden.it.model;

import static dev.warden.it.model.ReentrantProtocol.number;

import dev.warden.internal.base.Settings;
import dev.warden.it.model.Views.Hold;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A condition of a lock, as {@code RedisCondition} runs it: await joins the wait list
 * (cond-enqueue, which leaves one hold), gives it back with the lock's own release (which may hand
 * the lock to a parked waiter), waits until a signal took it off the list (cond-check) or gives up
 * (cond-leave), then takes the lock again as many times as the client counted; signal and signalAll
 * (cond-signal) need the lock.
 */
final class ConditionProtocol {
  /** A thread inside await: its waiter id, the count it will restore, and its user's count. */
  record Awaiting(String waiter, int restore, int user) {}

  private final Wire wire;
  private final Clients clients;
  private final LockSide lock;
  private final String holdKey;
  private final String base;
  private int handles;
  final Map<String, Awaiting> awaiting = new LinkedHashMap<>();

  ConditionProtocol(Wire wire, Clients clients, LockSide lock, String holdKey) {
    this.wire = wire;
    this.clients = clients;
    this.lock = lock;
    this.holdKey = holdKey;
    this.base = holdKey + ":cond:c";
  }

  /**
   * await() by an owner that holds the lock; the thread then waits. The lock's release may hand it
   * to {@code waiter}, a parked waiter of the same client (or none).
   */
  void await(String owner, String waiter) {
    Hold hold = clients.views(lock).hold(owner);
    String waiterId = ReentrantProtocol.client(owner) + "h" + ++handles + ":c";
    List<Object> reply =
        wire.run(
            "cond-enqueue",
            List.of(holdKey, base + ":waiters", base + ":beats", base + ":arrivals"),
            owner,
            waiterId,
            Long.toString(Settings.HEARTBEAT_TIMEOUT_MILLIS));
    if (number(reply, 0) == 0) {
      clients.lost(lock, owner); // LeaseExpiredException: the lock's hold was lost
      return;
    }
    int count = hold.count; // RedisCondition takes back the client's count, not Redis's
    int user = hold.user;
    hold.count = 1; // every hold goes with the lock's own release, as the client's last one
    hold.user = 1;
    int lostBefore = clients.lostReported;
    clients.release(lock, owner, Clients.Fault.NONE, waiter, false);
    if (clients.lostReported == lostBefore) {
      awaiting.put(owner, new Awaiting(waiterId, count, user));
    } // else the release found the hold lost: await throws, and the thread holds nothing
  }

  /** signal() or signalAll() by an owner that holds the lock. */
  void signal(String owner, boolean all) {
    List<Object> reply =
        wire.run(
            "cond-signal",
            List.of(holdKey, base + ":waiters", base + ":beats"),
            owner,
            all ? "1" : "0",
            holdKey + ":cond:c:signal");
    if (number(reply, 0) < 0) {
      clients.lost(lock, owner); // LeaseExpiredException
    }
  }

  /**
   * An awaiting thread wakes: asks whether it was signalled; if not and {@code giveUp}, leaves the
   * list (a signal that took it off meanwhile counts). Signalled or given up, it takes the lock
   * back.
   */
  void wake(String owner, boolean giveUp) {
    Awaiting a = awaiting.get(owner);
    List<Object> check =
        wire.run(
            "cond-check",
            List.of(base + ":waiters", base + ":beats", base + ":arrivals"),
            a.waiter(),
            Long.toString(Settings.HEARTBEAT_TIMEOUT_MILLIS));
    if (number(check, 0) != 1) {
      if (!giveUp) {
        return; // still waiting
      }
      wire.run("cond-leave", List.of(base + ":waiters", base + ":beats"), a.waiter());
    }
    awaiting.remove(owner);
    clients.reacquire(lock, owner, a.restore(), a.user());
  }
}
