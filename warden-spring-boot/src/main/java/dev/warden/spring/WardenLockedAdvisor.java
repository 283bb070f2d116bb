package dev.warden.spring;

import dev.warden.Warden;
import java.lang.reflect.Method;
import java.util.Objects;
import java.util.function.Supplier;
import org.aopalliance.aop.Advice;
import org.springframework.aop.Pointcut;
import org.springframework.aop.PointcutAdvisor;
import org.springframework.aop.support.StaticMethodMatcherPointcut;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.core.Ordered;

/**
 * The Spring AOP advisor that locks {@link WardenLocked} methods; the Boot auto-configuration
 * declares it (as an infrastructure bean, so that any auto-proxy creator applies it). No AspectJ
 * weaving is involved.
 *
 * <p>Annotations are checked when a bean is proxied: a wrong attribute (a key that does not parse,
 * a duration that does not, SKIP on a primitive method, an asynchronous return type) fails the
 * application's start, naming the method.
 *
 * @since 0.2
 */
public final class WardenLockedAdvisor implements PointcutAdvisor, Ordered {
  /**
   * The default order: before (outside) Spring's transaction advisor, whose default order is {@link
   * Ordered#LOWEST_PRECEDENCE}, so that the lock is taken before a transaction begins and released
   * after it ends.
   */
  public static final int DEFAULT_ORDER = Ordered.LOWEST_PRECEDENCE - 100;

  private final WardenLockedInterceptor interceptor;
  private final Pointcut pointcut;
  private final int order;

  /**
   * Creates the advisor.
   *
   * @param warden supplies the {@link Warden} when a locked method is first called (not before, so
   *     that creating the advisor connects nothing)
   * @param beanFactory resolves {@code ${...}} placeholders and {@code @bean} references; may be
   *     null
   * @param order the advisor's order; see {@link #DEFAULT_ORDER}
   */
  public WardenLockedAdvisor(Supplier<Warden> warden, BeanFactory beanFactory, int order) {
    this.interceptor =
        new WardenLockedInterceptor(Objects.requireNonNull(warden, "warden"), beanFactory);
    this.order = order;
    this.pointcut =
        new StaticMethodMatcherPointcut() {
          @Override
          public boolean matches(Method method, Class<?> targetClass) {
            return interceptor.settings(method, targetClass) != null;
          }
        };
  }

  /** Returns the pointcut: the methods annotated with {@link WardenLocked}. */
  @Override
  public Pointcut getPointcut() {
    return pointcut;
  }

  /** Returns the advice, which takes the lock around the call. */
  @Override
  public Advice getAdvice() {
    return interceptor;
  }

  /** Returns the advisor's order. */
  @Override
  public int getOrder() {
    return order;
  }
}
