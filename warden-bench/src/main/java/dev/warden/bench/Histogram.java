package dev.warden.bench;

/**
 * Counts latencies in microseconds with a bounded relative error, in the manner of HdrHistogram:
 * values below 256 are kept exactly; above, each power-of-two range is split into 128 equal slots,
 * so a reported value is never more than 1/128 (0.8 %) above the true one. Slots of a range are
 * allocated when the first value lands in it, so a histogram of sub-millisecond waits stays small
 * while a stray ten-second stall still fits.
 *
 * <p>Percentiles use the nearest-rank definition and report the top of their slot, capped at the
 * largest value recorded. Histograms of different threads merge exactly ({@link #add}).
 *
 * <p>Not thread-safe: each worker thread records into its own, merged after it has stopped.
 */
final class Histogram {
  private static final int PRECISION_BITS = 7;
  private static final int SLOTS_PER_RANGE = 1 << PRECISION_BITS;
  private static final int EXACT_LIMIT = 2 * SLOTS_PER_RANGE;
  private static final int RANGES = 64 - PRECISION_BITS;

  private final long[] exact = new long[EXACT_LIMIT];
  // ranges[r] counts values in [2^(r + PRECISION_BITS), 2^(r + PRECISION_BITS + 1)); r >= 1.
  private final long[][] ranges = new long[RANGES][];
  private long count;
  private long sum;
  private long max;

  /**
   * Counts one value.
   *
   * @throws IllegalArgumentException if {@code micros} is negative
   */
  void record(long micros) {
    if (micros < 0) {
      throw new IllegalArgumentException("micros must not be negative: " + micros);
    }
    if (micros < EXACT_LIMIT) {
      exact[(int) micros]++;
    } else {
      int range = rangeOf(micros);
      long[] slots = ranges[range];
      if (slots == null) {
        slots = new long[SLOTS_PER_RANGE];
        ranges[range] = slots;
      }
      slots[(int) (micros >>> range) - SLOTS_PER_RANGE]++;
    }
    count++;
    sum += micros;
    max = Math.max(max, micros);
  }

  /** Adds every value of {@code other} to this histogram. */
  void add(Histogram other) {
    for (int i = 0; i < EXACT_LIMIT; i++) {
      exact[i] += other.exact[i];
    }
    for (int range = 0; range < RANGES; range++) {
      long[] theirs = other.ranges[range];
      if (theirs == null) {
        continue;
      }
      if (ranges[range] == null) {
        ranges[range] = new long[SLOTS_PER_RANGE];
      }
      for (int slot = 0; slot < SLOTS_PER_RANGE; slot++) {
        ranges[range][slot] += theirs[slot];
      }
    }
    count += other.count;
    sum += other.sum;
    max = Math.max(max, other.max);
  }

  /** Returns how many values were recorded. */
  long count() {
    return count;
  }

  /** Returns the largest value recorded; 0 when none was. */
  long max() {
    return max;
  }

  /** Returns the arithmetic mean of the values recorded; 0 when none was. */
  double mean() {
    return count == 0 ? 0 : (double) sum / count;
  }

  /**
   * Returns the smallest value that at least {@code percent} % of the values do not exceed (to
   * within the slot width); 0 when nothing was recorded.
   *
   * @throws IllegalArgumentException unless {@code 0 < percent <= 100}
   */
  long percentile(double percent) {
    if (!(percent > 0 && percent <= 100)) {
      throw new IllegalArgumentException("percent must be in (0, 100]: " + percent);
    }
    if (count == 0) {
      return 0;
    }
    long rank = Math.max(1, (long) Math.ceil(count * (percent / 100)));
    long below = 0;
    for (int value = 0; value < EXACT_LIMIT; value++) {
      below += exact[value];
      if (below >= rank) {
        return Math.min(value, max);
      }
    }
    for (int range = 1; range < RANGES; range++) {
      long[] slots = ranges[range];
      if (slots == null) {
        continue;
      }
      for (int slot = 0; slot < SLOTS_PER_RANGE; slot++) {
        below += slots[slot];
        if (below >= rank) {
          long top = ((long) (SLOTS_PER_RANGE + slot + 1) << range) - 1;
          return Math.min(top, max);
        }
      }
    }
    return max;
  }

  /** Returns the range of a value of at least {@link #EXACT_LIMIT}: 1 for 256..511, and so on. */
  private static int rangeOf(long micros) {
    return (63 - Long.numberOfLeadingZeros(micros)) - PRECISION_BITS;
  }

  @Override
  public String toString() {
    return "Histogram[count=" + count + ", p50=" + percentile(50) + ", max=" + max + "]";
  }
}
