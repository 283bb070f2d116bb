package dev.warden.internal.lease;

import static org.assertj.core.api.Assertions.assertThat;

import dev.warden.ObjectType;
import dev.warden.WardenListener;
import dev.warden.internal.base.Events;
import dev.warden.internal.base.Settings;
import dev.warden.internal.base.Subject;
import dev.warden.internal.base.VirtualTime;
import dev.warden.internal.redis.Deployment;
import dev.warden.internal.redis.PubSub;
import dev.warden.internal.redis.Script;
import dev.warden.internal.redis.Scripts;
import io.lettuce.core.RedisConnectionException;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.output.CommandOutput;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.ProtocolKeyword;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The lease keeper in virtual time, behind a real {@link Scripts} and a deployment whose script
 * calls the test answers by hand. Lost-lease callbacks run directly on the test thread.
 */
class LeaseKeeperTest {
  private static final Duration LEASE = Duration.ofSeconds(30);
  private static final long PERIOD = Duration.ofSeconds(10).toNanos();
  private static final Renewal RENEWAL =
      new Renewal(new Script("renew", "return {}", null), List.of("lock"));

  private final Settings settings =
      new Settings(LEASE, Duration.ofSeconds(3), Duration.ofSeconds(5));
  private final VirtualTime time = new VirtualTime();
  private final StubDeployment redis = new StubDeployment();
  private final LeaseKeeper keeper =
      new LeaseKeeper(new Scripts(redis), time, time, Runnable::run, settings);

  /**
   * One script call the keeper sent: how many holds it renews, the lease it sets (ms), and its
   * reply to complete.
   */
  private record Call(String routingKey, int holds, long lease, CompletableFuture<Object> reply) {
    void renewedAll() {
      reply.complete(List.<Long>of());
    }

    void notRenewed(long... indices) {
      List<Long> list = new ArrayList<>();
      for (long index : indices) {
        list.add(index);
      }
      reply.complete(list);
    }

    void failed() {
      reply.completeExceptionally(new RedisConnectionException("connection lost"));
    }
  }

  private static final class StubDeployment implements Deployment {
    final List<Call> calls = new ArrayList<>();
    int shards = 1;

    @Override
    @SuppressWarnings("unchecked")
    public <T> CompletableFuture<T> dispatch(
        byte[] routingKey,
        ProtocolKeyword type,
        CommandOutput<String, String, T> output,
        CommandArgs<String, String> args) {
      CompletableFuture<T> reply = new CompletableFuture<>();
      // sha, key count, one key per hold, the lease, one owner per hold
      int holds = (args.count() - 3) / 2;
      calls.add(
          new Call(
              new String(routingKey, StandardCharsets.UTF_8),
              holds,
              Long.parseLong(args.toCommandString().split(" ", -1)[2 + holds]),
              (CompletableFuture<Object>) reply));
      return reply;
    }

    @Override
    public <T> CompletableFuture<T> command(
        String routingKey,
        Function<RedisClusterAsyncCommands<String, String>, RedisFuture<T>> command) {
      throw new UnsupportedOperationException();
    }

    /** Keys ending in an even digit in shard 0, odd in shard 1, when {@code shards} is 2. */
    @Override
    public int shardOf(byte[] key) {
      return key[key.length - 1] % shards;
    }

    @Override
    public boolean shardedPubSub() {
      return false;
    }

    @Override
    public String fenceEpoch() {
      return "0";
    }

    @Override
    public PubSub pubSub() {
      throw new UnsupportedOperationException();
    }

    @Override
    public void onReconnect(Runnable action) {}

    @Override
    public String describe() {
      return "stub";
    }

    @Override
    public void close() {}
  }

  private int holds;

  /** The holds whose drop the keeper sent (Hold.Drop), in order, and the replies to complete. */
  private final List<Hold> dropped = new ArrayList<>();

  private final List<CompletableFuture<Object>> drops = new ArrayList<>();

  private CompletableFuture<?> drop(Hold hold) {
    dropped.add(hold);
    CompletableFuture<Object> reply = new CompletableFuture<>();
    drops.add(reply);
    return reply;
  }

  /** A hold taken now, its lease running from now. */
  private Hold hold() {
    return hold(time.nanoTime() + LEASE.toNanos());
  }

  private Hold hold(long leaseDeadlineNanos) {
    int n = holds++;
    return new Hold(
        "lock 'l" + n + "'",
        new Subject(ObjectType.LOCK, "l" + n),
        time.nanoTime(),
        new Events(),
        "owner-" + n,
        n,
        1,
        LEASE.toMillis(),
        leaseDeadlineNanos,
        new Renewal(RENEWAL.script(), List.of("lock-" + n)),
        (hold, reason) -> CompletableFuture.completedFuture(null),
        this::drop);
  }

