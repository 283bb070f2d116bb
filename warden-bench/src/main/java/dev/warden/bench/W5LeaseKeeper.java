package dev.warden.bench;

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
                (contender, prefix) -> start(contender, prefix, locks, cycles)));
      }
    }
    return points;
  }

  private static Trial start(Contender contender, String prefix, int count, int churnCycles)
      throws InterruptedException {
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
    return workers;
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
        Metric.lower("leases_lost", "leases lost", Metric.Unit.NUMBER));
  }
}
