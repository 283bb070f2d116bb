package dev.warden.micrometer;

import dev.warden.ObjectType;
import dev.warden.Warden;
import dev.warden.WardenListener;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Micrometer {@link Observation}s of one {@link Warden}'s lock waits and holds, which the
 * application's tracing bridge (Micrometer Tracing with OpenTelemetry or Brave) turns into spans:
 * no OpenTelemetry dependency here.
 *
 * <pre>{@code
 * WardenObservations observations = WardenObservations.builder(warden, observationRegistry).build();
 * observations.start();   // Spring Boot does both when an ObservationRegistry bean exists
 * }</pre>
 *
 * <table>
 *   <caption>Observations</caption>
 *   <tr><th>Name</th><th>From, to</th><th>Low-cardinality keys</th></tr>
 *   <tr><td>{@code warden.lock.acquire}</td><td>the call, its outcome (the wait)</td>
 *       <td>{@code warden.type} ({@link ObjectType#tag()}), {@code warden.outcome} ({@code
 *       acquired}, {@code timed_out}, {@code failed}, {@code cancelled})</td></tr>
 *   <tr><td>{@code warden.lock.hold}</td><td>a new hold of a lock, its end</td>
 *       <td>{@code warden.type}, {@code warden.lease} ({@code released}, or {@code lost} with the
 *       event {@code warden.lease.lost} when the lease was found lost)</td></tr>
 * </table>
 *
 * <p><b>High-cardinality values, opted in.</b> By default no observation carries the lock's name or
 * a fencing token: names such as {@code invoice-42} are unbounded. {@link
 * Builder#lockNames(Collection)} adds {@code warden.name} for the names listed (as WardenMetrics'
 * option of the same name); {@link Builder#fencingTokens(boolean)} adds {@code warden.token} to the
 * hold.
 *
 * <p><b>Parents.</b> An observation's parent is the observation current on the thread where it
 * starts: the acquire observation starts on the caller's thread (so under the caller's span); a
 * hold started by a blocking acquisition too, while the hold of an {@code acquireAsync} starts on a
 * Redis I/O thread and so has no parent.
 *
 * <p>Thread-safe. Events arrive on Warden's threads; each updates a concurrent map and starts or
 * stops an observation, without blocking. {@link #close()} stops listening and stops the
 * observations still open.
 *
 * @since 0.2
 */
public final class WardenObservations implements WardenListener, AutoCloseable {
  /** The name of the observation of a wait. */
  public static final String ACQUIRE = "warden.lock.acquire";

  /** The name of the observation of a hold. */
  public static final String HOLD = "warden.lock.hold";

  /** The event on a hold whose lease was found lost. */
  public static final String LEASE_LOST = "warden.lease.lost";

  private final Warden warden;
  private final ObservationRegistry registry;
  private final Set<String> names; // empty: no name
  private final boolean tokens;
  private final Map<Long, Observation> acquisitions = new ConcurrentHashMap<>();
  private final Map<Long, Observation> holds = new ConcurrentHashMap<>();

  private WardenObservations(Builder builder) {
    this.warden = builder.warden;
    this.registry = builder.registry;
    this.names = Set.copyOf(builder.names);
    this.tokens = builder.tokens;
  }

  /**
   * Returns a builder of observations of the Warden into the registry.
   *
   * @param warden the Warden to observe
   * @param registry where observations go
   * @return a builder
   * @throws IllegalArgumentException if an argument is null
   */
  public static Builder builder(Warden warden, ObservationRegistry registry) {
    if (warden == null) {
      throw new IllegalArgumentException("warden must not be null");
    }
    if (registry == null) {
      throw new IllegalArgumentException("registry must not be null");
    }
    return new Builder(warden, registry);
  }

  /** Starts observing: registers this listener on the Warden. */
  public void start() {
    warden.addListener(this);
  }

  /** Stops observing and stops the observations still open. */
  @Override
  public void close() {
    warden.removeListener(this);
    List<Observation> open = new ArrayList<>(acquisitions.values());
    open.addAll(holds.values());
    acquisitions.clear();
    holds.clear();
    open.forEach(Observation::stop);
  }

  @Override
  public void acquisitionStarted(ObjectType type, String name, long acquisitionId) {
    Observation observation =
        Observation.createNotStarted(ACQUIRE, registry)
            .contextualName("warden acquire " + type.tag())
            .lowCardinalityKeyValue("warden.type", type.tag());
    if (names.contains(name)) {
      observation.highCardinalityKeyValue("warden.name", name);
    }
    acquisitions.put(acquisitionId, observation.start());
  }

  @Override
  public void acquisitionEnded(
      ObjectType type, String name, long acquisitionId, Outcome outcome, long nanos) {
    Observation observation = acquisitions.remove(acquisitionId);
    if (observation != null) {
      observation.lowCardinalityKeyValue("warden.outcome", outcome.tag()).stop();
    }
  }

  @Override
  public void holdStarted(ObjectType type, String name, long holdId, long fencingToken) {
    Observation observation =
        Observation.createNotStarted(HOLD, registry)
            .contextualName("warden hold " + type.tag())
            .lowCardinalityKeyValue("warden.type", type.tag());
    if (names.contains(name)) {
      observation.highCardinalityKeyValue("warden.name", name);
    }
    if (tokens) {
      observation.highCardinalityKeyValue("warden.token", Long.toString(fencingToken));
    }
    holds.put(holdId, observation.start());
  }

  @Override
  public void leaseLost(ObjectType type, String name, long holdId) {
    Observation observation = holds.get(holdId);
    if (observation != null) {
      observation.lowCardinalityKeyValue("warden.lease", "lost");
      observation.event(Observation.Event.of(LEASE_LOST));
    }
  }

  @Override
  public void holdEnded(ObjectType type, String name, long holdId, long nanos) {
    Observation observation = holds.remove(holdId);
    if (observation != null) {
      if (observation.getContext().getLowCardinalityKeyValue("warden.lease") == null) {
        observation.lowCardinalityKeyValue("warden.lease", "released");
      }
      observation.stop();
    }
  }

  /** Options of {@link WardenObservations}. */
  public static final class Builder {
    private final Warden warden;
    private final ObservationRegistry registry;
    private Collection<String> names = List.of();
    private boolean tokens;

    private Builder(Warden warden, ObservationRegistry registry) {
      this.warden = warden;
      this.registry = registry;
    }

    /**
     * Adds the lock's name ({@code warden.name}, high-cardinality) to the observations of these
     * names only: a small, known set, never names made from data.
     *
     * @param lockNames the names
     * @return this builder
     * @throws IllegalArgumentException if {@code lockNames} is null or holds null
     */
    public Builder lockNames(Collection<String> lockNames) {
      if (lockNames == null || lockNames.stream().anyMatch(Objects::isNull)) {
        throw new IllegalArgumentException("lockNames must not be null or hold null: " + lockNames);
      }
      this.names = List.copyOf(lockNames);
      return this;
    }

    /**
     * Adds each hold's fencing token ({@code warden.token}, high-cardinality) to its observation.
     *
     * @param fencingTokens whether to
     * @return this builder
     */
    public Builder fencingTokens(boolean fencingTokens) {
      this.tokens = fencingTokens;
      return this;
    }

    /**
     * Returns the observations, not started.
     *
     * @return the observations; {@link WardenObservations#start()} them
     */
    public WardenObservations build() {
      return new WardenObservations(this);
    }
  }
}
