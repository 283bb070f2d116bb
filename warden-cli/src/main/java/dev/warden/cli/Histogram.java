package dev.warden.cli;

import java.util.Arrays;

/**
 * Counts non-negative values (lock waits in microseconds, here) in logarithmic buckets: one bucket
 * per value below 128, then 64 buckets per power of two, so that a bucket is never wider than 1/64
 * (1.6 %) of its values. The array has a fixed size (29 KB) whatever the range, and histograms of
 * different threads and processes add up exactly, which percentiles of percentiles do not.
 *
 * <p>Percentiles follow the nearest-rank definition and report the top of the bucket they fall in,
 * capped at the largest recorded value: exact below 128, never below the true value above.
 *
 * <p>Not thread-safe: give each thread its own and {@link #add} them afterwards.
 */
final class Histogram {
  private static final int EXACT = 128;
  private static final int SUB_BITS = 6;
  private static final int SUB_BUCKETS = 1 << SUB_BITS;
  // Values of 128 and above have their highest bit at 7..62: 56 powers of two above the exact
  // range.
  private static final int BUCKETS = EXACT + (62 - SUB_BITS) * SUB_BUCKETS;

  private final long[] counts = new long[BUCKETS];
  private long count;
  private long max;

  /**
   * Counts one value.
   *
   * @throws IllegalArgumentException if {@code value} is negative
   */
  void record(long value) {
    if (value < 0) {
      throw new IllegalArgumentException("value must not be negative: " + value);
    }
    counts[indexOf(value)]++;
    count++;
    max = Math.max(max, value);
  }

  /** Adds every value counted by {@code other} to this histogram. */
  void add(Histogram other) {
    for (int i = 0; i < BUCKETS; i++) {
      counts[i] += other.counts[i];
    }
    count += other.count;
    max = Math.max(max, other.max);
  }

  /** Returns how many values were counted. */
  long count() {
    return count;
  }

  /** Returns the largest value counted; 0 when none was. */
  long max() {
    return max;
  }

  /**
   * Returns the value at {@code percentile} (nearest rank: the smallest value that at least that
   * share of values does not exceed); 0 when nothing was counted.
   *
   * @throws IllegalArgumentException unless {@code 0 < percentile <= 100}
   */
  long percentile(double percentile) {
    if (!(percentile > 0 && percentile <= 100)) {
      throw new IllegalArgumentException("percentile must be in (0, 100]: " + percentile);
    }
    if (count == 0) {
      return 0;
    }
    long rank = Math.max(1, (long) Math.ceil(percentile * count / 100.0));
    long seen = 0;
    for (int i = 0; i < BUCKETS; i++) {
      seen += counts[i];
      if (seen >= rank) {
        return Math.min(highestValueIn(i), max);
      }
    }
    return max;
  }

  /**
   * Returns a compact text form without spaces, {@code max;index:count,...} listing only the
   * non-empty buckets, that {@link #decode} turns back into an equal histogram.
   */
  String encode() {
    StringBuilder text = new StringBuilder().append(max).append(';');
    String separator = "";
    for (int i = 0; i < BUCKETS; i++) {
      if (counts[i] != 0) {
        text.append(separator).append(i).append(':').append(counts[i]);
        separator = ",";
      }
    }
    return text.toString();
  }

  /**
   * Reads the form written by {@link #encode}.
   *
   * @throws IllegalArgumentException naming the text if it is not such a form
   */
  static Histogram decode(String text) {
    Histogram histogram = new Histogram();
    try {
      int semicolon = text.indexOf(';');
      histogram.max = Long.parseLong(text.substring(0, semicolon));
      String buckets = text.substring(semicolon + 1);
      if (!buckets.isEmpty()) {
        for (String bucket : buckets.split(",", -1)) {
          int colon = bucket.indexOf(':');
          int index = Integer.parseInt(bucket.substring(0, colon));
          long bucketCount = Long.parseLong(bucket.substring(colon + 1));
          if (bucketCount < 0) {
            throw new IllegalArgumentException("negative count");
          }
          histogram.counts[index] += bucketCount;
          histogram.count += bucketCount;
        }
      }
    } catch (RuntimeException malformed) { // parse errors, missing separators, index out of range
      throw new IllegalArgumentException("not an encoded histogram: " + text, malformed);
    }
    return histogram;
  }

  @Override
  public boolean equals(Object other) {
    return other instanceof Histogram that
        && count == that.count
        && max == that.max
        && Arrays.equals(counts, that.counts);
  }

  @Override
  public int hashCode() {
    return Arrays.hashCode(counts);
  }

  @Override
  public String toString() {
    return "Histogram[count=" + count + ", max=" + max + "]";
  }

  static int indexOf(long value) {
    if (value < EXACT) {
      return (int) value;
    }
    int shift = (63 - Long.numberOfLeadingZeros(value)) - SUB_BITS; // 1 for 128..255
    long top = value >>> shift; // 64..127: the six bits below the highest one, plus it
    return EXACT + (shift - 1) * SUB_BUCKETS + (int) (top - SUB_BUCKETS);
  }

  static long highestValueIn(int index) {
    if (index < EXACT) {
      return index;
    }
    int shift = (index - EXACT) / SUB_BUCKETS + 1;
    long top = (index - EXACT) % SUB_BUCKETS + (long) SUB_BUCKETS;
    return ((top + 1) << shift) - 1;
  }
}
