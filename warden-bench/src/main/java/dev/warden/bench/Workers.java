package dev.warden.bench;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import java.util.function.IntFunction;

/**
 * The worker threads of one trial: started together behind a gate, each with its own {@link Tally},
 * running until {@link #finish} stops them. The first exception a worker throws is kept, ends
 * {@link #await} early, and is rethrown by {@link #finish}.
 *
 * <p>Workers are daemon threads named {@code bench-<name>-<index>}: a thread stuck in a lock call
 * cannot keep the JVM alive, and closing the trial's client ends such a call.
 */
final class Workers implements Trial {

  /** What one worker thread runs; a loop body checks {@link Worker#running()}. */
  interface Body {
    void run(Worker worker) throws Exception;
  }

  /** A worker thread's view of the trial. */
  final class Worker {
    private final int index;
    private final Tally tally = new Tally(window);

    private Worker(int index) {
      this.index = index;
    }

    /** Returns this worker's number, from 0. */
    int index() {
      return index;
    }

    /** Returns this worker's tally. */
    Tally tally() {
      return tally;
    }

    /** Returns whether the trial goes on (not stopped, no worker failed); loops end when not. */
    boolean running() {
      return stop.getCount() > 0;
    }

    /** Waits until the trial is stopped or a worker failed, without waking up meanwhile. */
    void awaitStop() throws InterruptedException {
      stop.await();
    }
  }

  private final List<Thread> threads = new ArrayList<>();
  private final List<Worker> workers = new ArrayList<>();
  private final CountDownLatch stop = new CountDownLatch(1);
  private final CountDownLatch failed = new CountDownLatch(1);
  private final AtomicReference<Throwable> failure = new AtomicReference<>();
  private final Window window = new Window();
  private volatile Consumer<Tally> finisher = tally -> {};

  private Workers() {}

  /**
   * Starts {@code count} threads, each running the body {@code bodies} returns for its index; all
   * bodies begin at the same moment.
   */
  static Workers start(String name, int count, IntFunction<Body> bodies) {
    Workers group = new Workers();
    CountDownLatch gate = new CountDownLatch(1);
    for (int i = 0; i < count; i++) {
      Worker worker = group.new Worker(i);
      Body body = bodies.apply(i);
      Thread thread =
          new Thread(
              () -> {
                try {
                  gate.await();
                  body.run(worker);
                } catch (Throwable e) { // every failure must reach finish(), whatever it is
                  group.fail(e);
                }
              },
              "bench-" + name + "-" + i);
      thread.setDaemon(true);
      group.workers.add(worker);
      group.threads.add(thread);
    }
    group.threads.forEach(Thread::start);
    gate.countDown();
    return group;
  }

  /**
   * Has {@code finisher} add whole-run values to the merged tally once the workers have stopped
   * (their writes are then visible): a shared counter's final value, say.
   */
  Workers whenFinished(Consumer<Tally> finisher) {
    this.finisher = finisher;
    return this;
  }

  /** Returns the first failure of a worker, or null. */
  Throwable failure() {
    return failure.get();
  }

  private void fail(Throwable e) {
    if (failure.compareAndSet(null, e)) {
      failed.countDown();
      stop.countDown(); // the other workers end too
    }
  }

  @Override
  public void await(Duration duration) throws InterruptedException {
    failed.await(duration.toNanos(), TimeUnit.NANOSECONDS);
  }

  @Override
  public void openWindow() {
    window.open();
  }

  @Override
  public void closeWindow() {
    window.close();
  }

  @Override
  public Tally finish(Duration grace) throws InterruptedException {
    closeWindow();
    stop.countDown();
    long deadline = System.nanoTime() + grace.toNanos();
    int stuck = 0;
    for (Thread thread : threads) {
      long left = deadline - System.nanoTime();
      if (left > 0) {
        TimeUnit.NANOSECONDS.timedJoin(thread, left);
      }
      if (thread.isAlive()) {
        stuck++;
      }
    }
    if (failure.get() != null) {
      Throwable cause = failure.get();
      throw new BenchException("a worker failed: " + cause, cause);
    }
    if (stuck > 0) {
      throw new BenchException(
          stuck
              + " of "
              + threads.size()
              + " workers did not stop within "
              + grace.toSeconds()
              + " s");
    }
    Tally merged = new Tally(new Window());
    workers.forEach(worker -> merged.add(worker.tally));
    finisher.accept(merged);
    return merged;
  }
}
