package dev.warden.internal.leader;

import java.util.ArrayDeque;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs user callbacks on an executor one at a time, in the order they were queued: a queue drained
 * by one task of the executor at a time. What a callback throws is logged, never passed on.
 */
final class SerialCallbacks {
  private static final Logger LOG = LoggerFactory.getLogger(SerialCallbacks.class);

  private final Executor executor;
  private final ArrayDeque<Runnable> queue = new ArrayDeque<>(); // guarded by this
  private boolean draining; // guarded by this
  private volatile Thread runner; // the thread running a callback now, or null

  SerialCallbacks(Executor executor) {
    this.executor = executor;
  }

  /** Queues the callback; the future completes once it ran (or threw). Never blocks. */
  CompletableFuture<Void> run(String what, Runnable callback) {
    CompletableFuture<Void> ran = new CompletableFuture<>();
    Runnable task =
        () -> {
          try {
            callback.run();
          } catch (RuntimeException e) {
            LOG.warn("a leadership callback ({}) threw; ignored", what, e);
          } finally {
            ran.complete(null);
          }
        };
    boolean start;
    synchronized (this) {
      queue.add(task);
      start = !draining;
      draining = true;
    }
    if (start) {
      executor.execute(this::drain);
    }
    return ran;
  }

  /** Whether the calling thread is running one of these callbacks now. */
  boolean isCallbackThread() {
    return runner == Thread.currentThread();
  }

  private void drain() {
    while (true) {
      Runnable next;
      synchronized (this) {
        next = queue.poll();
        if (next == null) {
          draining = false;
          return;
        }
      }
      runner = Thread.currentThread();
      try {
        next.run();
      } finally {
        runner = null;
      }
    }
  }
}
