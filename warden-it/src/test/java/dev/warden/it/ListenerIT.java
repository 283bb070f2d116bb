package dev.warden.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.warden.DistributedLock;
import dev.warden.DistributedReadWriteLock;
import dev.warden.LeaseExpiredException;
import dev.warden.LockHandle;
import dev.warden.ObjectType;
import dev.warden.Warden;
import dev.warden.WardenActivity;
import dev.warden.WardenException;
import dev.warden.WardenListener;
import dev.warden.WardenListener.Outcome;
import dev.warden.testkit.Blocking;
import dev.warden.testkit.RedisServer;
import dev.warden.testkit.WardenExtension;
import dev.warden.testkit.WardenFactory;
import dev.warden.testkit.WardenOptions;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** What listeners hear and what {@link Warden#activity()} lists, after real acquisitions. */
@ExtendWith(WardenExtension.class)
class ListenerIT {

  /** One event as a listener heard it. */
  record Event(
      String kind, ObjectType type, String name, Outcome outcome, long holdId, long nanos) {
    @Override
    public String toString() {
      return kind + " " + type.tag() + " " + name + (outcome == null ? "" : " " + outcome.tag());
    }
  }

  /** Records every event, in order. */
  static final class Recorder implements WardenListener {
    final List<Event> events = new CopyOnWriteArrayList<>();

    @Override
    public void acquisitionStarted(ObjectType type, String name) {
      events.add(new Event("started", type, name, null, 0, 0));
    }

    @Override
    public void acquisitionEnded(ObjectType type, String name, Outcome outcome, long nanos) {
      events.add(new Event("ended", type, name, outcome, 0, nanos));
    }

    @Override
    public void holdStarted(ObjectType type, String name, long holdId) {
      events.add(new Event("held", type, name, null, holdId, 0));
    }

    @Override
    public void holdEnded(ObjectType type, String name, long holdId, long nanos) {
      events.add(new Event("released", type, name, null, holdId, nanos));
    }

    @Override
    public void leaseRenewed(ObjectType type, String name) {
      events.add(new Event("renewed", type, name, null, 0, 0));
    }

    @Override
    public void leaseLost(ObjectType type, String name) {
      events.add(new Event("lost", type, name, null, 0, 0));
    }

    List<String> lines() {
      return events.stream().filter(e -> !e.kind().equals("renewed")).map(Event::toString).toList();
    }

    long count(String kind) {
      return events.stream().filter(e -> e.kind().equals(kind)).count();
    }
  }

  private static Event only(Recorder recorder, String kind) {
    List<Event> found = recorder.events.stream().filter(e -> e.kind().equals(kind)).toList();
    assertThat(found).hasSize(1);
    return found.get(0);
  }

  @Test
  void aLockAndAReentryAreTwoAcquisitionsAndOneHoldTimedFromGrantToRelease(Warden warden)
      throws Exception {
    Recorder recorder = new Recorder();
    warden.addListener(recorder);
    DistributedLock lock = warden.lock("orders");

    lock.lock();
    await().atMost(Duration.ofSeconds(5)).until(() -> recorder.count("ended") == 1);
    lock.lock();
    await().atMost(Duration.ofSeconds(5)).until(() -> recorder.count("ended") == 2);
    lock.unlock();
    lock.unlock();

    // an acquisition's end may be heard just after its hold began (on the completing thread)
    assertThat(recorder.lines())
        .containsExactlyInAnyOrder(
            "started lock orders",
            "ended lock orders acquired",
            "held lock orders",
            "started lock orders",
            "ended lock orders acquired",
            "released lock orders");
    assertThat(recorder.lines()).last().isEqualTo("released lock orders");
    Event held = only(recorder, "held");
    Event released = only(recorder, "released");
    assertThat(released.holdId()).isEqualTo(held.holdId()).isPositive();
    assertThat(released.nanos()).isPositive();
    assertThat(recorder.events)
        .filteredOn(e -> e.kind().equals("ended"))
        .allMatch(e -> e.nanos() > 0);
  }

  @Test
  void aWaitThatRunsOutIsTimedOutAndIsListedAsAWaiterMeanwhile(Warden warden, WardenFactory more)
      throws Exception {
    Recorder recorder = new Recorder();
    warden.addListener(recorder);
    try (Warden other = more.create()) {
      LockHandle held = other.fairLock("queue").acquire(Duration.ZERO);
      CompletableFuture<Boolean> waiter =
          Blocking.inThread(() -> warden.fairLock("queue").tryLock(700, TimeUnit.MILLISECONDS));
      await().atMost(Duration.ofSeconds(5)).until(() -> !warden.activity().waiters().isEmpty());
      WardenActivity.Waiter listed = warden.activity().waiters().get(0);
      assertThat(listed.type()).isEqualTo(ObjectType.FAIR_LOCK);
      assertThat(listed.name()).isEqualTo("queue");
      assertThat(listed.waitingFor()).isLessThan(Duration.ofSeconds(5));

      assertThat(waiter.get(10, TimeUnit.SECONDS)).isFalse();
      held.close();
    }
    await().atMost(Duration.ofSeconds(5)).until(() -> recorder.count("ended") == 1);
    assertThat(recorder.lines())
        .containsExactly("started fair_lock queue", "ended fair_lock queue timed_out");
    assertThat(only(recorder, "ended").nanos()).isGreaterThanOrEqualTo(700_000_000L);
    assertThat(warden.activity().waiters()).isEmpty();
  }

  @Test
  void aCancelledAsyncAcquisitionIsCancelledAndAClosedWardenFailsTheWait(
      Warden warden, WardenFactory more) throws Exception {
    Recorder recorder = new Recorder();
    Warden closing = more.create();
    try (Warden other = more.create()) {
      LockHandle held = other.lock("gate").acquire(Duration.ZERO);
      warden.addListener(recorder);
      CompletableFuture<LockHandle> cancelled =
          warden.lock("gate").acquireAsync(Duration.ofSeconds(30));
      await().atMost(Duration.ofSeconds(5)).until(() -> recorder.count("started") == 1);
      cancelled.cancel(false);
      await().atMost(Duration.ofSeconds(5)).until(() -> recorder.count("ended") == 1);

      closing.addListener(recorder);
      CompletableFuture<LockHandle> failing =
          closing.lock("gate").acquireAsync(Duration.ofSeconds(30));
      await().atMost(Duration.ofSeconds(5)).until(() -> recorder.count("started") == 2);
      closing.close();
      assertThatThrownBy(() -> failing.get(10, TimeUnit.SECONDS))
          .isInstanceOf(ExecutionException.class)
          .hasCauseInstanceOf(WardenException.class);
      held.close();
    }
    assertThat(recorder.lines())
        .containsExactly(
            "started lock gate",
            "ended lock gate cancelled",
            "started lock gate",
            "ended lock gate failed");
  }

  @Test
  @WardenOptions(watchdogTimeoutMillis = 300)
  void renewalsAreHeardAndALostLeaseIsHeardOnceThenTheHoldEndsWhenItsOwnerIsTold(
      RedisServer redis, Warden warden) throws Exception {
    Recorder recorder = new Recorder();
    warden.addListener(recorder);
    DistributedLock lock = warden.lock("renewed");
    LockHandle handle = lock.acquire(Duration.ZERO);
    await().atMost(Duration.ofSeconds(5)).until(() -> recorder.count("renewed") >= 2);
    assertThat(recorder.events)
        .filteredOn(e -> e.kind().equals("renewed"))
        .allMatch(e -> e.type() == ObjectType.LOCK && e.name().equals("renewed"));

    redis.redis().del("warden:{renewed}:lock");
    handle.leaseLost().toCompletableFuture().get(5, TimeUnit.SECONDS);
    assertThat(recorder.count("lost")).isEqualTo(1);
    WardenActivity.Hold listed = warden.activity().holds().get(0);
    assertThat(listed.lost()).isTrue();
    assertThat(recorder.count("released")).isZero();

    assertThatThrownBy(handle::close).isInstanceOf(LeaseExpiredException.class);
    assertThat(recorder.lines().subList(0, 3))
        .containsExactlyInAnyOrder(
            "started lock renewed", "ended lock renewed acquired", "held lock renewed");
    assertThat(recorder.lines().subList(3, recorder.lines().size()))
        .containsExactly("lost lock renewed", "released lock renewed");
    assertThat(recorder.count("lost")).isEqualTo(1);
    assertThat(warden.activity().holds()).isEmpty();
  }

  @Test
  void everyPrimitiveNamesItsTypeAndActivityListsHoldsOldestFirst(Warden warden) throws Exception {
    Recorder recorder = new Recorder();
    warden.addListener(recorder);
    DistributedReadWriteLock rw = warden.readWriteLock("doc");
    LockHandle fair = warden.fairLock("f").acquire(Duration.ZERO);
    rw.readLock().lock();
    rw.readLock().unlock();
    rw.writeLock().lock(5, TimeUnit.SECONDS);
    DistributedLock multi = warden.multiLock(warden.lock("m1"), warden.lock("m2"));
    multi.lock();

    List<WardenActivity.Hold> holds = warden.activity().holds();
    assertThat(holds)
        .extracting(WardenActivity.Hold::type, WardenActivity.Hold::name)
        .startsWith(
            org.assertj.core.groups.Tuple.tuple(ObjectType.FAIR_LOCK, "f"),
            org.assertj.core.groups.Tuple.tuple(ObjectType.WRITE_LOCK, "doc"));
    assertThat(holds).hasSize(4);
    assertThat(holds.get(0).renewed()).isTrue();
    assertThat(holds.get(1).renewed()).isFalse();
    assertThat(holds.get(0).holdCount()).isEqualTo(1);
    assertThat(holds.get(0).fencingToken()).isEqualTo(fair.fencingToken());
    assertThat(holds.get(0).owner()).isNotBlank();
    assertThat(holds.get(1).heldFor()).isLessThanOrEqualTo(holds.get(0).heldFor());

    multi.unlock();
    rw.writeLock().unlock();
    fair.close();

    warden.semaphore("pool").trySetPermits(1);
    assertThat(warden.semaphore("pool").tryAcquire()).isTrue();
    assertThat(warden.semaphore("pool").tryAcquire()).isFalse();
    warden.leasedSemaphore("leases").trySetPermits(1);
    String permit = warden.leasedSemaphore("leases").tryAcquire(0, 5, TimeUnit.SECONDS);
    assertThat(permit).isNotNull();
    warden.countDownLatch("latch").trySetCount(1);
    assertThat(warden.countDownLatch("latch").await(10, TimeUnit.MILLISECONDS)).isFalse();
    // the end of an acquisition is heard on the thread that completed it: maybe a moment later
    await()
        .atMost(Duration.ofSeconds(5))
        .until(() -> recorder.count("started") == recorder.count("ended"));

    assertThat(recorder.lines())
        .contains(
            "ended fair_lock f acquired",
            "held fair_lock f",
            "ended read_lock doc acquired",
            "released read_lock doc",
            "held write_lock doc",
            "ended multi_lock " + multi.getName() + " acquired",
            "held lock m1",
            "held lock m2",
            "released lock m2",
            "ended semaphore pool acquired",
            "ended semaphore pool timed_out",
            "ended leased_semaphore leases acquired",
            "ended count_down_latch latch timed_out");
    assertThat(recorder.count("held")).isEqualTo(recorder.count("released")).isEqualTo(5);
    assertThat(warden.activity().holds()).isEmpty();
  }

  @Test
  void aListenerThatThrowsChangesNothingAndARemovedOneHearsNothingMore(Warden warden)
      throws Exception {
    Recorder recorder = new Recorder();
    WardenListener broken =
        new WardenListener() {
          @Override
          public void acquisitionStarted(ObjectType type, String name) {
            throw new IllegalStateException("broken on purpose");
          }

          @Override
          public void holdEnded(ObjectType type, String name, long holdId, long nanos) {
            throw new IllegalStateException("broken on purpose");
          }
        };
    warden.addListener(broken);
    warden.addListener(recorder);
    DistributedLock lock = warden.lock("sturdy");
    lock.lock();
    lock.unlock();
    await().atMost(Duration.ofSeconds(5)).until(() -> recorder.lines().size() == 4);

    assertThat(warden.removeListener(recorder)).isTrue();
    assertThat(warden.removeListener(recorder)).isFalse();
    lock.lock();
    lock.unlock();
    assertThat(recorder.lines()).hasSize(4);
    assertThatThrownBy(() -> warden.addListener(null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("listener must not be null");
  }
}
