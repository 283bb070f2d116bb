package dev.warden.bench;

/**
 * The per-operation cost metrics every workload but W5 reports (see {@link Measurement#costsPer}).
 */
final class Costs {
  static final Metric COMMANDS = Metric.lower("cmds_per_op", "cmds/op", Metric.Unit.NUMBER);
  static final Metric SCRIPTS = Metric.lower("scripts_per_op", "scripts/op", Metric.Unit.NUMBER);
  static final Metric ROUND_TRIPS =
      Metric.lower("round_trips_per_op", "round trips/op", Metric.Unit.NUMBER);
  static final Metric CLIENT_CPU =
      Metric.lower("client_cpu_us_per_op", "client CPU/op", Metric.Unit.MICROS);
  static final Metric REDIS_CPU =
      Metric.lower("redis_cpu_us_per_op", "Redis CPU/op", Metric.Unit.MICROS);

  private Costs() {}
}
