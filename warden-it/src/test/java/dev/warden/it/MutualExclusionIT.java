package dev.warden.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.warden.DistributedLock;
import dev.warden.Warden;
import dev.warden.testkit.CriticalSection;
import dev.warden.testkit.RedisServer;
import dev.warden.testkit.StartGate;
import dev.warden.testkit.WardenExtension;
import dev.warden.testkit.WardenFactory;
import io.lettuce.core.KillArgs;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BiFunction;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Mutual exclusion as an invariant with faults injected while the lock is held, for every lock
 * type. The calm run of the same invariant is part of the lock contract ({@link LockContract}).
 */
@ExtendWith(WardenExtension.class)
class MutualExclusionIT {
  private static final int CLIENTS = 3;
  private static final int THREADS_PER_CLIENT = 4;
  private static final int ROUNDS = 60;
  private static final int HOLDS = CLIENTS * THREADS_PER_CLIENT * ROUNDS;

  /** The lock types, each made from a Warden and a name. */
  // ImmutableEnumChecker: each maker is a stateless method reference or lambda
  @SuppressWarnings("ImmutableEnumChecker")
  enum LockType {
    REENTRANT(Warden::lock),
    FAIR(Warden::fairLock),
    WRITE((warden, name) -> warden.readWriteLock(name).writeLock());

    private final BiFunction<Warden, String, DistributedLock> maker;

    LockType(BiFunction<Warden, String, DistributedLock> maker) {
      this.maker = maker;
    }

    DistributedLock of(Warden warden, String name) {
      return maker.apply(warden, name);
    }
  }

  @ParameterizedTest
  @EnumSource(LockType.class)
  void threadsOfSeveralClientsNeverOverlapWhileRedisFreezesAndPubSubConnectionsDieUnderAHolder(
      LockType type, RedisServer redis, WardenFactory wardens) throws Exception {
    List<DistributedLock> locks = new ArrayList<>();
    for (int c = 0; c < CLIENTS; c++) {
      locks.add(type.of(wardens.create(), "faulty"));
    }
    CriticalSection section = new CriticalSection();
    AtomicInteger holds = new AtomicInteger();
    AtomicLong pubSubKilled = new AtomicLong();
    StartGate.run(
        CLIENTS * THREADS_PER_CLIENT,
        ROUNDS,
        contender -> {
          DistributedLock lock = locks.get(contender % CLIENTS);
          lock.lock();
          try {
            int hold = holds.incrementAndGet();
            if (hold == HOLDS / 4) {
              // as in a long GC pause of Redis: this holder's unlock and everyone's attempts stall
              redis.pause(Duration.ofMillis(500));
            } else if (hold == HOLDS / 2) {
              // the waiters' wake-ups are lost until they resubscribe
              pubSubKilled.set(redis.redis().clientKill(KillArgs.Builder.typePubsub()));
            }
            section.enterWithToken(lock.fencingToken());
          } finally {
            lock.unlock();
          }
        });
    section.assertMutualExclusion(HOLDS);
    assertThat(pubSubKilled).as("pub/sub connections killed under a holder").hasPositiveValue();
    assertThat(locks.get(0).isLocked()).isFalse();
  }
}
