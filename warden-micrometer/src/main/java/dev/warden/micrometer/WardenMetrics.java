package dev.warden.micrometer;

import dev.warden.ObjectType;
import dev.warden.Warden;
import dev.warden.WardenListener;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.LongTaskTimer;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.util.ArrayList;
import java.util.Collection;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Binds the meters of one {@link Warden} to a Micrometer registry: how long acquisitions take and
 * how they end, how long locks are held, who waits now, lease renewals and lost leases, each tagged
 * with the object's {@code type} ({@link ObjectType#tag()}: {@code lock}, {@code fair_lock}, {@code
 * read_lock}, {@code write_lock}, {@code multi_lock}, {@code semaphore}, {@code leased_semaphore},
 * {@code count_down_latch}).
 *
 * <pre>{@code
 * Warden warden = Warden.connect("redis://localhost:6379");
 * WardenMetrics.of(warden).bindTo(registry);   // Spring Boot binds a MeterBinder bean itself
 * }</pre>
 *
 * <table>
 *   <caption>Meters</caption>
 *   <tr><th>Name</th><th>Kind</th><th>Tags</th><th>What</th></tr>
 *   <tr><td>{@code warden.acquire}</td><td>timer</td><td>type, outcome</td>
 *       <td>time from the call to its outcome: {@code acquired}, {@code timed_out}, {@code failed}
 *       (Redis unreachable or failing, the Warden closed), {@code cancelled} (interrupted, or
 *       the future cancelled); re-entries and calls that do not wait count too</td></tr>
 *   <tr><td>{@code warden.held}</td><td>timer</td><td>type</td>
 *       <td>time a lock was held, recorded when the hold ends (released, or lost and reported
 *       to its owner); re-entries are part of their outer hold</td></tr>
 *   <tr><td>{@code warden.held.active}</td><td>long-task timer</td><td>type</td>
 *       <td>holds in progress and how long they have lasted (its max shows a stuck holder)</td></tr>
 *   <tr><td>{@code warden.waiting}</td><td>gauge</td><td>type</td>
 *       <td>acquisitions in progress now</td></tr>
 *   <tr><td>{@code warden.lease.renewals}</td><td>counter</td><td>type</td>
 *       <td>leases renewed by the lease keeper (holds taken without an explicit lease)</td></tr>
 *   <tr><td>{@code warden.lease.lost}</td><td>counter</td><td>type, reason</td>
 *       <td>holds found lost; reason {@code expired} (expired, force-unlocked, or lost with Redis
 *       data), {@code max_hold_time} (held for the maximum hold time) or {@code shutdown}
 *       (released by a graceful close)</td></tr>
 * </table>
 *
 * <p><b>Names.</b> By default no meter carries the object's name: names such as {@code invoice-42}
 * are unbounded, and each would be a new time series. {@link Builder#lockNames(Collection)} opts in
 * for a known, bounded set: every meter then has a {@code name} tag, the object's name for those
 * names and {@code other} for all the rest. The gauge and the long-task timer count all names.
 *
 * <p><b>Lifecycle and cost.</b> Binding registers a {@link dev.warden.WardenListener} on the
 * Warden; events arrive on Warden's threads and update meters without blocking (a map lookup and an
 * atomic update each). {@link #close()} unregisters it from the Warden and ends the long-task
 * timings in progress; the meters stay in the registry. Bind before taking locks: holds taken
 * before are not timed. Thread-safe; one instance may be bound to several registries.
 *
 * @since 0.2
 */
public final class WardenMetrics implements MeterBinder, AutoCloseable {
  /** The {@code name} tag of every name outside the opted-in set. */
  public static final String OTHER_NAMES = "other";

  private final Warden warden;
  private final Set<String> names; // null: no name tag
  private final List<Recorder> recorders = new ArrayList<>();
  private boolean closed; // guarded by this

  private WardenMetrics(Warden warden, Set<String> names) {
    this.warden = warden;
    this.names = names;
  }

  /**
   * Returns metrics for the Warden, without a name tag.
   *
   * @param warden the Warden to measure
   * @return an unbound binder
   * @throws IllegalArgumentException if {@code warden} is null
   */
  public static WardenMetrics of(Warden warden) {
    return builder(warden).build();
  }

  /**
   * Returns a builder of metrics for the Warden.
   *
   * @param warden the Warden to measure
   * @return a builder
   * @throws IllegalArgumentException if {@code warden} is null
   */
  public static Builder builder(Warden warden) {
    if (warden == null) {
      throw new IllegalArgumentException("warden must not be null");
    }
    return new Builder(warden);
  }

  /**
   * Registers the meters in {@code registry} and starts measuring.
   *
   * @param registry the registry
   * @throws IllegalArgumentException if {@code registry} is null
   * @throws IllegalStateException if this binder was closed
   */
  @Override
  public void bindTo(MeterRegistry registry) {
    if (registry == null) {
      throw new IllegalArgumentException("registry must not be null");
    }
    Recorder recorder = new Recorder(registry);
    synchronized (this) {
      if (closed) {
        throw new IllegalStateException("these Warden metrics were closed");
      }
      recorders.add(recorder);
    }
    warden.addListener(recorder);
  }

  /** Stops measuring: unregisters from the Warden and ends the timings of holds in progress. */
  @Override
  public void close() {
    List<Recorder> bound;
    synchronized (this) {
      closed = true;
      bound = new ArrayList<>(recorders);
      recorders.clear();
    }
    for (Recorder recorder : bound) {
      warden.removeListener(recorder);
      recorder.endActive();
    }
  }

  private String nameTag(String name) {
    return names.contains(name) ? name : OTHER_NAMES;
  }

  /** A key for meters that differ by type, name tag and (for the acquire timer) outcome. */
  private record Key(ObjectType type, String name, WardenListener.Outcome outcome) {}

  /** The key of a lost-lease counter: type and name tag, and the reason. */
  private record LostKey(Key key, WardenListener.LossReason reason) {}

  /** The meters of one registry, and the listener that feeds them. */
  private final class Recorder implements WardenListener {
    private final MeterRegistry registry;
    private final Map<Key, Timer> acquire = new ConcurrentHashMap<>();
    private final Map<Key, Timer> held = new ConcurrentHashMap<>();
    private final Map<Key, LongTaskTimer> active = new ConcurrentHashMap<>();
    private final Map<Key, Counter> renewals = new ConcurrentHashMap<>();
    private final Map<LostKey, Counter> lost = new ConcurrentHashMap<>();
    private final Map<Long, LongTaskTimer.Sample> holds = new ConcurrentHashMap<>();
    private final Map<ObjectType, AtomicInteger> waiting = new EnumMap<>(ObjectType.class);

    Recorder(MeterRegistry registry) {
      this.registry = registry;
      for (ObjectType type : ObjectType.values()) {
        AtomicInteger count = new AtomicInteger();
        waiting.put(type, count);
        Gauge.builder("warden.waiting", count, AtomicInteger::get)
            .description("Acquisitions in progress")
            .tags(tags(type, null))
            .register(registry);
      }
    }

    private Tags tags(ObjectType type, String name) {
      Tags tags = Tags.of("type", type.tag());
      return names == null ? tags : tags.and("name", name == null ? OTHER_NAMES : name);
    }

    private Key key(ObjectType type, String name, Outcome outcome) {
      return new Key(type, names == null ? null : nameTag(name), outcome);
    }

    @Override
    public void acquisitionStarted(ObjectType type, String name) {
      waiting.get(type).incrementAndGet();
    }

    @Override
    public void acquisitionEnded(ObjectType type, String name, Outcome outcome, long nanos) {
      waiting.get(type).decrementAndGet();
      acquire
          .computeIfAbsent(
              key(type, name, outcome),
              k ->
                  Timer.builder("warden.acquire")
                      .description("Time from an acquisition's call to its outcome")
                      .tags(tags(k.type(), k.name()))
                      .tag("outcome", k.outcome().tag())
                      .register(registry))
          .record(nanos, TimeUnit.NANOSECONDS);
    }

    @Override
    public void holdStarted(ObjectType type, String name, long holdId) {
      LongTaskTimer timer =
          active.computeIfAbsent(
              key(type, name, null),
              k ->
                  LongTaskTimer.builder("warden.held.active")
                      .description("Holds in progress")
                      .tags(tags(k.type(), k.name()))
                      .register(registry));
      holds.put(holdId, timer.start());
    }

    @Override
    public void holdEnded(ObjectType type, String name, long holdId, long nanos) {
      LongTaskTimer.Sample sample = holds.remove(holdId);
      if (sample != null) {
        sample.stop();
      }
      held.computeIfAbsent(
              key(type, name, null),
              k ->
                  Timer.builder("warden.held")
                      .description("Time a lock was held")
                      .tags(tags(k.type(), k.name()))
                      .register(registry))
          .record(nanos, TimeUnit.NANOSECONDS);
    }

    @Override
    public void leaseRenewed(ObjectType type, String name) {
      counter(renewals, "warden.lease.renewals", "Leases renewed by the lease keeper", type, name)
          .increment();
    }

    @Override
    public void leaseLost(ObjectType type, String name, long holdId, LossReason reason) {
      lost.computeIfAbsent(
              new LostKey(key(type, name, null), reason),
              k ->
                  Counter.builder("warden.lease.lost")
                      .description("Holds found lost")
                      .tags(tags(k.key().type(), k.key().name()))
                      .tag("reason", k.reason().tag())
                      .register(registry))
          .increment();
    }

    private Counter counter(
        Map<Key, Counter> counters,
        String meter,
        String description,
        ObjectType type,
        String name) {
      return counters.computeIfAbsent(
          key(type, name, null),
          k ->
              Counter.builder(meter)
                  .description(description)
                  .tags(tags(k.type(), k.name()))
                  .register(registry));
    }

    void endActive() {
      holds.values().forEach(LongTaskTimer.Sample::stop);
      holds.clear();
    }
  }

  /**
   * Options of {@link WardenMetrics}.
   *
   * @since 0.2
   */
  public static final class Builder {
    private final Warden warden;
    private Set<String> names;

    private Builder(Warden warden) {
      this.warden = warden;
    }

    /**
     * Tags every meter with a {@code name}: the object's name for these names, {@link #OTHER_NAMES}
     * for every other. Give a bounded set (a handful of job or resource names), never names made
     * from data.
     *
     * @param lockNames the names to tag by
     * @return this builder
     * @throws IllegalArgumentException if the collection or a name in it is null or blank, or a
     *     name is {@value #OTHER_NAMES}
     */
    public Builder lockNames(Collection<String> lockNames) {
      if (lockNames == null) {
        throw new IllegalArgumentException("lockNames must not be null");
      }
      for (String name : lockNames) {
        if (name == null || name.isBlank() || name.equals(OTHER_NAMES)) {
          throw new IllegalArgumentException(
              "lockNames must hold names, not null, blank or '" + OTHER_NAMES + "': " + name);
        }
      }
      this.names = Set.copyOf(lockNames);
      return this;
    }

    /**
     * Returns the binder; bind it to a registry to start measuring.
     *
     * @return an unbound binder
     */
    public WardenMetrics build() {
      return new WardenMetrics(warden, names);
    }
  }
}
