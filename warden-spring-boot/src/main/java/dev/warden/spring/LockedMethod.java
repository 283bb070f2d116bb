package dev.warden.spring;

import dev.warden.DistributedLock;
import dev.warden.Warden;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Future;
import org.reactivestreams.Publisher;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.config.ConfigurableBeanFactory;
import org.springframework.boot.convert.DurationStyle;
import org.springframework.context.expression.BeanFactoryResolver;
import org.springframework.context.expression.MethodBasedEvaluationContext;
import org.springframework.core.DefaultParameterNameDiscoverer;
import org.springframework.core.ParameterNameDiscoverer;
import org.springframework.expression.EvaluationException;
import org.springframework.expression.Expression;
import org.springframework.expression.ParseException;
import org.springframework.expression.spel.standard.SpelExpressionParser;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/** One annotated method's lock settings, parsed and checked once. Immutable. */
final class LockedMethod {
  private static final SpelExpressionParser PARSER = new SpelExpressionParser();
  private static final ParameterNameDiscoverer PARAMETER_NAMES =
      new DefaultParameterNameDiscoverer();

  /** How a method's work ends: when it returns, or when what it returns completes. */
  enum Kind {
    /** Returns when the work is done: the calling thread holds the lock around the call. */
    BLOCKING,
    /** Returns a {@code CompletableFuture} or {@code CompletionStage}. */
    STAGE,
    /** Returns a {@code Mono}, or is a Kotlin {@code suspend} function (Spring AOP sees a Mono). */
    MONO,
    /** Returns a {@code Flux} or a {@code Publisher}. */
    FLUX
  }

  private final Method method;
  private final String description;
  private final String name;
  private final String keySource;
  private final Expression key;
  private final WardenLocked.Type type;
  private final Duration waitTime; // null: without limit
  private final Duration leaseTime; // null: watchdog
  private final WardenLocked.NotAcquired onNotAcquired;
  private final BeanFactory beanFactory; // may be null
  private final Kind kind;

  private LockedMethod(Method method, WardenLocked locked, BeanFactory beanFactory) {
    this.method = method;
    this.description =
        method.getDeclaringClass().getSimpleName()
            + "."
            + method.getName()
            + parameterTypes(method);
    this.beanFactory = beanFactory;
    this.name = resolve(locked.name());
    this.keySource = locked.key();
    this.key = keySource.isBlank() ? null : parse(keySource);
    this.type = locked.type();
    this.waitTime = duration("waitTime", locked.waitTime());
    this.leaseTime = duration("leaseTime", locked.leaseTime());
    if (leaseTime != null && (leaseTime.isNegative() || leaseTime.isZero())) {
      throw invalid("leaseTime must be positive: " + leaseTime);
    }
    if (waitTime != null && waitTime.isNegative()) {
      throw invalid("waitTime must not be negative: " + waitTime);
    }
    this.onNotAcquired = locked.onNotAcquired();
    Class<?> returns = method.getReturnType();
    if (onNotAcquired == WardenLocked.NotAcquired.SKIP
        && returns.isPrimitive()
        && returns != void.class) {
      throw invalid("onNotAcquired = SKIP cannot return a " + returns + "; return a wrapper");
    }
    this.kind = kind(returns);
  }

  private Kind kind(Class<?> returns) {
    if (returns == CompletableFuture.class || returns == CompletionStage.class) {
      return Kind.STAGE;
    }
    if (returns == Mono.class) {
      return Kind.MONO;
    }
    if (returns == Flux.class || returns == Publisher.class) {
      return Kind.FLUX;
    }
    Class<?>[] parameters = method.getParameterTypes();
    if (parameters.length > 0
        && parameters[parameters.length - 1].getName().equals("kotlin.coroutines.Continuation")) {
      // Spring AOP (6.1+) hands a suspend function's advice a Mono of its result and awaits the
      // Mono the advice returns: the lock is held for the coroutine's work like a Mono's
      return Kind.MONO;
    }
    if (Future.class.isAssignableFrom(returns)
        || CompletionStage.class.isAssignableFrom(returns)
        || Publisher.class.isAssignableFrom(returns)
        || implementsNamed(returns, "kotlinx.coroutines.flow.Flow")) {
      throw invalid(
          "returns "
              + returns.getName()
              + ": the lock can be held until a CompletableFuture, CompletionStage, Mono, Flux or"
              + " Publisher completes, not until this type does");
    }
    return Kind.BLOCKING;
  }