  @Test
  void theTickerStartsOnTheFirstAddAndRenewsEveryThirdOfTheLease() {
    assertThat(keeper.isRunning()).isFalse();
    assertThat(time.pending()).isZero();
    long added = time.nanoTime();
    keeper.add(hold());
    keeper.add(hold());
    assertThat(keeper.isRunning()).isTrue();
    assertThat(time.dueTimes()).containsExactly(added + PERIOD);

    time.advanceTo(added + PERIOD - 1);
    assertThat(redis.calls).isEmpty();
    time.advanceTo(added + PERIOD);
    assertThat(redis.calls).hasSize(1);
    assertThat(redis.calls.get(0).holds()).isEqualTo(2);
    redis.calls.get(0).renewedAll();
    time.advanceTo(added + 3 * PERIOD);
    assertThat(redis.calls).hasSize(3);
    assertThat(time.pending()).isOne();
  }

  @Test
  void renewalsGoOutInBatchesOfTheRenewalBatchSize() {
    int count = 2 * Settings.RENEWAL_BATCH + 88;
    for (int i = 0; i < count; i++) {
      keeper.add(hold());
    }
    time.advance(Duration.ofNanos(PERIOD));
    assertThat(redis.calls)
        .extracting(Call::holds)
        .containsExactlyInAnyOrder(Settings.RENEWAL_BATCH, Settings.RENEWAL_BATCH, 88);
  }

  @Test
  void aTicksWorkIsPerBatchWhetherItRenews10Or10000Holds() {
    for (int count : new int[] {10, 10_000}) {
      LeaseKeeper keeper = new LeaseKeeper(new Scripts(redis), time, time, Runnable::run, settings);
      redis.calls.clear();
      for (int i = 0; i < count; i++) {
        keeper.add(hold());
      }
      int batches = (count + Settings.RENEWAL_BATCH - 1) / Settings.RENEWAL_BATCH;
      time.advance(Duration.ofNanos(PERIOD));
      assertThat(redis.calls).hasSize(batches);
      assertThat(keeper.holdsVisited()).as("its first tick makes each call once").isEqualTo(count);
      for (int tick = 2; tick <= 10; tick++) {
        redis.calls.forEach(Call::renewedAll);
        redis.calls.clear();
        time.advance(Duration.ofNanos(PERIOD));
        assertThat(redis.calls).as("tick %d of %d holds", tick, count).hasSize(batches);
        assertThat(redis.calls.stream().mapToInt(Call::holds).sum()).isEqualTo(count);
        assertThat(keeper.holdsVisited())
            .as("tick %d of %d holds: not one hold looked at", tick, count)
            .isEqualTo(count);
      }
      keeper.stop();
    }
  }

  @Test
  void holdsComeAndGoInConstantTimeAndOnlyTheBatchesTheyChangedAreMadeAgain() {
    List<Hold> added = new ArrayList<>();
    for (int i = 0; i < 4 * Settings.RENEWAL_BATCH; i++) {
      Hold hold = hold();
      added.add(hold);
      keeper.add(hold);
    }
    time.advance(Duration.ofNanos(PERIOD));
    redis.calls.forEach(Call::renewedAll);
    redis.calls.clear();
    long before = keeper.holdsVisited();
    // one hold of the first batch leaves and another arrives: the first and last batch change
    keeper.remove(added.get(3));
    keeper.remove(added.get(3)); // twice: nothing more
    keeper.add(hold());
    assertThat(keeper.size()).isEqualTo(4 * Settings.RENEWAL_BATCH);
    time.advance(Duration.ofNanos(PERIOD));
    assertThat(keeper.holdsVisited() - before).isEqualTo(2 * Settings.RENEWAL_BATCH);
    assertThat(redis.calls).extracting(Call::holds).containsOnly(Settings.RENEWAL_BATCH);

    // half of them leave: the batches stay full but the last
    for (int i = 0; i < 2 * Settings.RENEWAL_BATCH + 100; i++) {
      keeper.remove(added.get(i));
    }
    redis.calls.clear();
    time.advance(Duration.ofNanos(PERIOD));
    assertThat(redis.calls)
        .extracting(Call::holds)
        .containsExactlyInAnyOrder(Settings.RENEWAL_BATCH, Settings.RENEWAL_BATCH - 100 + 1);
    assertThat(keeper.size()).isEqualTo(2 * Settings.RENEWAL_BATCH - 100 + 1);
  }

