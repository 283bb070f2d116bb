/**
 * Warden for Kotlin coroutines: suspending acquisition and release of handle-owned holds.
 *
 * **Semantics: a coroutine mutex, not a reentrant lock.** Every hold here belongs to a
 * [LockHandle], not to a thread or a coroutine: two coroutines, even on one thread, are two owners
 * and exclude each other, and a coroutine that asks again for a lock it holds waits for itself. A
 * nested `withLock` of the same name in the same coroutine therefore ends with
 * [dev.warden.LockTimeoutException] after its wait (or never, without one): hold the handle you
 * have instead of asking again. Nothing suspends a thread: the acquisition waits on Redis's release
 * messages, the release is [LockHandle.closeAsync].
 */
@file:JvmName("WardenCoroutines")

package dev.warden.kotlin

import dev.warden.DistributedLock
import dev.warden.LockHandle
import java.time.Duration
import java.util.concurrent.CompletableFuture
import java.util.concurrent.CompletionException
import kotlin.coroutines.resume
import kotlin.coroutines.resumeWithException
import kotlinx.coroutines.NonCancellable
import kotlinx.coroutines.future.await
import kotlinx.coroutines.suspendCancellableCoroutine
import kotlinx.coroutines.withContext

/**
 * Acquires a hold owned by the returned handle, suspending (not blocking) for at most [waitTime];
 * the lease keeper renews it until the handle is closed. Cancelling the coroutine while it waits
 * abandons the acquisition: nothing stays held in Redis, also when the grant raced the cancellation
 * (it is released).
 *
 * @throws dev.warden.LockTimeoutException if another owner still holds the lock after [waitTime]
 * @throws dev.warden.WardenException if Redis cannot be reached
 * @throws IllegalArgumentException if [waitTime] is negative
 */
suspend fun DistributedLock.acquireHandle(waitTime: Duration): LockHandle =
  acquireAsync(waitTime).awaitHandle()

/**
 * Acquires a hold with a fixed lease (never renewed; it ends after [leaseTime] unless extended or
 * released), suspending for at most [waitTime]; cancellable as [acquireHandle].
 *
 * @throws dev.warden.LockTimeoutException if another owner still holds the lock after [waitTime]
 * @throws IllegalArgumentException if [waitTime] is negative or [leaseTime] is not positive
 */
suspend fun DistributedLock.acquireHandle(waitTime: Duration, leaseTime: Duration): LockHandle =
  acquireAsync(waitTime, leaseTime).awaitHandle()

/**
 * Runs [block] while holding this lock: acquires as [acquireHandle], and releases when [block]
 * returns, throws or is cancelled (the release itself is not cancellable). Not reentrant: see the
 * file's documentation.
 *
 * A block that completed but whose hold had been lost meanwhile throws
 * [dev.warden.LeaseExpiredException] (its effects are done, but another owner may have held the
 * lock: guard them with [LockHandle.fencingToken]).
 */
suspend fun <T> DistributedLock.withLock(waitTime: Duration, block: suspend (LockHandle) -> T): T =
  acquireHandle(waitTime).use(block)

/** Runs [block] while holding this lock with a fixed lease, as [withLock]. */
suspend fun <T> DistributedLock.withLock(
  waitTime: Duration,
  leaseTime: Duration,
  block: suspend (LockHandle) -> T,
): T = acquireHandle(waitTime, leaseTime).use(block)

/**
 * Releases the hold without blocking ([LockHandle.closeAsync]); a second call does nothing.
 *
 * @throws dev.warden.LeaseExpiredException if the hold had already been lost
 * @throws dev.warden.WardenException if Redis could not be reached (calling again is safe)
 */
suspend fun LockHandle.release() {
  closeAsync().awaitUnwrapped()
}

/**
 * Sets the hold's lease to [leaseTime] from now without blocking ([LockHandle.extendAsync]); false
 * when the hold was gone.
 */
suspend fun LockHandle.extendLease(leaseTime: Duration): Boolean =
  extendAsync(leaseTime).awaitUnwrapped()

private suspend fun <T> LockHandle.use(block: suspend (LockHandle) -> T): T {
  val result =
    try {
      block(this)
    } catch (failure: Throwable) {
      withContext(NonCancellable) {
        try {
          release()
        } catch (releaseFailure: Exception) {
          failure.addSuppressed(releaseFailure)
        }
      }
      throw failure
    }
  withContext(NonCancellable) { release() }
  return result
}

/**
 * Waits for an acquisition's handle; a cancellation cancels the future (abandoning the wait, and
 * giving back a grant that raced in), and a handle that arrives once the coroutine is cancelled is
 * released.
 */
private suspend fun CompletableFuture<LockHandle>.awaitHandle(): LockHandle =
  suspendCancellableCoroutine { continuation ->
    whenComplete { hold, failure ->
      if (failure == null) {
        continuation.resume(hold) { _, granted, _ -> granted.closeAsync() }
      } else {
        continuation.resumeWithException(unwrap(failure))
      }
    }
    continuation.invokeOnCancellation { cancel(false) }
  }

private suspend fun <T> CompletableFuture<T>.awaitUnwrapped(): T =
  try {
    await()
  } catch (failure: CompletionException) {
    throw unwrap(failure)
  }

private fun unwrap(failure: Throwable): Throwable =
  if (failure is CompletionException && failure.cause != null) failure.cause!! else failure
