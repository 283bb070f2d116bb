package dev.warden.bench;

import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Lock;

/**
 * W5: N locks (1,000 and 10,000) are taken without a lease, so the library's watchdog (3 s here)
 * renews them, and held through the window while nothing else happens: what keeping leases alive
 * costs Redis and the client. Each count is measured again after every lock went through some short
 * lock/unlock cycles first ("churned"): a keeper that does not forget released locks shows up as
 * more work there.
 *
 * <p>{@value #HOLDERS} threads take the locks (lock {@code i} by thread {@code i % 16}), wait for
 * the end of the trial and release them; the setup and the release are outside the window.
 *
 * <p><b>A compiled keeper.</b> A renewal round runs once a second here, far too rarely for the JIT
 * to compile it within a window: before taking its locks, each trial first has another client of
 * the same library hold {@value #PRIMER_LOCKS} locks with a watchdog of {@link #PRIMER_WATCHDOG} (a
 * round every 100 ms) until this JVM's JIT has gone quiet (at least 3 s, at most {@link
 * #PRIMER_LIMIT}; 3 s in a quick run), then closes it. The window then sees the steady state.
 *
 * <p><b>A round's cost.</b> Besides the client's CPU, the window counts the CPU time of the
 * keepers' timer threads ({@code warden-timer-*}, {@code redisson-timer-*}: {@link ThreadCpu}),
 * where a round is put together, and divides both by the rounds (a third of the watchdog each) and
 * the locks: what a round costs per held lock in Java, which a keeper whose round costs O(batches)
 * rather than O(locks) would bring near zero.
 */
final class W5LeaseKeeper implements Workload {
  static final Metric COMMANDS_PER_LOCK =
      Metric.lower("cmds_per_lock_per_s", "cmds/lock/s", Metric.Unit.NUMBER);
  static final Metric COMMANDS_PER_RENEWAL =
      Metric.lower("cmds_per_renewal", "cmds/renewal", Metric.Unit.NUMBER);
  static final Metric RENEWALS_PER_THIRD =
      Metric.lower(
          "renewals_per_lock_per_third", "renewals/lock/third of lease", Metric.Unit.NUMBER);
  static final Metric CLIENT_CPU =
      Metric.lower("client_cpu_pct", "client CPU", Metric.Unit.PERCENT).inChart();
  static final List<Integer> LOCKS = List.of(1_000, 10_000);
  static final int HOLDERS = 16;
  static final Duration WATCHDOG = Duration.ofSeconds(3);
  static final int CHURN_CYCLES = 20;
  static final int QUICK_CHURN_CYCLES = 2;
  private static final Duration SETUP_LIMIT = Duration.ofMinutes(5);

  /** The primer's locks and watchdog: a renewal round of 1,000 locks every 100 ms. */
  static final int PRIMER_LOCKS = 1_000;

  static final Duration PRIMER_WATCHDOG = Duration.ofMillis(300);
  static final Duration PRIMER_LIMIT = Duration.ofSeconds(20);
  private static final Duration PRIMER_MIN = Duration.ofSeconds(3);

  /** W5's "no growth after churn": work after churn within this factor of the fresh run. */
  static final double CHURN_TOLERANCE = 1.10;

  @Override
  public String id() {
    return "W5";
  }

  @Override
  public String title() {
    return "lease keeper: N locks held without a lease (watchdog 3 s), fresh and after churn";
  }

  @Override
  public List<Point> points(Settings settings) {
    // One round: the renewal passes counted in a window move in steps of one pass, so one long
    // window (at least a watchdog timeout, so that every lock is renewed in it) beats two short.
    Duration total = Duration.ofSeconds(settings.seconds());
    Duration window = total.compareTo(WATCHDOG) < 0 ? WATCHDOG : total;
    Duration warmUp = settings.quick() ? Duration.ofSeconds(1) : WATCHDOG;
    int churnCycles = settings.quick() ? QUICK_CHURN_CYCLES : CHURN_CYCLES;
    List<Point> points = new ArrayList<>();
    for (int cycles : List.of(0, churnCycles)) {
      for (int locks : LOCKS) {
        points.add(
            new Point(
                "N=" + Format.number(locks) + (cycles == 0 ? "" : " churned"),
                Map.of("locks", locks, "churn_cycles", cycles, "watchdog_ms", WATCHDOG.toMillis()),
                Optional.of(WATCHDOG),
                warmUp,
                window,
                1,
                (contender, prefix) ->
                    start(
                        contender,
                        prefix,
                        locks,
                        cycles,
                        settings.quick() ? PRIMER_MIN : PRIMER_LIMIT)));
      }
    }
    return points;
  }