  @Test
  void onAClusterEachBatchHoldsTheHoldsOfOneShardOnly() {
    redis.shards = 2;
    for (int i = 0; i < 10; i++) {
      keeper.add(hold()); // keys lock-0 .. lock-9: even digits in shard 0, odd in shard 1
    }
    time.advance(Duration.ofNanos(PERIOD));
    assertThat(redis.calls).extracting(Call::holds).containsExactly(5, 5);
    assertThat(redis.calls)
        .extracting(call -> redis.shardOf(call.routingKey().getBytes(StandardCharsets.UTF_8)))
        .containsExactlyInAnyOrder(0, 1);
  }

  @Test
  void aHoldTheReplyListsAsNotRenewedIsLostAndLeavesTheKeeper() {
    List<Hold> added = List.of(hold(), hold(), hold());
    added.forEach(keeper::add);
    time.advance(Duration.ofNanos(PERIOD));
    Call call = redis.calls.get(0);
    // the reply's indices are the batch's order, which is the keeper's set's order
    Hold lost =
        added.stream()
            .filter(h -> call.routingKey().equals("lock-" + h.token()))
            .findFirst()
            .orElseThrow();
    call.notRenewed(1);

    assertThat(lost.lost()).isDone();
    assertThat(lost.state()).isEqualTo(Hold.State.LOST);
    assertThat(lost.lostReason()).contains("expired");
    assertThat(dropped).as("Redis said it was gone: nothing to drop").isEmpty();
    assertThat(keeper.size()).isEqualTo(2);
    long renewedUntil = time.nanoTime() + LEASE.toNanos();
    for (Hold hold : added) {
      if (hold != lost) {
        assertThat(hold.lost()).isNotDone();
        assertThat(hold.leaseDeadlineNanos()).isEqualTo(renewedUntil);
      }
    }
    time.advance(Duration.ofNanos(PERIOD));
    assertThat(redis.calls.get(1).holds()).isEqualTo(2);
  }

  @Test
  // FutureReturnValueIgnored: thenRun only records the time; the test asserts on it
  @SuppressWarnings("FutureReturnValueIgnored")
  void whenRenewalsKeepFailingAHoldIsReportedLostAtItsLocalLeaseDeadlineNotAtTheNextTick() {
    long added = time.nanoTime();
    // taken 5 s before the keeper got it: its lease ends between two ticks
    long deadline = added + LEASE.toNanos() - Duration.ofSeconds(5).toNanos();
    Hold hold = hold(deadline);
    long[] lostAt = {0};
    hold.lost().thenRun(() -> lostAt[0] = time.nanoTime());
    keeper.add(hold);

    time.advanceTo(added + PERIOD);
    redis.calls.get(0).failed();
    assertThat(time.dueTimes()).as("an extra tick at the lease's deadline").contains(deadline);
    time.advanceTo(added + 2 * PERIOD);
    redis.calls.get(1).failed();

    time.advanceTo(deadline - 1);
    assertThat(hold.lost()).isNotDone();
    assertThat(dropped).isEmpty();
    time.advanceTo(deadline);
    assertThat(hold.lost()).isDone();
    assertThat(lostAt[0]).isEqualTo(deadline);
    assertThat(hold.lostReason()).contains("no renewal succeeded before the lease's deadline");
    assertThat(keeper.size()).isZero();
    // the renewals that failed here may have reached Redis: the hold is ended there by its token
    assertThat(dropped).containsExactly(hold);
  }

  /**
   * A hold lost by its deadline is dropped at once; while no drop was answered, its owner's unlock
   * sends another (Hold.dropLost), and none once one was.
   */
  @Test
  void aHoldLostByItsDeadlineIsDroppedUntilADropIsAnswered() {
    long added = time.nanoTime();
    Hold hold = hold(added + PERIOD + 1);
    keeper.add(hold);
    time.advanceTo(added + PERIOD);
    redis.calls.get(0).failed();
    time.advanceTo(added + PERIOD + 1);
    assertThat(hold.state()).isEqualTo(Hold.State.LOST);
    assertThat(dropped).containsExactly(hold);

    drops.get(0).completeExceptionally(new RedisConnectionException("connection lost"));
    assertThat(hold.dropLost()).as("unanswered: the owner's unlock drops it again").isNotNull();
    assertThat(dropped).hasSize(2);
    drops.get(1).complete(List.of(1L, 0L));
    assertThat(hold.dropLost()).as("answered: nothing more to drop").isNull();
    assertThat(dropped).hasSize(2);
  }

