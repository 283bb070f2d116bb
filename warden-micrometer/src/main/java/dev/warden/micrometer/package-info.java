/**
 * Micrometer metrics for Warden: {@link dev.warden.micrometer.WardenMetrics}, a {@code MeterBinder}
 * for one {@link dev.warden.Warden}.
 */
package dev.warden.micrometer;
