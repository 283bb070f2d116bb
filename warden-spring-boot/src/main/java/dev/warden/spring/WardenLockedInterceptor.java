package dev.warden.spring;

import dev.warden.DistributedLock;
import dev.warden.Warden;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.core.MethodClassKey;
import org.springframework.core.annotation.AnnotatedElementUtils;

/** Takes the lock of a {@link WardenLocked} method around the call. Thread-safe. */
final class WardenLockedInterceptor implements MethodInterceptor {
  private final Supplier<Warden> warden;
  private final BeanFactory beanFactory;
  private final Map<MethodClassKey, LockedMethod> methods = new ConcurrentHashMap<>();

  WardenLockedInterceptor(Supplier<Warden> warden, BeanFactory beanFactory) {
    this.warden = warden;
    this.beanFactory = beanFactory;
  }

  /** Returns the method's settings, or null when it is not annotated. */
  LockedMethod settings(Method method, Class<?> targetClass) {
    Method specific = AopUtils.getMostSpecificMethod(method, targetClass);
    WardenLocked locked = AnnotatedElementUtils.findMergedAnnotation(specific, WardenLocked.class);
    if (locked == null) {
      return null;
    }
    return methods.computeIfAbsent(
        new MethodClassKey(method, targetClass),
        key -> LockedMethod.of(specific, locked, beanFactory));
  }

  @Override
  public Object invoke(MethodInvocation invocation) throws Throwable {
    Object target = invocation.getThis();
    Class<?> targetClass =
        target == null
            ? invocation.getMethod().getDeclaringClass()
            : AopUtils.getTargetClass(target);
    LockedMethod locked = settings(invocation.getMethod(), targetClass);
    if (locked == null) {
      return invocation.proceed();
    }
    String name = locked.lockName(invocation.getArguments());
    DistributedLock lock = locked.lock(warden.get(), name);
    switch (locked.kind()) {
      case STAGE:
        return AsyncLocking.stage(invocation, locked, lock, name);
      case MONO:
        return AsyncLocking.mono(invocation, locked, lock, name);
      case FLUX:
        return AsyncLocking.flux(invocation, locked, lock, name);
      case BLOCKING:
      default:
        return blocking(invocation, locked, lock, name);
    }
  }

  private static Object blocking(
      MethodInvocation invocation, LockedMethod locked, DistributedLock lock, String name)
      throws Throwable {
    if (!acquire(lock, locked)) {
      if (locked.skips()) {
        return locked.skipped();
      }
      throw notAcquired(name, locked, null);
    }
    Object result;
    try {
      result = invocation.proceed();
    } catch (Throwable failure) {
      try {
        lock.unlock();
      } catch (RuntimeException unlockFailure) {
        failure.addSuppressed(unlockFailure);
      }
      throw failure;
    }
    // A lease lost while the method ran (LeaseExpiredException) or Redis failing now is thrown:
    // the method's effects are done, but another owner may have run it meanwhile.
    lock.unlock();
    return result;
  }

  static LockNotAcquiredException notAcquired(String name, LockedMethod locked, Throwable cause) {
    return new LockNotAcquiredException(
        name,
        "lock \""
            + name
            + "\" of "
            + locked.description()
            + " not acquired within "
            + locked.waitTime(),
        cause);
  }

  private static boolean acquire(DistributedLock lock, LockedMethod locked) {
    Duration wait = locked.waitTime();
    Duration lease = locked.leaseTime();
    try {
      if (wait == null) {
        if (lease == null) {
          lock.lockInterruptibly();
        } else {
          lock.lockInterruptibly(lease.toMillis(), TimeUnit.MILLISECONDS);
        }
        return true;
      }
      return lease == null
          ? lock.tryLock(wait.toMillis(), TimeUnit.MILLISECONDS)
          : lock.tryLock(wait.toMillis(), lease.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new LockNotAcquiredException(
          lock.getName(),
          "interrupted while waiting for lock \""
              + lock.getName()
              + "\" of "
              + locked.description(),
          e);
    }
  }
}