  /**
   * An owner that unlocks as soon as it hears of the loss ({@link Hold#lost()}'s dependents, run on
   * the callback executor, here the test's thread) sees the drop needed, and its unlock sends one:
   * the loss must not be published before the drop is marked needed, or the unlock throws without
   * the drop while the keeper's, sent just after, may be lost.
   */
  @Test
  // FutureReturnValueIgnored: thenRun only records what the owner's unlock would send
  @SuppressWarnings("FutureReturnValueIgnored")
  void anUnlockOnHearingOfALossByTheDeadlineSendsTheDrop() {
    long added = time.nanoTime();
    Hold hold = hold(added + PERIOD + 1);
    List<CompletableFuture<?>> sentByUnlock = new ArrayList<>();
    hold.lost().thenRun(() -> sentByUnlock.add(hold.dropLost()));
    keeper.add(hold);
    time.advanceTo(added + PERIOD);
    redis.calls.get(0).failed();
    time.advanceTo(added + PERIOD + 1);

    assertThat(hold.state()).isEqualTo(Hold.State.LOST);
    assertThat(sentByUnlock).hasSize(1);
    assertThat(sentByUnlock.get(0)).as("the unlock's drop").isNotNull();
    assertThat(dropped).containsExactly(hold, hold);
  }

  /**
   * Two renewals under way when the deadline passes both fail after it: the hold is lost (and
   * dropped) by the first; once that drop was answered, the second failure asks no other drop of
   * the owner's unlock, which would wait for it up to the command timeout for nothing.
   */
  @Test
  void aSecondRenewalFailingAfterTheDeadlineAsksNoOtherDrop() {
    long added = time.nanoTime();
    Hold hold = hold(added + 2 * PERIOD + 1);
    keeper.add(hold);
    time.advanceTo(added + PERIOD);
    time.advanceTo(added + 2 * PERIOD);
    assertThat(redis.calls).hasSize(2);
    time.advanceTo(added + 2 * PERIOD + 1);

    redis.calls.get(0).failed();
    assertThat(hold.state()).isEqualTo(Hold.State.LOST);
    assertThat(dropped).containsExactly(hold);
    drops.get(0).complete(List.of(1L, 0L));
    redis.calls.get(1).failed();
    assertThat(hold.dropLost()).as("answered: the unlock sends none").isNull();
    assertThat(dropped).hasSize(1);
  }

  @Test
  void aHoldWhoseLastReleaseIsInDoubtIsNotReportedLostWhenARenewalFindsItGone() {
    Hold released = hold();
    keeper.add(released);
    released.releaseInDoubt(true); // its owner's unlock timed out; it ran at Redis after all
    time.advance(Duration.ofNanos(PERIOD));
    redis.calls.get(0).notRenewed(1);

    assertThat(released.lost()).isNotDone();
    assertThat(released.state()).isEqualTo(Hold.State.HELD); // for the owner's retry to end it
    assertThat(keeper.size()).isZero();

    Hold reentered = hold();
    reentered.count(2); // a release in doubt of one of two holds cannot have deleted the lock
    reentered.releaseInDoubt(true);
    keeper.add(reentered);
    time.advance(Duration.ofNanos(PERIOD));
    redis.calls.get(1).notRenewed(1);
    assertThat(reentered.lost()).isDone();
  }

  /**
   * The keeper's removal (a lost hold, on an event-loop thread) finds the hold's group, then waits
   * for its monitor while the owner takes the hold out (the group, emptied, is retired) and puts it
   * back (a lease call that failed: it joins a new group). The removal, last, takes it out.
   */
  @Test
  @Timeout(10)
  void aRemovalThatWaitedWhileTheHoldMovedToANewGroupTakesItOutOfThatGroup() throws Exception {
    Hold hold = hold();
    keeper.add(hold);
    HoldGroup first = (HoldGroup) hold.keeperGroup;
    AtomicReference<Throwable> failed = new AtomicReference<>();
    Thread remover = new Thread(() -> keeper.remove(hold), "remover");
    remover.setUncaughtExceptionHandler((thread, e) -> failed.set(e));
    synchronized (first) {
      remover.start();
      while (remover.getState() != Thread.State.BLOCKED) { // read the group, waits for its monitor
        Thread.onSpinWait();
      }
      keeper.stopRenewing(hold); // the owner's, on this thread (the monitor is reentrant)
      keeper.add(hold);
      assertThat(hold.keeperGroup).isNotSameAs(first);
    }
    remover.join();

    assertThat(failed.get()).isNull();
    assertThat(keeper.size()).isZero();
    time.advanceTo(time.nanoTime() + PERIOD);
    assertThat(redis.calls).isEmpty(); // nothing renews it any more
  }