  private static Trial start(
      Contender contender, String prefix, int count, int churnCycles, Duration primerLimit)
      throws InterruptedException {
    prime(contender, prefix + ":primer", primerLimit);
    List<List<Lock>> shares = new ArrayList<>();
    for (int holder = 0; holder < HOLDERS; holder++) {
      shares.add(new ArrayList<>());
    }
    for (int i = 0; i < count; i++) {
      shares.get(i % HOLDERS).add(contender.lock(prefix + ":" + i));
    }
    CountDownLatch held = new CountDownLatch(HOLDERS);
    Workers workers =
        Workers.start(
            "w5",
            HOLDERS,
            index ->
                worker -> {
                  List<Lock> mine = shares.get(index);
                  List<Lock> taken = new ArrayList<>();
                  Tally tally = worker.tally();
                  try {
                    for (int cycle = 0; cycle < churnCycles; cycle++) {
                      for (Lock lock : mine) {
                        lock.lock();
                        unlockCountingLoss(lock, tally);
                      }
                    }
                    for (Lock lock : mine) {
                      lock.lock();
                      taken.add(lock);
                    }
                  } finally {
                    held.countDown();
                  }
                  worker.awaitStop();
                  for (Lock lock : taken) {
                    unlockCountingLoss(lock, tally);
                  }
                });
    if (!held.await(SETUP_LIMIT.toMillis(), TimeUnit.MILLISECONDS) || workers.failure() != null) {
      workers.finish(Duration.ofSeconds(30)); // throws the failure
      throw new BenchException("taking " + count + " locks took longer than " + SETUP_LIMIT);
    }
    return new Timed(workers);
  }

  /**
   * Has another client of the library renew {@value #PRIMER_LOCKS} locks every 100 ms until the JIT
   * is quiet, so that the renewal path is compiled before the window; then releases them.
   */
  // LockNotBeforeTry: the locks are held across the wait and released in the finally below
  @SuppressWarnings("LockNotBeforeTry")
  private static void prime(Contender contender, String prefix, Duration limit)
      throws InterruptedException {
    CompilationMXBean jit = ManagementFactory.getCompilationMXBean();
    try (Contender fast = contender.another(Optional.of(PRIMER_WATCHDOG))) {
      List<Lock> held = new ArrayList<>();
      try {
        for (int i = 0; i < PRIMER_LOCKS; i++) {
          Lock lock = fast.lock(prefix + ":" + i);
          lock.lock();
          held.add(lock);
        }
        long started = System.nanoTime();
        long compiled = jit == null ? 0 : jit.getTotalCompilationTime();
        while (System.nanoTime() - started < limit.toNanos()) {
          // The primer's pace: one look at the JIT per second, not a wait for an event.
          TimeUnit.SECONDS.sleep(1);
          long now = jit == null ? 0 : jit.getTotalCompilationTime();
          boolean quiet = now - compiled < CrossProcess.QUIET_MILLIS;
          compiled = now;
          if (quiet && System.nanoTime() - started >= PRIMER_MIN.toNanos()) {
            break;
          }
        }
      } finally {
        for (Lock lock : held) {
          try {
            lock.unlock();
          } catch (IllegalMonitorStateException lost) {
            // a primer lock that ran out does not matter: it only warmed the JIT
          }
        }
      }
    }
  }

  /** W5's trial: the holders, and the keepers' timer threads' CPU time in the window. */
  private static final class Timed implements Trial {
    private final Workers workers;
    private Map<Long, Long> atOpen = Map.of();
    private long timerNanos = -1;

    Timed(Workers workers) {
      this.workers = workers;
    }

    @Override
    public void await(Duration duration) throws InterruptedException {
      workers.await(duration);
    }

    @Override
    public void openWindow() {
      atOpen = ThreadCpu.timers();
      workers.openWindow();
    }

    @Override
    public void closeWindow() {
      workers.closeWindow();
      if (timerNanos < 0 && !atOpen.isEmpty()) {
        timerNanos = ThreadCpu.since(atOpen, ThreadCpu.timers());
      }
    }

    @Override
    public Tally finish(Duration grace) throws InterruptedException {
      closeWindow();
      Tally tally = workers.finish(grace);
      if (timerNanos >= 0) {
        tally.set("timer_cpu_ns", timerNanos);
      }
      return tally;
    }
  }

  /**
   * Releases a lock; a lock whose lease ran out meanwhile (the watchdog did not renew it in time)
   * is counted, not thrown: it is what this workload looks for, and the window's numbers stand.
   */
  private static void unlockCountingLoss(Lock lock, Tally tally) {
    try {
      lock.unlock();
    } catch (IllegalMonitorStateException leaseLost) { // Warden's LeaseExpiredException is one too
      tally.count("leases_lost");
    }
  }

