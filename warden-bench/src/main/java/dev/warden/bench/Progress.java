package dev.warden.bench;

import java.io.PrintStream;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * The progress display: one line per run ({@code [ 3/34] W1 T=16 Warden ...}) that ends with the
 * run's headline numbers. On a terminal the line also counts the seconds of the current phase
 * (setup, warm-up, window) once a second; in a log it is written once, when the run ends.
 *
 * <p>Thread-safe: the runner's thread sets the phase, a daemon ticker redraws the line.
 */
final class Progress implements AutoCloseable {
  private final PrintStream out;
  private final boolean live;
  private final int total;
  private final ScheduledExecutorService ticker;
  private int done;
  private String label = "";
  private long beganNanos;
  private String phase = "";
  private long phaseStartNanos;
  private long phaseSeconds;

  // FutureReturnValueIgnored: the ticker runs until close(); its future would only say it was
  // cancelled
  @SuppressWarnings("FutureReturnValueIgnored")
  Progress(PrintStream out, boolean live, int total) {
    this.out = out;
    this.live = live;
    this.total = total;
    this.ticker =
        Executors.newSingleThreadScheduledExecutor(
            task -> {
              Thread thread = new Thread(task, "bench-progress");
              thread.setDaemon(true);
              return thread;
            });
    if (live) {
      ticker.scheduleAtFixedRate(this::redraw, 1, 1, TimeUnit.SECONDS);
    }
  }

  /** Starts the line of the next run. */
  synchronized void begin(String runLabel) {
    done++;
    label = String.format("[%2d/%d] %s", done, total, runLabel);
    beganNanos = System.nanoTime();
    phase("setup", 0);
  }

  /** Shows that the current run entered a phase expected to last {@code seconds} (0: unknown). */
  synchronized void phase(String name, long seconds) {
    phase = name;
    phaseSeconds = seconds;
    phaseStartNanos = System.nanoTime();
    redraw();
  }

  /** Ends the current run's line with its summary. */
  synchronized void end(String summary) {
    if (live) {
      out.print("\r\033[K");
    }
    long seconds = Math.round((System.nanoTime() - beganNanos) / 1e9);
    out.println(label + String.format(" %3d s  ", seconds) + summary);
    out.flush();
    label = "";
  }

  private synchronized void redraw() {
    if (!live || label.isEmpty()) {
      return;
    }
    long elapsed = (System.nanoTime() - phaseStartNanos) / 1_000_000_000L;
    String clock = phaseSeconds > 0 ? elapsed + "/" + phaseSeconds + " s" : elapsed + " s";
    out.print("\r\033[K" + label + "  " + phase + " " + clock);
    out.flush();
  }

  @Override
  public void close() {
    ticker.shutdownNow();
  }
}
