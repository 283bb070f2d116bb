package dev.warden.cli;

import java.nio.ByteBuffer;
import java.util.Base64;
import java.util.zip.DataFormatException;
import org.HdrHistogram.Histogram;

/**
 * Lock waits in microseconds, counted in an HdrHistogram of three significant digits (exact below
 * 2,048 us, within 0.1 % above; percentiles never below the true value), and the text form in which
 * a worker process hands its histogram to the process that started it: the histogram's compressed
 * encoding in Base64, one word without spaces. Histograms of different threads and processes add up
 * exactly ({@link Histogram#add}), which percentiles of percentiles do not.
 */
final class Waits {
  private Waits() {}

  /** Returns an empty histogram that grows to whatever range is recorded. */
  static Histogram histogram() {
    return new Histogram(3);
  }

  /** Returns the text form of {@code histogram}, which {@link #decode} reads back. */
  static String encode(Histogram histogram) {
    ByteBuffer buffer = ByteBuffer.allocate(histogram.getNeededByteBufferCapacity());
    int length = histogram.encodeIntoCompressedByteBuffer(buffer);
    return Base64.getEncoder()
        .withoutPadding()
        .encodeToString(java.util.Arrays.copyOf(buffer.array(), length));
  }

  /**
   * Reads the form written by {@link #encode}.
   *
   * @throws IllegalArgumentException naming the text if it is not such a form
   */
  static Histogram decode(String text) {
    try {
      ByteBuffer buffer = ByteBuffer.wrap(Base64.getDecoder().decode(text));
      return Histogram.decodeFromCompressedByteBuffer(buffer, 0);
    } catch (DataFormatException | RuntimeException malformed) {
      throw new IllegalArgumentException("not an encoded histogram: " + text, malformed);
    }
  }
}