  /**
   * The owner takes the hold out to set its lease; a renewal sent before finds it gone and the
   * keeper reports it lost; the owner's lease call fails, and it puts the hold back (LockCore's
   * setLease). A hold known lost is not renewed: it does not stay in the keeper.
   */
  @Test
  void aHoldLostWhileItsOwnerHadTakenItOutDoesNotStayInTheKeeperWhenPutBack() {
    Hold hold = hold();
    keeper.add(hold);
    time.advance(Duration.ofNanos(PERIOD));
    Call call = redis.calls.get(0);
    keeper.stopRenewing(hold);
    call.notRenewed(1);
    assertThat(hold.state()).isEqualTo(Hold.State.LOST);

    keeper.add(hold);

    assertThat(keeper.size()).isZero();
    time.advance(Duration.ofNanos(2 * PERIOD));
    assertThat(redis.calls).hasSize(1);
    assertThat(keeper.isRunning()).isFalse();
  }

  @Test
  void aTickThatFindsNoHoldStopsTheTickerAndALaterAddStartsItAgain() {
    Hold hold = hold();
    keeper.add(hold);
    keeper.remove(hold);
    assertThat(keeper.isRunning()).as("remove alone does not touch the timer").isTrue();
    time.advance(Duration.ofNanos(PERIOD));
    assertThat(redis.calls).isEmpty();
    assertThat(keeper.isRunning()).isFalse();
    assertThat(time.pending()).isZero();

    time.advance(Duration.ofSeconds(60));
    long readded = time.nanoTime();
    keeper.add(hold());
    assertThat(keeper.isRunning()).isTrue();
    assertThat(time.dueTimes()).containsExactly(readded + PERIOD);
    time.advance(Duration.ofNanos(PERIOD));
    assertThat(redis.calls).hasSize(1);
  }

  @Test
  // FutureReturnValueIgnored: thenRun only records the time; the test asserts on it
  @SuppressWarnings("FutureReturnValueIgnored")
  void aHoldIsRenewedUntilItsMaximumHoldTimeSoThatItsLeaseEndsThereAndItsHolderIsToldThen() {
    Duration maxHold = Duration.ofSeconds(65); // the third tick (30 s) leaves 35 s, the fifth 15
    LeaseKeeper limited =
        new LeaseKeeper(
            new Scripts(redis),
            time,
            time,
            Runnable::run,
            new Settings(
                LEASE,
                Duration.ofSeconds(3),
                Duration.ofSeconds(5),
                dev.warden.Replication.none(),
                maxHold));
    long taken = time.nanoTime();
    long limit = taken + maxHold.toNanos();
    List<WardenListener.LossReason> heard = new ArrayList<>();
    Hold watched = holdWith(holdEvents(heard));
    long[] lostAt = {0};
    watched.lost().thenRun(() -> lostAt[0] = time.nanoTime());
    limited.add(watched);

    for (int tick = 1; tick <= 3; tick++) {
      time.advanceTo(taken + tick * PERIOD);
      Call call = redis.calls.get(redis.calls.size() - 1);
      assertThat(call.lease()).as("tick %d: a whole lease", tick).isEqualTo(LEASE.toMillis());
      call.renewedAll();
    }
    time.advanceTo(taken + 4 * PERIOD); // 25 s left: less than a lease
    Call capped = redis.calls.get(redis.calls.size() - 1);
    assertThat(capped.lease()).as("ends at the limit").isEqualTo(25_000);
    capped.renewedAll();
    assertThat(watched.leaseDeadlineNanos()).isEqualTo(limit);
    time.advanceTo(taken + 5 * PERIOD);
    redis.calls.get(redis.calls.size() - 1).renewedAll();
    assertThat(redis.calls.get(redis.calls.size() - 1).lease()).isEqualTo(15_000);

    time.advanceTo(limit - 1);
    assertThat(watched.lost()).isNotDone();
    time.advanceTo(limit);
    assertThat(watched.lost()).isDone();
    assertThat(lostAt[0]).as("told at the limit, not at the next tick").isEqualTo(limit);
    assertThat(watched.state()).isEqualTo(Hold.State.LOST);
    assertThat(watched.lostReason())
        .isEqualTo(
            "it was held for its maximum hold time (PT1M5S): the lease keeper stopped renewing"
                + " it, and it expired then");
    assertThat(heard).containsExactly(WardenListener.LossReason.MAX_HOLD_TIME);
    assertThat(limited.size()).isZero();
    int sent = redis.calls.size();
    time.advance(Duration.ofMinutes(2));
    assertThat(redis.calls).as("never renewed again").hasSize(sent);
  }