  @Override
  public Map<String, Double> metrics(Measurement measurement, List<String> problems) {
    RedisStats.Delta redis = measurement.redis();
    double locks = ((Number) measurement.point().parameters().get("locks")).doubleValue();
    double seconds = measurement.seconds();
    Map<String, Double> metrics = new LinkedHashMap<>();
    metrics.put("cmds_per_s", redis.commands() / seconds);
    metrics.put("scripts_per_s", redis.scripts() / seconds);
    metrics.put("round_trips_per_s", redis.roundTrips() / seconds);
    metrics.put("cmds_per_lock_per_s", redis.commands() / seconds / locks);
    // Both libraries renew a lock with one PEXPIRE (in a script); a third of the 3 s watchdog is 1
    // s
    double renewals = redis.byCommand().getOrDefault("pexpire", 0L);
    double third = WATCHDOG.toMillis() / 3000.0;
    metrics.put("renewals_per_lock_per_third", renewals / locks / seconds * third);
    metrics.put("cmds_per_renewal", renewals == 0 ? Double.NaN : redis.commands() / renewals);
    metrics.put("redis_cpu_pct", redis.cpuSeconds() / seconds * 100);
    metrics.put("redis_cpu_us_per_lock_per_s", redis.cpuSeconds() * 1e6 / seconds / locks);
    metrics.put("client_cpu_pct", measurement.clientCpuNanos() / 1e9 / seconds * 100);
    metrics.put(
        "client_cpu_us_per_lock_per_s", measurement.clientCpuNanos() / 1e3 / seconds / locks);
    // A round every third of the watchdog: what one costs the client, and its timer thread.
    double rounds = seconds / (WATCHDOG.toNanos() / 3e9);
    metrics.put("client_cpu_us_per_round", measurement.clientCpuNanos() / 1e3 / rounds);
    metrics.put("client_cpu_ns_per_lock_per_round", measurement.clientCpuNanos() / rounds / locks);
    double timer =
        measurement.tally().inRun("timer_cpu_ns") > 0
            ? measurement.tally().inRun("timer_cpu_ns")
            : Double.NaN;
    metrics.put("timer_cpu_us_per_round", timer / 1e3 / rounds);
    metrics.put("timer_cpu_ns_per_lock_per_round", timer / rounds / locks);
    long lost = measurement.tally().inRun("leases_lost");
    metrics.put("leases_lost", (double) lost);
    if (lost > 0) {
      problems.add(
          lost
              + " locks held under the watchdog had lost their lease by the time they were released");
    }
    return metrics;
  }

  @Override
  public void judge(Targets.Of targets) {
    for (String locks : List.of("N=1,000", "N=10,000")) {
      targets.limit(locks, COMMANDS_PER_RENEWAL, "<= 2", v -> v <= 2.0);
      targets.limit(locks, RENEWALS_PER_THIRD, "exactly 1", v -> v == 1.0);
    }
    Map<String, Double> growths = new LinkedHashMap<>();
    for (String locks : List.of("N=1,000", "N=10,000")) {
      Optional<Results.PointResult> fresh = targets.point(locks);
      Optional<Results.PointResult> churned = targets.point(locks + " churned");
      if (fresh.isPresent() && churned.isPresent()) {
        growths.put(locks, churned.get().warden("cmds_per_s") / fresh.get().warden("cmds_per_s"));
      }
    }
    String at = Targets.worstKey(growths, true);
    double growth = at == null ? Double.NaN : growths.get(at);
    String detail =
        at == null
            ? "n/a"
            : Format.compact(targets.point(at + " churned").get().warden("cmds_per_s"))
                + "/s vs "
                + Format.compact(targets.point(at).get().warden("cmds_per_s"))
                + "/s at "
                + at;
    targets.addRatio(
        "no growth after churn: cmds/s churned vs fresh (worst N)",
        "<= " + Format.ratio(CHURN_TOLERANCE),
        detail,
        "",
        growth,
        CHURN_TOLERANCE,
        false);
    targets.ratio("N=10,000", CLIENT_CPU, 0.5);
  }

  @Override
  public List<Metric> headline() {
    return List.of(
        Metric.lower("cmds_per_s", "Redis cmds/s", Metric.Unit.RATE).inChart(),
        Metric.lower("scripts_per_s", "scripts/s", Metric.Unit.RATE),
        Metric.lower("round_trips_per_s", "round trips/s", Metric.Unit.RATE),
        COMMANDS_PER_LOCK,
        RENEWALS_PER_THIRD,
        COMMANDS_PER_RENEWAL,
        Metric.lower("redis_cpu_pct", "Redis CPU", Metric.Unit.PERCENT).inChart(),
        CLIENT_CPU,
        Metric.lower("client_cpu_us_per_round", "client CPU per round", Metric.Unit.MICROS),
        Metric.lower(
            "client_cpu_ns_per_lock_per_round",
            "client CPU per lock per round, ns",
            Metric.Unit.NUMBER),
        Metric.lower("timer_cpu_us_per_round", "timer thread CPU per round", Metric.Unit.MICROS),
        Metric.lower(
            "timer_cpu_ns_per_lock_per_round",
            "timer thread CPU per lock per round, ns",
            Metric.Unit.NUMBER),
        Metric.lower("leases_lost", "leases lost", Metric.Unit.NUMBER));
  }
}
