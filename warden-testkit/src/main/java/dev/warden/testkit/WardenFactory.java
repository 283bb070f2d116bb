package dev.warden.testkit;

import dev.warden.WakeUps;
import dev.warden.Warden;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;

/**
 * Creates {@link Warden} instances connected to the test's deployment ({@link WardenDeployment}),
 * for tests that need several owners or per-instance options; {@link WardenExtension} injects it
 * and closes every instance it created after the test.
 *
 * <pre>{@code
 * @Test
 * void secondOwnerWaits(WardenFactory wardens) {
 *   Warden first = wardens.create();
 *   Warden second = wardens.create(builder -> builder.commandTimeout(Duration.ofMillis(200)));
 *   ...
 * }
 * }</pre>
 *
 * <p>Thread-safe: test threads may create instances concurrently. Lives for one test (or, when
 * injected into a {@code @BeforeAll} method, for the test class); creating after that throws.
 *
 * @since 0.2
 */
public final class WardenFactory {
  /** How long closing a test's instances may take before the test fails instead of hanging. */
  static final Duration CLOSE_BOUND = Duration.ofSeconds(60);

  private final RedisDeployment target;
  private final WardenOptions options;
  private final WakeUps wakeUps;
  private final List<Warden> created = new ArrayList<>(); // guarded by this
  private boolean closed; // guarded by this

  WardenFactory(RedisDeployment target, WardenOptions options, WakeUps wakeUps) {
    this.target = target;
    this.options = options;
    this.wakeUps = wakeUps;
  }

  /**
   * Creates a {@link Warden} connected to the test's deployment, with the options of the test's
   * {@link WardenOptions}, if any, and its {@link WardenDeployment#wakeUps()}; it is closed after
   * the test.
   *
   * @throws IllegalStateException if the test this factory belongs to has ended
   * @throws dev.warden.WardenException if Redis cannot be reached
   */
  public Warden create() {
    return create(builder -> {});
  }

  /**
   * Creates a {@link Warden} like {@link #create()}, after {@code customizer} has adjusted the
   * builder; the customizer's settings win over {@link WardenOptions}. It is closed after the test.
   *
   * @throws NullPointerException if {@code customizer} is null
   * @throws IllegalStateException if the test this factory belongs to has ended
   * @throws dev.warden.WardenException if Redis cannot be reached
   */
  public Warden create(Consumer<Warden.Builder> customizer) {
    Objects.requireNonNull(customizer, "customizer must not be null");
    requireOpen();
    Warden.Builder builder = Warden.builder();
    target.configure(builder);
    builder.wakeUps(wakeUps);
    if (options != null) {
      apply(options, builder);
    }
    customizer.accept(builder);
    Warden warden = builder.build();
    synchronized (this) {
      if (!closed) {
        created.add(warden);
        return warden;
      }
    }
    warden.close();
    throw new IllegalStateException("the test this WardenFactory belongs to has ended");
  }

  /**
   * Deletes every key of the deployment the instances connect to (on a cluster, on every master):
   * the same as a failover to a replica that had none of them, seen from a holder.
   */
  public void flushAll() {
    target.flushAll();
  }

  /**
   * Returns the calls per command that reached the deployment's masters since the test began,
   * summed over the masters, as {@link RedisServer#commandCalls()} counts them on one server:
   * lower-case command name to calls, absent if never run. A test compares it before and after a
   * step to show what the step cost Redis (say, that a zero wait subscribed to nothing), on any
   * deployment.
   *
   * @throws IllegalStateException if a master is closed
   */
  public Map<String, Long> commandCalls() {
    Map<String, Long> calls = new TreeMap<>();
    for (RedisServer master : target.masters()) {
      master.commandCalls().forEach((command, count) -> calls.merge(command, count, Long::sum));
    }
    return Collections.unmodifiableMap(calls);
  }

  /**
   * Closes every instance created, newest first, and refuses to create more; the first failure is
   * rethrown with the others suppressed. Idempotent. A close that has not returned after {@link
   * #CLOSE_BOUND} fails the test with every thread's stack, instead of hanging the test run (the
   * instances are closed on a daemon thread, left behind then).
   */
  void closeAll() {
    List<Warden> toClose;
    synchronized (this) {
      closed = true;
      toClose = new ArrayList<>(created);
      created.clear();
    }
    if (toClose.isEmpty()) {
      return;
    }
    FutureTask<RuntimeException> closing = new FutureTask<>(() -> closeEach(toClose));
    Thread closer = new Thread(closing, "warden-testkit-close");
    closer.setDaemon(true);
    closer.start();
    RuntimeException failure;
    try {
      failure = closing.get(CLOSE_BOUND.toMillis(), TimeUnit.MILLISECONDS);
    } catch (TimeoutException e) {
      throw new AssertionError(
          "closing this test's Warden instances did not end within "
              + CLOSE_BOUND.toSeconds()
              + " s; every thread's stack:\n"
              + threadDump(),
          e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while closing this test's Warden instances", e);
    } catch (ExecutionException e) {
      throw new IllegalStateException("closing this test's Warden instances failed", e.getCause());
    }
    if (failure != null) {
      throw failure;
    }
  }

  /** Closes each, newest first; returns the first failure with the others suppressed, or null. */
  private static RuntimeException closeEach(List<Warden> toClose) {
    RuntimeException failure = null;
    for (int i = toClose.size() - 1; i >= 0; i--) {
      try {
        toClose.get(i).close();
      } catch (RuntimeException e) {
        if (failure == null) {
          failure = e;
        } else {
          failure.addSuppressed(e);
        }
      }
    }
    return failure;
  }

  /** Every live thread's name, state and stack. */
  private static String threadDump() {
    StringBuilder dump = new StringBuilder();
    Thread.getAllStackTraces()
        .forEach(
            (thread, stack) -> {
              dump.append('"')
                  .append(thread.getName())
                  .append("\" ")
                  .append(thread.getState())
                  .append('\n');
              for (StackTraceElement frame : stack) {
                dump.append("\tat ").append(frame).append('\n');
              }
              dump.append('\n');
            });
    return dump.toString();
  }

  private synchronized void requireOpen() {
    if (closed) {
      throw new IllegalStateException("the test this WardenFactory belongs to has ended");
    }
  }

  private static void apply(WardenOptions options, Warden.Builder builder) {
    if (options.watchdogTimeoutMillis() != -1) {
      builder.watchdogTimeout(Duration.ofMillis(options.watchdogTimeoutMillis()));
    }
    if (options.commandTimeoutMillis() != -1) {
      builder.commandTimeout(Duration.ofMillis(options.commandTimeoutMillis()));
    }
    if (options.recheckIntervalMillis() != -1) {
      builder.recheckInterval(Duration.ofMillis(options.recheckIntervalMillis()));
    }
  }
}