  @Test
  void aHoldReleasedBeforeItsMaximumHoldTimeIsNotReportedLost() {
    LeaseKeeper limited =
        new LeaseKeeper(
            new Scripts(redis),
            time,
            time,
            Runnable::run,
            new Settings(
                LEASE,
                Duration.ofSeconds(3),
                Duration.ofSeconds(5),
                dev.warden.Replication.none(),
                Duration.ofSeconds(40)));
    long taken = time.nanoTime();
    Hold hold = hold();
    limited.add(hold);
    time.advanceTo(taken + PERIOD);
    redis.calls.get(0).renewedAll();
    time.advanceTo(taken + 2 * PERIOD); // 20 s left: capped, and the limit is timed
    assertThat(redis.calls.get(1).lease()).isEqualTo(20_000);
    redis.calls.get(1).renewedAll();
    limited.remove(hold); // released
    time.advance(Duration.ofMinutes(1));
    assertThat(hold.lost()).isNotDone();
    assertThat(hold.state()).isEqualTo(Hold.State.HELD);
  }

  /**
   * A last lease rounded down would let Redis end the hold up to a millisecond before its holder's
   * limit; rounded up, Redis ends it at the limit or after, never before.
   */
  @Test
  void aLastRenewalBeforeTheMaximumHoldTimeRoundsItsLeaseUpToAWholeMillisecond() {
    LeaseKeeper limited = limitedTo(Duration.ofSeconds(40).plusNanos(400_000), time);
    long taken = time.nanoTime();
    limited.add(hold());
    time.advanceTo(taken + PERIOD);
    redis.calls.get(0).renewedAll();
    time.advanceTo(taken + 2 * PERIOD); // 20.0004 s left
    assertThat(redis.calls.get(1).lease()).isEqualTo(20_001);
    redis.calls.get(1).renewedAll();
  }

  /**
   * A renewal sent just before the limit can reach Redis after the hold's last lease ended there;
   * its "not renewed" reply may be handled before the limit's own timer task (a timer thread late
   * under load). The holder is told the limit ended it, not that the lock was lost.
   */
  @Test
  void aRenewalRefusedAfterTheMaximumHoldTimeReportsTheLimitEvenBeforeTheLimitsTimerRuns() {
    long[] ahead = {0}; // how far the keeper's clock is ahead of its late timer
    LeaseKeeper limited =
        limitedTo(Duration.ofSeconds(25).plusMillis(5), () -> time.nanoTime() + ahead[0]);
    long taken = time.nanoTime();
    List<WardenListener.LossReason> heard = new ArrayList<>();
    Hold watched = holdWith(holdEvents(heard));
    limited.add(watched);
    time.advanceTo(taken + PERIOD);
    redis.calls.get(0).renewedAll();
    time.advanceTo(taken + 2 * PERIOD); // 5.005 s left: the last lease, and the limit timed
    Call last = redis.calls.get(1);
    assertThat(last.lease()).isEqualTo(5_005);

    ahead[0] = Duration.ofMillis(5_005).toNanos(); // the clock at the limit, the timer not yet
    last.notRenewed(1);

    assertThat(watched.state()).isEqualTo(Hold.State.LOST);
    assertThat(watched.lostReason()).contains("maximum hold time (PT25.005S)");
    assertThat(heard).containsExactly(WardenListener.LossReason.MAX_HOLD_TIME);
    time.advance(Duration.ofSeconds(10)); // the limit's task runs, late: told once
    assertThat(heard).hasSize(1);
  }

  /**
   * A renewal refused before the limit still reports the lock lost: the limit does not cover a
   * force-unlock or an expiry before it.
   */
  @Test
  void aRenewalRefusedBeforeTheMaximumHoldTimeReportsTheLockLost() {
    LeaseKeeper limited = limitedTo(Duration.ofSeconds(25).plusMillis(5), time);
    long taken = time.nanoTime();
    List<WardenListener.LossReason> heard = new ArrayList<>();
    Hold watched = holdWith(holdEvents(heard));
    limited.add(watched);
    time.advanceTo(taken + PERIOD);
    redis.calls.get(0).renewedAll();
    time.advanceTo(taken + 2 * PERIOD);
    redis.calls.get(1).notRenewed(1);

    assertThat(watched.lostReason())
        .isEqualTo("the lock expired, was force-unlocked, or was lost with Redis data");
    assertThat(heard).containsExactly(WardenListener.LossReason.EXPIRED);
  }

