package dev.warden.cli;

import com.sun.management.GarbageCollectionNotificationInfo;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javax.management.ListenerNotFoundException;
import javax.management.Notification;
import javax.management.NotificationEmitter;
import javax.management.NotificationListener;
import javax.management.openmbean.CompositeData;

/**
 * A chaos worker's own evidence of its pauses, for {@link ChaosPauses}: a heartbeat thread that
 * wakes every {@link #PERIOD} and logs each time it woke {@link #LOGGED} or more late, and the
 * JVM's garbage collections of {@link #LOGGED} or more (from {@link GarbageCollectorMXBean}
 * notifications). Each goes to the worker's log as {@code H <paused from> <source>}, stamped when
 * the pause ended: {@code heartbeat}, or {@code gc:<collector>:<cause>}.
 *
 * <p>A late heartbeat is a lower bound of a stall of the whole process: the thread was due at the
 * end of its sleep and ran only when logged, so its lateness counts from then, not from its last
 * beat. A stall that long means the JVM did not run (a GC safepoint, the OS scheduler on a loaded
 * machine, a SIGSTOP); it does not prove that Warden's lease keeper stalled with it, which is why
 * {@link ChaosPauses} lets a pause explain only its own worker's losses during it.
 *
 * <p>Thread-safe. Runs one daemon thread ({@code chaos-heartbeat}); GC notifications arrive on the
 * JVM's notification thread. Both only write to the log.
 */
final class ChaosHeartbeat {
  /** How often the heartbeat wakes. */
  static final Duration PERIOD = Duration.ofMillis(50);

  /** The shortest pause logged. */
  static final Duration LOGGED = Duration.ofMillis(100);

  private final ChaosLog log;
  private final Thread thread;
  private final List<NotificationEmitter> collectors = new ArrayList<>();
  private final NotificationListener listener = this::collected;
  private final long jvmStartNanos;
  private volatile boolean running = true;

  private ChaosHeartbeat(ChaosLog log) {
    this.log = log;
    // GC times count from the JVM's start, on the same monotonic clock as its uptime.
    this.jvmStartNanos =
        System.nanoTime()
            - TimeUnit.MILLISECONDS.toNanos(ManagementFactory.getRuntimeMXBean().getUptime());
    this.thread = new Thread(this::beat, "chaos-heartbeat");
    thread.setDaemon(true);
  }

  /** Starts logging this JVM's pauses to {@code log}. */
  static ChaosHeartbeat start(ChaosLog log) {
    ChaosHeartbeat heartbeat = new ChaosHeartbeat(log);
    for (GarbageCollectorMXBean collector : ManagementFactory.getGarbageCollectorMXBeans()) {
      if (collector instanceof NotificationEmitter emitter) {
        emitter.addNotificationListener(heartbeat.listener, null, null);
        heartbeat.collectors.add(emitter);
      }
    }
    heartbeat.thread.start();
    return heartbeat;
  }

  private void beat() {
    long period = PERIOD.toNanos();
    long logged = LOGGED.toNanos();
    long last = System.nanoTime();
    while (running) {
      try {
        Thread.sleep(PERIOD.toMillis()); // the heartbeat measures time itself
      } catch (InterruptedException stopped) {
        return;
      }
      long now = System.nanoTime();
      long due = last + period;
      if (now - due >= logged) {
        log.writeAt(now, "H", due, "heartbeat");
      }
      last = now;
    }
  }

  private void collected(Notification notification, Object handback) {
    if (!notification
        .getType()
        .equals(GarbageCollectionNotificationInfo.GARBAGE_COLLECTION_NOTIFICATION)) {
      return;
    }
    GarbageCollectionNotificationInfo info =
        GarbageCollectionNotificationInfo.from((CompositeData) notification.getUserData());
    long millis = info.getGcInfo().getDuration();
    if (millis < LOGGED.toMillis()) {
      return;
    }
    long start = jvmStartNanos + TimeUnit.MILLISECONDS.toNanos(info.getGcInfo().getStartTime());
    log.writeAt(
        start + TimeUnit.MILLISECONDS.toNanos(millis),
        "H",
        start,
        "gc:" + info.getGcName() + ":" + info.getGcCause());
  }

  /** Stops the heartbeat and the GC listener. */
  void stop() throws InterruptedException {
    running = false;
    thread.interrupt();
    thread.join();
    for (NotificationEmitter collector : collectors) {
      try {
        collector.removeNotificationListener(listener);
      } catch (ListenerNotFoundException alreadyGone) {
        // Nothing more to remove.
      }
    }
  }
}
