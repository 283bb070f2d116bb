package dev.warden.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.warden.DistributedLock;
import dev.warden.LockHandle;
import dev.warden.Warden;
import dev.warden.WardenException;
import dev.warden.testkit.RedisServer;
import dev.warden.testkit.WardenExtension;
import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Function;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The rest of issue 15's bad input: every factory with null, blank, brace and 1 MB names; names
 * with every kind of character; durations at {@code Long.MAX_VALUE} of every unit; a key of another
 * type under each kind of object. Each is a clear error naming the argument or the object, or
 * works; nothing is left behind in Redis but the fence counters (which expire).
 */
@ExtendWith(WardenExtension.class)
class BadInputMoreIT {
  /** The on-Redis format marker: the one key Warden keeps without expiry, by design. */
  private static final String FORMAT_MARKER = "warden:{warden-format}:format";

  private static final String MEGABYTE = "n".repeat(1 << 20);

  @Test
  void everyFactoryRejectsBadNamesNamingTheArgumentAndShortensHugeValues(Warden warden) {
    List<Consumer<String>> factories =
        List.of(
            warden::lock,
            warden::fairLock,
            warden::readWriteLock,
            warden::semaphore,
            warden::leasedSemaphore,
            warden::countDownLatch,
            warden::inspect);
    for (Consumer<String> factory : factories) {
      for (String bad : new String[] {null, "", " ", "\n\t", "a{b", "}"}) {
        assertThatThrownBy(() -> factory.accept(bad))
            .isInstanceOf(IllegalArgumentException.class)
            .hasMessageStartingWith("name must not");
      }
      String hugeWithBrace = MEGABYTE + "{";
      assertThatThrownBy(() -> factory.accept(hugeWithBrace))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageStartingWith("name must not contain '{' or '}'")
          .hasMessageContaining("(1048577 characters)")
          .satisfies(e -> assertThat(e.getMessage().length()).isLessThan(400));
    }
    assertThatThrownBy(() -> warden.multiLock((DistributedLock[]) null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("locks");
  }

  @Test
  void aMegabyteNameAndNamesOfEveryKindOfCharacterWorkAndLeaveOnlyTheFence(
      RedisServer redis, Warden warden) throws Exception {
    List<String> names =
        List.of(
            MEGABYTE,
            "new\nline",
            "nul\0byte",
            "tab\tcr\r",
            "emoji 🔒🗝️",
            "日本語",
            "glob*?[a-z]",
            "quote'\"\\",
            "colon:warden:x",
            "%s%n",
            "\u202Eright-to-left",
            "\uD83D"); // a lone surrogate: sent as '?' by UTF-8, still one lock per name
    for (String name : names) {
      DistributedLock lock = warden.lock(name);
      String shown = name.length() > 40 ? name.substring(0, 40) + "..." : name;
      assertThat(lock.tryLock(5, TimeUnit.SECONDS)).as(shown).isTrue();
      assertThat(lock.isHeldByCurrentThread()).as(shown).isTrue();
      assertThat(warden.inspect(name).holders()).as(shown).hasSize(1);
      lock.unlock();
      try (LockHandle handle = lock.acquire(Duration.ofSeconds(5))) {
        assertThat(handle.fencingToken()).as(shown).isPositive();
        assertThat(lock.isLocked()).as(shown).isTrue();
      }
      var semaphore = warden.semaphore(name);
      assertThat(semaphore.trySetPermits(1)).isTrue();
      assertThat(semaphore.tryAcquire()).isTrue();
      semaphore.release();
      var latch = warden.countDownLatch(name);
      assertThat(latch.trySetCount(1)).isTrue();
      latch.countDown();
      assertThat(latch.await(1, TimeUnit.SECONDS)).isTrue();
      redis.redis().del("warden:{" + name + "}:semaphore"); // permits stay until deleted
    }
    assertThat(lockKeysBut(redis, ":fence"))
        .as("only fence counters, the markers of changes and of releases remain, and they expire")
        .allSatisfy(
            key -> {
              assertThat(key).containsAnyOf(":op:", ":unlocked:");
              assertThat(redis.redis().pttl(key)).isPositive();
            });
    for (String key : redis.redis().keys("*")) {
      if (key.equals(FORMAT_MARKER)) {
        continue; // one per deployment, written at build(): docs/operations.md, "Upgrades"
      }
      assertThat(redis.redis().pttl(key)).as("%s expires", key).isPositive();
    }
  }

  @Test
  void longMaxValueOfEveryUnitWaitsAtMostForeverAndLeasesAreCappedOrRejected(
      RedisServer redis, Warden warden) throws Exception {
    DistributedLock lock = warden.lock("forever");
    for (TimeUnit unit : TimeUnit.values()) {
      assertThat(lock.tryLock(Long.MAX_VALUE, unit)).as("free lock, wait %s", unit).isTrue();
      lock.unlock();
      // a lease of Long.MAX_VALUE units is honoured or refused by name, never half-applied
      try {
        assertThat(lock.tryLock(0, Long.MAX_VALUE, unit)).isTrue();
        assertThat(redis.redis().pttl("warden:{forever}:lock")).as("%s", unit).isPositive();
        lock.unlock();
      } catch (IllegalArgumentException refused) {
        assertThat(refused).hasMessageContaining("leaseTime");
      }
      assertThat(lock.isLocked()).isFalse();
    }
    for (Duration huge :
        List.of(
            Duration.ofSeconds(Long.MAX_VALUE, 999_999_999),
            ChronoUnit.FOREVER.getDuration(),
            Duration.ofMillis(Long.MAX_VALUE))) {
      try (LockHandle handle = lock.acquire(huge)) {
        assertThat(handle.fencingToken()).isPositive();
      }
      try {
        lock.tryAcquire(Duration.ZERO, huge).orElseThrow().close();
      } catch (IllegalArgumentException refused) {
        assertThat(refused).hasMessageContaining("leaseTime");
      }
      assertThat(lock.isLocked()).isFalse();
    }
    var semaphore = warden.semaphore("forever");
    semaphore.trySetPermits(1);
    var leased = warden.leasedSemaphore("forever");
    leased.trySetPermits(1);
    var latch = warden.countDownLatch("forever");
    for (TimeUnit unit : TimeUnit.values()) {
      assertThat(semaphore.tryAcquire(1, Long.MAX_VALUE, unit)).isTrue();
      semaphore.release();
      assertThat(latch.await(Long.MAX_VALUE, unit)).as("an open latch").isTrue();
      try {
        String permit = leased.tryAcquire(Long.MAX_VALUE, Long.MAX_VALUE, unit);
        assertThat(permit).isNotNull();
        leased.release(permit);
      } catch (IllegalArgumentException refused) {
        assertThat(refused).hasMessageContaining("leaseTime");
      }
      assertThat(leased.availablePermits()).isEqualTo(1);
    }
    assertThatThrownBy(() -> semaphore.tryAcquire(-1, 1, TimeUnit.SECONDS))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("permits");
    assertThatThrownBy(() -> latch.trySetCount(-1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("count");
    assertThatThrownBy(() -> leased.tryAcquire(0, 0, TimeUnit.SECONDS))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("leaseTime");
  }

  @Test
  void aKeyOfAnotherTypeUnderEachKindOfObjectIsReportedAndLeftAlone(
      RedisServer redis, Warden warden) {
    record Case(String key, Function<String, Object> call, String object) {}
    List<Case> cases =
        List.of(
            new Case("warden:{x}:lock", n -> warden.lock(n).tryLock(), "lock 'x'"),
            new Case("warden:{x}:fair", n -> warden.fairLock(n).tryLock(), "'x'"),
            new Case(
                "warden:{x}:rw:write", n -> warden.readWriteLock(n).writeLock().tryLock(), "'x'"),
            new Case(
                "warden:{x}:rw:reads", n -> warden.readWriteLock(n).readLock().tryLock(), "'x'"),
            new Case("warden:{x}:semaphore", n -> warden.semaphore(n).tryAcquire(), "'x'"),
            new Case(
                "warden:{x}:leased-semaphore",
                n -> warden.leasedSemaphore(n).trySetPermits(1),
                "'x'"),
            new Case("warden:{x}:latch", n -> warden.countDownLatch(n).trySetCount(1), "'x'"));
    for (Case c : cases) {
      redis.redis().flushall();
      redis.redis().sadd(c.key(), "another program's set");
      assertThatThrownBy(() -> c.call().apply("x"), c.key())
          .isInstanceOf(WardenException.class)
          .hasMessageContaining(c.object())
          .hasMessageContaining("not a Warden object");
      assertThat(redis.redis().type(c.key())).isEqualTo("set");
      assertThat(redis.redis().smembers(c.key())).containsExactly("another program's set");
      assertThat(lockKeysBut(redis, ":fence"))
          .as("left behind by %s", c.key())
          .containsExactly(c.key());
    }
  }

  private static Set<String> lockKeysBut(RedisServer redis, String suffix) {
    Set<String> keys = new java.util.TreeSet<>(redis.redis().keys("*"));
    keys.removeIf(k -> k.endsWith(suffix) || k.equals(FORMAT_MARKER));
    return keys;
  }
}
