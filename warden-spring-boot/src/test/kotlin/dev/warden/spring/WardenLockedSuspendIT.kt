package dev.warden.spring

import dev.warden.Warden
import dev.warden.spring.boot.WardenAutoConfiguration
import dev.warden.testkit.RedisServer
import dev.warden.testkit.WardenExtension
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
import org.assertj.core.api.Assertions.assertThat
import org.assertj.core.api.Assertions.assertThatThrownBy
import org.awaitility.Awaitility.await
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.extension.ExtendWith
import org.springframework.boot.autoconfigure.AutoConfigurations
import org.springframework.boot.test.context.runner.ApplicationContextRunner

/**
 * `@WardenLocked` on Kotlin `suspend` functions, in a real context against a testkit redis-server:
 * the lock is held for the coroutine's work (an exact counter, one inside at a time, across
 * suspension points), and released when it throws or is cancelled.
 */
@ExtendWith(WardenExtension::class)
class WardenLockedSuspendIT {
  /** Suspending annotated methods over one shared counter. */
  open class Counter {
    private val inside = AtomicInteger()
    private val most = AtomicInteger()
    private var value = 0 // guarded by the lock "counter"
    val entered = CompletableDeferred<Unit>()

    open fun value() = value

    open fun mostInside() = most.get()

    @WardenLocked(name = "counter")
    open suspend fun increment(): Int {
      most.accumulateAndGet(inside.incrementAndGet(), Math::max)
      val read = value
      delay(2) // suspends while holding the lock
      value = read + 1
      inside.decrementAndGet()
      return value
    }

    @WardenLocked(name = "failing")
    open suspend fun decline(): String {
      delay(1)
      error("declined")
    }

    @WardenLocked(name = "endless")
    open suspend fun forever() {
      entered.complete(Unit)
      awaitCancellation()
    }
  }

  private fun runner(redis: RedisServer) =
    ApplicationContextRunner()
      .withConfiguration(AutoConfigurations.of(WardenAutoConfiguration::class.java))
      .withBean(Counter::class.java)
      .withPropertyValues("warden.uri=" + redis.uri())

  @Test
  fun concurrentSuspendCallsExcludeEachOtherAcrossSuspensionPoints(redis: RedisServer) {
    runner(redis).run { context ->
      val counter = context.getBean(Counter::class.java)
      runBlocking(Dispatchers.Default) { (0 until 40).map { async { counter.increment() } }.awaitAll() }
      assertThat(counter.value()).isEqualTo(40)
      assertThat(counter.mostInside()).isEqualTo(1)
    }
  }

  @Test
  fun aThrowingOrCancelledSuspendCallReleasesTheLock(redis: RedisServer, observer: Warden) {
    runner(redis).run { context ->
      val counter = context.getBean(Counter::class.java)
      assertThatThrownBy { runBlocking { counter.decline() } }.hasMessage("declined")
      assertThat(observer.inspect("failing").isLocked).isFalse()

      runBlocking {
        val job = launch(Dispatchers.Default) { counter.forever() }
        await().until { observer.inspect("endless").isLocked }
        job.cancelAndJoin()
      }
      await().until { !observer.inspect("endless").isLocked }
    }
  }
}
