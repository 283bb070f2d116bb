package dev.warden.testkit;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Sets the options of the {@link dev.warden.Warden} instances that {@link WardenExtension} injects
 * or that its {@link WardenFactory} creates. On a test method it replaces the one on the class (the
 * two are not merged); on a class it also applies to its {@code @Nested} classes and subclasses
 * unless they carry their own.
 *
 * <pre>{@code
 * @ExtendWith(WardenExtension.class)
 * @WardenOptions(watchdogTimeoutMillis = 300)
 * class LeaseIT {
 *   @Test
 *   @WardenOptions(watchdogTimeoutMillis = 300, commandTimeoutMillis = 200)
 *   void renewsTheLease(Warden warden) { ... }
 * }
 * }</pre>
 *
 * <p>Each value is in milliseconds; {@code -1} leaves the builder's default. Other values are
 * checked by {@link dev.warden.Warden.Builder}, which rejects those out of range.
 *
 * @since 0.2
 */
@Documented
@Inherited
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.TYPE, ElementType.METHOD})
public @interface WardenOptions {
  /**
   * Returns the watchdog timeout in milliseconds, or -1 for the default.
   *
   * @see dev.warden.Warden.Builder#watchdogTimeout(java.time.Duration)
   */
  long watchdogTimeoutMillis() default -1;

  /**
   * Returns the command timeout in milliseconds, or -1 for the default.
   *
   * @see dev.warden.Warden.Builder#commandTimeout(java.time.Duration)
   */
  long commandTimeoutMillis() default -1;

  /**
   * Returns the recheck interval in milliseconds, or -1 for the default.
   *
   * @see dev.warden.Warden.Builder#recheckInterval(java.time.Duration)
   */
  long recheckIntervalMillis() default -1;
}