  /**
   * Parses and checks the annotation of a method.
   *
   * @throws IllegalStateException naming the method if an attribute is wrong
   */
  static LockedMethod of(Method method, WardenLocked locked, BeanFactory beanFactory) {
    return new LockedMethod(method, locked, beanFactory);
  }

  private static String parameterTypes(Method method) {
    StringBuilder types = new StringBuilder("(");
    for (Class<?> parameter : method.getParameterTypes()) {
      types.append(types.length() > 1 ? ", " : "").append(parameter.getSimpleName());
    }
    return types.append(')').toString();
  }

  private static boolean implementsNamed(Class<?> type, String interfaceName) {
    if (type.getName().equals(interfaceName)) {
      return true;
    }
    for (Class<?> implemented : type.getInterfaces()) {
      if (implemented.getName().equals(interfaceName)
          || implementsNamed(implemented, interfaceName)) {
        return true;
      }
    }
    return false;
  }

  private String resolve(String value) {
    if (beanFactory instanceof ConfigurableBeanFactory configurable && value.contains("${")) {
      String resolved = configurable.resolveEmbeddedValue(value);
      return resolved == null ? "" : resolved;
    }
    return value;
  }

  private Expression parse(String expression) {
    try {
      return PARSER.parseExpression(expression);
    } catch (ParseException e) {
      throw invalid("key \"" + expression + "\" does not parse: " + e.getMessage(), e);
    }
  }

  private Duration duration(String attribute, String value) {
    String text = resolve(value).strip();
    if (text.isEmpty()) {
      return null;
    }
    try {
      return DurationStyle.detectAndParse(text);
    } catch (IllegalArgumentException e) {
      throw invalid(attribute + " is not a duration: \"" + text + "\"", e);
    }
  }

  private IllegalStateException invalid(String problem) {
    return invalid(problem, null);
  }

  private IllegalStateException invalid(String problem, Throwable cause) {
    return new IllegalStateException("@WardenLocked on " + description + ": " + problem, cause);
  }

  /**
   * Returns the lock's name for one call.
   *
   * @throws IllegalArgumentException naming the method and the expression if the key does not
   *     evaluate, or gives null or an empty string
   */
  String lockName(Object[] arguments) {
    if (key == null) {
      return name.isEmpty()
          ? method.getDeclaringClass().getSimpleName() + "." + method.getName()
          : name;
    }
    Object value;
    try {
      MethodBasedEvaluationContext context =
          new MethodBasedEvaluationContext(arguments, method, arguments, PARAMETER_NAMES);
      if (beanFactory != null) {
        context.setBeanResolver(new BeanFactoryResolver(beanFactory));
      }
      value = key.getValue(context);
    } catch (EvaluationException e) {
      throw new IllegalArgumentException(
          "@WardenLocked key \""
              + keySource
              + "\" on "
              + description
              + " cannot be evaluated: "
              + e.getMessage(),
          e);
    }
    if (value == null || value.toString().isEmpty()) {
      throw new IllegalArgumentException(
          "@WardenLocked key \"" + keySource + "\" on " + description + " gave " + value);
    }
    return name.isEmpty() ? value.toString() : name + ":" + value;
  }

  DistributedLock lock(Warden warden, String lockName) {
    switch (type) {
      case FAIR:
        return warden.fairLock(lockName);
      case READ:
        return warden.readWriteLock(lockName).readLock();
      case WRITE:
        return warden.readWriteLock(lockName).writeLock();
      case LOCK:
      default:
        return warden.lock(lockName);
    }
  }

  /** Returns the wait, or null to wait without limit. */
  Duration waitTime() {
    return waitTime;
  }

  /** Returns the lease, or null for the watchdog. */
  Duration leaseTime() {
    return leaseTime;
  }

  boolean skips() {
    return onNotAcquired == WardenLocked.NotAcquired.SKIP;
  }

  /** How the method's work ends. */
  Kind kind() {
    return kind;
  }

  /** What a skipped call returns. */
  Object skipped() {
    return method.getReturnType() == Optional.class ? Optional.empty() : null;
  }

  String description() {
    return description;
  }
}