  /**
   * At its limit the hold is dropped in Redis by its token, as one lost by its deadline is: a
   * re-entry in the last renewal period set a whole lease again, which no renewal brings back to
   * the limit (MaxHoldTimeIT), and a renewal that reached Redis late set its capped lease from
   * then.
   */
  @Test
  void theMaximumHoldTimeEndsTheHoldInRedisByItsToken() {
    LeaseKeeper limited = limitedTo(Duration.ofSeconds(25), time);
    long taken = time.nanoTime();
    List<WardenListener.LossReason> heard = new ArrayList<>();
    Hold watched = holdWith(holdEvents(heard));
    limited.add(watched);
    time.advanceTo(taken + PERIOD);
    redis.calls.get(0).renewedAll();
    time.advanceTo(taken + 2 * PERIOD);
    redis.calls.get(1).renewedAll();
    assertThat(dropped).isEmpty();

    time.advanceTo(taken + Duration.ofSeconds(25).toNanos());

    assertThat(heard).containsExactly(WardenListener.LossReason.MAX_HOLD_TIME);
    assertThat(dropped).containsExactly(watched);
    drops.get(0).complete(List.of(1L, 0L));
    assertThat(watched.dropLost()).as("answered: no other drop").isNull();
  }

  /**
   * A direct grant's confirmation ({@link LeaseKeeper#renewNow(Hold)}) less than a lease before the
   * limit (a maximum hold time of one watchdog lease) rounds its lease up too.
   */
  @Test
  void aConfirmationLessThanALeaseBeforeTheLimitRoundsItsLeaseUpToAWholeMillisecond() {
    LeaseKeeper limited = limitedTo(LEASE, time);
    Hold granted = hold();
    limited.add(granted);
    time.advance(Duration.ofNanos(600_000)); // confirmed 0.6 ms after the grant arrived

    limited.renewNow(granted);

    assertThat(redis.calls.get(0).lease()).isEqualTo(LEASE.toMillis());
  }

  /**
   * A renewal that fails after the limit, handled before the limit's timer task (late), of a hold
   * renewed until the limit: the limit ended it, and it is dropped all the same.
   */
  @Test
  void aRenewalFailingAfterTheMaximumHoldTimeReportsTheLimitEvenBeforeTheLimitsTimerRuns() {
    long[] ahead = {0}; // how far the keeper's clock is ahead of its late timer
    LeaseKeeper limited =
        limitedTo(Duration.ofSeconds(35).plusMillis(5), () -> time.nanoTime() + ahead[0]);
    long taken = time.nanoTime();
    List<WardenListener.LossReason> heard = new ArrayList<>();
    Hold watched = holdWith(holdEvents(heard));
    limited.add(watched);
    time.advanceTo(taken + PERIOD);
    redis.calls.get(0).renewedAll(); // capped (25.005 s): its deadline is the limit
    time.advanceTo(taken + 2 * PERIOD);

    ahead[0] = Duration.ofMillis(15_005).toNanos(); // the clock at the limit, the timer not yet
    redis.calls.get(1).failed();

    assertThat(watched.lostReason()).contains("maximum hold time (PT35.005S)");
    assertThat(heard).containsExactly(WardenListener.LossReason.MAX_HOLD_TIME);
    assertThat(dropped).containsExactly(watched);
    time.advance(Duration.ofSeconds(10)); // the limit's task runs, late: told once
    assertThat(heard).hasSize(1);
    assertThat(dropped).hasSize(1);
  }

  /**
   * A renewal refused and handled after the limit, of a hold whose lease deadline came long before
   * it (its timer thread late): its lease ran out, or it was force-unlocked, before the limit; the
   * limit did not end it.
   */
  @Test
  void aRenewalRefusedAfterTheLimitOfAHoldWhoseDeadlineCameFirstReportsTheLockLost() {
    long[] ahead = {0};
    LeaseKeeper limited = limitedTo(Duration.ofSeconds(65), () -> time.nanoTime() + ahead[0]);
    long taken = time.nanoTime();
    List<WardenListener.LossReason> heard = new ArrayList<>();
    Hold watched = holdWith(holdEvents(heard));
    limited.add(watched);
    time.advanceTo(taken + PERIOD);
    Call whole = redis.calls.get(0);
    assertThat(whole.lease()).isEqualTo(LEASE.toMillis());

    ahead[0] = Duration.ofSeconds(60).toNanos(); // past the limit (65 s), and the deadline (30 s)
    whole.notRenewed(1);

    assertThat(watched.lostReason())
        .isEqualTo("the lock expired, was force-unlocked, or was lost with Redis data");
    assertThat(heard).containsExactly(WardenListener.LossReason.EXPIRED);
  }

