package dev.warden.internal.base;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Argument checks whose messages name the argument and its value. */
public final class Args {
  /** How much of a long value a message quotes. */
  private static final int SHOWN_CHARACTERS = 100;

  /**
   * The longest lease: ten thousand years. Longer ones overflow Redis's expiry arithmetic (server
   * time plus lease, in ms) or the precision of Lua's numbers, so they are refused by name.
   */
  public static final long MAX_LEASE_MILLIS = TimeUnit.DAYS.toMillis(365L * 10_000);

  private Args() {}

  /** Checks an object name: not null, not blank, and free of hash-tag braces. */
  public static String name(String name) {
    return named("name", name);
  }

  /** Checks a name given as {@code argument}: not null, not blank, and free of braces. */
  public static String named(String argument, String name) {
    if (name == null || name.isBlank()) {
      throw new IllegalArgumentException(argument + " must not be null or blank: " + shown(name));
    }
    if (name.indexOf('{') >= 0 || name.indexOf('}') >= 0) {
      throw new IllegalArgumentException(
          argument
              + " must not contain '{' or '}' (Warden wraps names in a Redis hash tag): "
              + shown(name));
    }
    return name;
  }

  /** Checks an argument that must not be null. */
  public static <T> T required(String argument, T value) {
    if (value == null) {
      throw new IllegalArgumentException(argument + " must not be null");
    }
    return value;
  }

  /** Checks a text argument (a URI): not null, not blank. */
  public static String text(String argument, String value) {
    if (value == null || value.isBlank()) {
      throw new IllegalArgumentException(argument + " must not be null or blank: " + value);
    }
    return value;
  }

  /** Checks a list of texts given as {@code argument}: at least one, none null or blank. */
  public static List<String> texts(String argument, String... values) {
    if (required(argument, values).length == 0) {
      throw new IllegalArgumentException(argument + " must not be empty");
    }
    List<String> checked = new ArrayList<>();
    for (int i = 0; i < values.length; i++) {
      checked.add(text(argument + "[" + i + "]", values[i]));
    }
    return List.copyOf(checked);
  }

  /** Checks a duration that must not be null nor below {@code minimum}. */
  public static Duration atLeast(String argument, Duration value, Duration minimum) {
    if (value == null || value.compareTo(minimum) < 0) {
      throw new IllegalArgumentException(argument + " must be at least " + minimum + ": " + value);
    }
    return value;
  }

  /** Checks a count (permits, a latch count) that must not be negative. */
  public static long notNegative(String argument, long value) {
    if (value < 0) {
      throw new IllegalArgumentException(argument + " must not be negative: " + value);
    }
    return value;
  }

  /** Checks a permit id: not null or blank. */
  public static String permitId(String permitId) {
    if (permitId == null || permitId.isBlank()) {
      throw new IllegalArgumentException("permitId must not be null or blank: " + quoted(permitId));
    }
    return permitId;
  }

  /**
   * Quotes a value for a message, shortened when long: a 1 MB name must not make a 1 MB message.
   */
  private static String shown(String value) {
    if (value == null || value.length() <= SHOWN_CHARACTERS) {
      return "'" + value + "'";
    }
    return "'" + value.substring(0, SHOWN_CHARACTERS) + "...' (" + value.length() + " characters)";
  }

  private static String quoted(String value) {
    return value == null ? "null" : "'" + value + "'";
  }

  public static TimeUnit unit(TimeUnit unit) {
    if (unit == null) {
      throw new IllegalArgumentException("unit must not be null");
    }
    return unit;
  }

  /** Returns a wait in nanoseconds; zero means do not wait. */
  public static long waitNanos(String argument, long time, TimeUnit unit) {
    unit(unit);
    if (time < 0) {
      throw new IllegalArgumentException(argument + " must not be negative: " + time + " " + unit);
    }
    return unit.toNanos(time);
  }

  public static long waitNanos(String argument, Duration time) {
    if (time == null) {
      throw new IllegalArgumentException(argument + " must not be null");
    }
    if (time.isNegative()) {
      throw new IllegalArgumentException(argument + " must not be negative: " + time);
    }
    return saturatedNanos(time);
  }

  /** Returns a lease in whole milliseconds; it must be at least one millisecond. */
  public static long leaseMillis(String argument, long time, TimeUnit unit) {
    unit(unit);
    if (time <= 0) {
      throw new IllegalArgumentException(argument + " must be positive: " + time + " " + unit);
    }
    long millis = unit.toMillis(time);
    if (millis < 1) {
      throw new IllegalArgumentException(
          argument + " must be at least 1 millisecond: " + time + " " + unit);
    }
    return atMostMaxLease(argument, millis, time + " " + unit);
  }

  /** Returns a lease in whole milliseconds, rounded up; it must be positive. */
  public static long leaseMillis(String argument, Duration time) {
    if (time == null) {
      throw new IllegalArgumentException(argument + " must not be null");
    }
    if (time.isNegative() || time.isZero()) {
      throw new IllegalArgumentException(argument + " must be positive: " + time);
    }
    return atMostMaxLease(argument, roundedUpMillis(time), time.toString());
  }

  /** Returns a time in whole milliseconds, rounded up; zero allowed, negative not. */
  public static long notNegativeMillis(String argument, Duration time) {
    if (time == null) {
      throw new IllegalArgumentException(argument + " must not be null");
    }
    if (time.isNegative()) {
      throw new IllegalArgumentException(argument + " must not be negative: " + time);
    }
    return atMostMaxLease(argument, roundedUpMillis(time), time.toString());
  }

  private static long atMostMaxLease(String argument, long millis, String given) {
    if (millis > MAX_LEASE_MILLIS) {
      throw new IllegalArgumentException(
          argument + " must be at most 10000 years (" + MAX_LEASE_MILLIS + " ms): " + given);
    }
    return millis;
  }

  private static long roundedUpMillis(Duration time) {
    try {
      long millis = time.toMillis();
      return time.minusMillis(millis).isZero() ? millis : millis + 1;
    } catch (ArithmeticException tooLong) {
      return Long.MAX_VALUE;
    }
  }

  private static long saturatedNanos(Duration time) {
    try {
      return time.toNanos();
    } catch (ArithmeticException tooLong) {
      return Long.MAX_VALUE;
    }
  }
}
