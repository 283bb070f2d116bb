package dev.warden.spring;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Runs the method while holding a Warden lock, so that no two calls with the same lock name run at
 * once, in any instance of the application.
 *
 * <pre>{@code
 * @WardenLocked(name = "invoice", key = "#invoice.id", waitTime = "5s")
 * @Transactional
 * public void charge(Invoice invoice) { ... }   // lock "invoice:42"; released after commit
 * }</pre>
 *
 * <p><b>The lock's name</b> is {@link #name()} (plain text; {@code ${...}} placeholders are
 * resolved) and the value of {@link #key()} (a SpEL expression over the arguments), joined by
 * {@code ':'} when both are given; just one of them when only one is; {@code
 * SimpleClassName.method} when neither is. In {@code key}, arguments are {@code #name} (the class
 * must be compiled with {@code -parameters}, as {@code spring-boot-starter-parent} does), {@code
 * #p0} or {@code #a0} (always), {@code #root} is the argument array and {@code @bean} a bean. A key
 * that does not parse fails when the bean is proxied; one that does not evaluate (or gives null)
 * fails the call with an {@link IllegalArgumentException}, before the lock is taken; both name the
 * method and the expression.
 *
 * <p><b>Ordering.</b> The lock's advice runs outside Spring's transaction advice (see {@link
 * WardenLockedAdvisor#DEFAULT_ORDER}): the lock is taken before the transaction begins and released
 * after it commits (or rolls back), so the next holder sees the committed data.
 *
 * <p><b>Ownership.</b> On a method that returns its result, the lock is the calling thread's
 * ({@link dev.warden.DistributedLock}'s thread-bound API): reentrant across nested annotated calls
 * of the same name on the same thread, renewed by the watchdog unless {@link #leaseTime()} is set.
 *
 * <p><b>Asynchronous methods.</b> On a method returning {@code CompletableFuture} or {@code
 * CompletionStage}, the lock is a {@link dev.warden.LockHandle}'s (not a thread's, so not
 * reentrant): it is acquired without blocking the caller, the method is called on Warden's callback
 * executor once it is held, and the lock is released when the returned future completes or fails;
 * cancelling the future the caller got cancels the wait or the method's future, and releases. On a
 * method returning {@code Mono}, {@code Flux} or {@code Publisher}, each subscription acquires the
 * lock, calls the method, and releases when its publisher completes, fails or is cancelled ({@code
 * usingWhen}); nothing blocks. Not acquired in time: the future or publisher fails with {@link
 * LockNotAcquiredException}, or (with {@link NotAcquired#SKIP}) completes with {@code null} or
 * empty. A Kotlin {@code suspend} function is locked like a {@code Mono} (Spring AOP hands the
 * advice its result as one, and awaits what the advice returns): the lock is held across its
 * suspension points until it returns, throws or is cancelled (with kotlinx-coroutines-reactor,
 * which Spring's coroutine support needs). A plain {@code Future} and other reactive types are
 * rejected at start-up.
 *
 * <p><b>Proxies.</b> The annotation works through Spring's proxy: a call from within the same
 * object ({@code this.charge(...)}) is not locked; nor are private methods, or beans that are not
 * proxied.
 *
 * @since 0.2
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface WardenLocked {
  /**
   * The lock's name, or the prefix of its name when {@link #key()} is given. Plain text; {@code
   * ${...}} placeholders are resolved.
   *
   * @return the name or prefix; empty for none
   */
  String name() default "";

  /**
   * A SpEL expression over the method's arguments whose value completes the lock's name, e.g.
   * {@code "#order.id"}, {@code "#p0"}, {@code "'invoice-' + #id"}.
   *
   * @return the expression; empty for none
   */
  String key() default "";

  /**
   * The kind of lock.
   *
   * @return the lock type
   */
  Type type() default Type.LOCK;

  /**
   * How long to wait for the lock: a duration such as {@code "5s"}, {@code "500ms"} or {@code
   * "PT5S"} (a bare number is milliseconds; {@code ${...}} placeholders are resolved). {@code "0"}
   * tries once. Empty (the default) waits as long as it takes.
   *
   * @return the wait time; empty to wait without limit
   */
  String waitTime() default "";

  /**
   * The lease: how long the hold lasts unless released, in the syntax of {@link #waitTime()}. Empty
   * (the default) means the watchdog renews it while the method runs.
   *
   * @return the lease time; empty for a renewed lease
   */
  String leaseTime() default "";

  /**
   * What the call does when the lock is not acquired within {@link #waitTime()}.
   *
   * @return the policy
   */
  NotAcquired onNotAcquired() default NotAcquired.THROW;

  /** The kind of lock taken. */
  enum Type {
    /** The reentrant lock ({@code Warden.lock}). */
    LOCK,
    /** The fair lock ({@code Warden.fairLock}): first come, first served. */
    FAIR,
    /** The read lock of the read-write lock of that name: shared with other readers. */
    READ,
    /** The write lock of the read-write lock of that name: exclusive. */
    WRITE
  }

  /** What a call does when the lock is not acquired in time. */
  enum NotAcquired {
    /** Throws {@link LockNotAcquiredException}, naming the lock; the method does not run. */
    THROW,
    /**
     * Returns without running the method: {@code null}, or {@code Optional.empty()} for an {@code
     * Optional}. Not allowed on methods returning a primitive.
     */
    SKIP
  }
}