  /**
   * A hold whose capped renewals went unanswered until after the limit: its lease deadline, from
   * the last whole lease, is less than a renewal period before the limit (no tick on time would
   * have found it passed before the limit), so a refusal handled after the limit reports the limit.
   */
  @Test
  void aRefusalAfterTheLimitOfAHoldWhoseCappedRenewalsWentUnansweredReportsTheLimit() {
    long[] ahead = {0};
    LeaseKeeper limited = limitedTo(Duration.ofSeconds(65), () -> time.nanoTime() + ahead[0]);
    long taken = time.nanoTime();
    List<WardenListener.LossReason> heard = new ArrayList<>();
    Hold watched = holdWith(holdEvents(heard));
    limited.add(watched);
    for (int tick = 1; tick <= 3; tick++) {
      time.advanceTo(taken + tick * PERIOD);
      redis.calls.get(tick - 1).renewedAll(); // whole leases: the deadline is 60 s
    }
    time.advanceTo(taken + 4 * PERIOD);
    Call capped = redis.calls.get(3);
    assertThat(capped.lease()).isEqualTo(25_000);

    ahead[0] = Duration.ofSeconds(26).toNanos(); // at 66 s, the limit's timer late
    capped.notRenewed(1);

    assertThat(heard).containsExactly(WardenListener.LossReason.MAX_HOLD_TIME);
  }

  /**
   * A tick that runs late, after both the hold's lease deadline and its limit, the deadline first:
   * lost by its deadline (and dropped), not to the limit.
   */
  @Test
  void aLateTickAfterTheDeadlineAndThenTheLimitLosesTheHoldByItsDeadline() {
    long[] ahead = {0};
    LeaseKeeper limited = limitedTo(Duration.ofSeconds(65), () -> time.nanoTime() + ahead[0]);
    List<WardenListener.LossReason> heard = new ArrayList<>();
    Hold watched = holdWith(holdEvents(heard));
    limited.add(watched);

    ahead[0] =
        Duration.ofSeconds(60).toNanos(); // the first tick at 70 s: deadline 30 s, limit 65 s
    time.advance(Duration.ofNanos(PERIOD));

    assertThat(redis.calls).isEmpty();
    assertThat(watched.lostReason()).isEqualTo("no renewal succeeded before the lease's deadline");
    assertThat(heard).containsExactly(WardenListener.LossReason.EXPIRED);
    assertThat(dropped).containsExactly(watched);
  }

  /** A keeper whose holds are renewed for at most {@code maxHold}, timed by {@code clock}. */
  private LeaseKeeper limitedTo(Duration maxHold, dev.warden.internal.base.Clock clock) {
    return new LeaseKeeper(
        new Scripts(redis),
        time,
        clock,
        Runnable::run,
        new Settings(
            LEASE,
            Duration.ofSeconds(3),
            Duration.ofSeconds(5),
            dev.warden.Replication.none(),
            maxHold));
  }

  /** Events whose listener records the reason of each lost lease. */
  private static Events holdEvents(List<WardenListener.LossReason> heard) {
    Events events = new Events();
    events.add(
        new WardenListener() {
          @Override
          public void leaseLost(
              ObjectType type, String name, long holdId, WardenListener.LossReason reason) {
            heard.add(reason);
          }
        });
    return events;
  }

  /** A hold taken now, reporting to {@code events}. */
  private Hold holdWith(Events events) {
    int n = holds++;
    return new Hold(
        "lock 'l" + n + "'",
        new Subject(ObjectType.LOCK, "l" + n),
        time.nanoTime(),
        events,
        "owner-" + n,
        n,
        1,
        LEASE.toMillis(),
        time.nanoTime() + LEASE.toNanos(),
        new Renewal(RENEWAL.script(), List.of("lock-" + n)),
        (hold, reason) -> CompletableFuture.completedFuture(null),
        this::drop);
  }

  @Test
  void renewNowRenewsOnTheTimerRightAway() {
    keeper.add(hold());
    keeper.renewNow();
    assertThat(redis.calls).as("not on the caller's thread").isEmpty();
    time.runDue();
    assertThat(redis.calls).hasSize(1);
  }

  @Test
  void stopClearsEverythingAndNothingRunsAfterwards() {
    keeper.add(hold());
    keeper.add(hold());
    keeper.stop();
    assertThat(keeper.size()).isZero();
    assertThat(keeper.isRunning()).isFalse();
    assertThat(time.pending()).isZero();

    keeper.add(hold());
    keeper.renewNow();
    assertThat(keeper.size()).as("a hold added after stop is dropped").isZero();
    assertThat(keeper.isRunning()).isFalse();
    time.advance(Duration.ofMinutes(5));
    assertThat(redis.calls).isEmpty();
  }
}
