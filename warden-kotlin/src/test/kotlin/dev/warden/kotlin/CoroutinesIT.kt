package dev.warden.kotlin

import dev.warden.LeaseExpiredException
import dev.warden.LockTimeoutException
import dev.warden.Warden
import dev.warden.testkit.DocExamples
import dev.warden.testkit.WardenExtension
import dev.warden.testkit.WardenFactory
import java.nio.file.Path
import java.time.Duration
import java.util.concurrent.atomic.AtomicInteger
import kotlinx.coroutines.CompletableDeferred
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.async
import kotlinx.coroutines.awaitAll
import kotlinx.coroutines.awaitCancellation
import kotlinx.coroutines.cancelAndJoin
import kotlinx.coroutines.delay
import kotlinx.coroutines.launch
import kotlinx.coroutines.runBlocking
import kotlinx.coroutines.withContext
import org.assertj.core.api.Assertions.assertThat
import org.assertj.core.api.Assertions.assertThatThrownBy
import org.awaitility.Awaitility.await
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.extension.ExtendWith

/**
 * The suspending lock API against a real redis-server: an exact counter under contention, release
 * on cancellation while waiting and while holding (checked in Redis), and the non-reentrant
 * coroutine-mutex semantics.
 */
@ExtendWith(WardenExtension::class)
class CoroutinesIT {
  private val bound: Duration = Duration.ofSeconds(30)

  private fun held(observer: Warden, name: String) = observer.inspect(name).isLocked

  @Test
  fun withLockKeepsAnExactCounterUnderContentionFromTwoClients(wardens: WardenFactory) {
    val locks = listOf(wardens.create().lock("counter"), wardens.create().lock("counter"))
    val inside = AtomicInteger()
    val mostInside = AtomicInteger()
    var counter = 0
    runBlocking(Dispatchers.Default) {
      (0 until 100)
        .map { i ->
          async {
            locks[i % 2].withLock(bound) {
              mostInside.accumulateAndGet(inside.incrementAndGet(), Math::max)
              val read = counter
              delay(1)
              counter = read + 1
              inside.decrementAndGet()
            }
          }
        }
        .awaitAll()
    }
    assertThat(counter).isEqualTo(100)
    assertThat(mostInside.get()).isEqualTo(1)
  }

  @Test
  fun cancellingAWaitingCoroutineLeavesNothingHeldInRedis(wardens: WardenFactory) {
    val observer = wardens.create()
    val theirs = wardens.create().lock("job").acquire(Duration.ZERO)
    val mine = wardens.create().lock("job")
    val ran = AtomicInteger()
    runBlocking {
      val waiting = launch(Dispatchers.Default) { mine.withLock(bound) { ran.incrementAndGet() } }
      await().atMost(bound).until { observer.inspect("job").waitingClients() == 1L }
      waiting.cancelAndJoin()
      theirs.close()
    }
    await().atMost(bound).until { !held(observer, "job") }
    assertThat(ran.get()).isZero()
  }

  @Test
  fun cancellingAHoldingCoroutineReleasesTheLock(warden: Warden) {
    runBlocking {
      val holding = CompletableDeferred<Unit>()
      val job =
        launch(Dispatchers.Default) {
          warden.lock("job").withLock(bound) {
            holding.complete(Unit)
            awaitCancellation()
          }
        }
      holding.await()
      assertThat(withContext(Dispatchers.IO) { held(warden, "job") }).isTrue()
      job.cancelAndJoin()
    }
    assertThat(held(warden, "job")).isFalse()
  }

  @Test
  fun aFailingBlockReleasesAndPassesItsFailureOn(warden: Warden) {
    assertThatThrownBy { runBlocking { warden.lock("job").withLock(bound) { error("declined") } } }
      .hasMessage("declined")
    assertThat(held(warden, "job")).isFalse()
  }

  @Test
  fun aNestedWithLockOfTheSameNameWaitsForItselfAndTimesOut(warden: Warden) {
    val lock = warden.lock("job")
    assertThatThrownBy {
        runBlocking {
          lock.withLock(bound) {
            // not reentrant: the outer hold is another owner, so this waits for it
            lock.withLock(Duration.ofMillis(200)) { "never" }
          }
        }
      }
      .isInstanceOf(LockTimeoutException::class.java)
    assertThat(held(warden, "job")).isFalse()
  }

  @Test
  fun aFixedLeaseHoldIsNotRenewedAndItsLateReleaseSaysSo(warden: Warden) {
    runBlocking {
      val hold = warden.lock("job").acquireHandle(Duration.ZERO, Duration.ofMillis(200))
      assertThat(warden.stats().renewedHolds()).isZero()
      await().atMost(bound).until { !held(warden, "job") }
      assertThatThrownBy { runBlocking { hold.release() } }
        .isInstanceOf(LeaseExpiredException::class.java)
      assertThat(hold.extendLease(Duration.ofSeconds(1))).isFalse()
    }
  }

  @Test
  fun withLockWithALeaseHoldsForTheBlockAndExtendLeaseMovesTheLease(warden: Warden) {
    runBlocking {
      val extended =
        warden.lock("job").withLock(Duration.ZERO, Duration.ofSeconds(5)) { hold ->
          hold.extendLease(Duration.ofSeconds(60))
        }
      assertThat(extended).isTrue()
    }
    assertThat(held(warden, "job")).isFalse()
  }

  @Test
  fun theReadmeExampleRunsAsShown(warden: Warden) {
    val invoices = Invoices()
    runBlocking {
      val id = "42"
      // example kotlin: begin
      val receipt =
        warden.lock("invoice-$id").withLock(Duration.ofSeconds(5)) { hold ->
          invoices.charge(id, hold.fencingToken()) // a suspend call; released after it
        }
      // example kotlin: end
      assertThat(receipt).startsWith("charged 42 with token ")
    }
    DocExamples.assertShown(
      Path.of("../docs/reactive-and-kotlin.md"),
      "kotlin",
      Path.of("src/test/kotlin/dev/warden/kotlin/CoroutinesIT.kt"),
    )
  }

  private class Invoices {
    suspend fun charge(id: String, token: Long): String {
      delay(1)
      return "charged $id with token $token"
    }
  }
}
