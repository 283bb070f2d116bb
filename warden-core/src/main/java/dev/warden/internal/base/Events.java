package dev.warden.internal.base;

import dev.warden.ObjectType;
import dev.warden.WardenListener;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The listeners of one Warden and the one place that calls them: each event goes to every listener
 * registered when it happens, and what a listener throws is logged, never passed on to the code
 * that made the event. With no listener, {@link #on()} is false and callers skip measuring.
 *
 * <p>Thread-safety: the listeners are a copy-on-write array read without a lock.
 */
public final class Events {
  private static final Logger LOG = LoggerFactory.getLogger(Events.class);
  private static final WardenListener[] NONE = new WardenListener[0];
  private static final AtomicLong HOLD_IDS = new AtomicLong();
  private static final AtomicLong ACQUISITION_IDS = new AtomicLong();

  private volatile WardenListener[] listeners = NONE;

  /** Whether any listener is registered: when false, events need not be made. */
  public boolean on() {
    return listeners.length > 0;
  }

  /** Adds a listener. */
  public synchronized void add(WardenListener listener) {
    WardenListener[] now = Arrays.copyOf(listeners, listeners.length + 1);
    now[now.length - 1] = listener;
    listeners = now;
  }

  /** Removes one registration of a listener; returns whether it was registered. */
  public synchronized boolean remove(WardenListener listener) {
    WardenListener[] now = listeners;
    for (int i = 0; i < now.length; i++) {
      if (now[i] == listener) {
        WardenListener[] fewer = new WardenListener[now.length - 1];
        System.arraycopy(now, 0, fewer, 0, i);
        System.arraycopy(now, i + 1, fewer, i, now.length - i - 1);
        listeners = fewer;
        return true;
      }
    }
    return false;
  }

  /** A new id for a hold, unique in this JVM. */
  public static long newHoldId() {
    return HOLD_IDS.incrementAndGet();
  }

  /** A new id for an acquisition, unique in this JVM. */
  public static long newAcquisitionId() {
    return ACQUISITION_IDS.incrementAndGet();
  }

  public void acquisitionStarted(ObjectType type, String name, long acquisitionId) {
    for (WardenListener listener : listeners) {
      try {
        listener.acquisitionStarted(type, name, acquisitionId);
      } catch (RuntimeException e) {
        failed(listener, "acquisitionStarted", e);
      }
    }
  }

  public void acquisitionEnded(
      ObjectType type,
      String name,
      long acquisitionId,
      WardenListener.Outcome outcome,
      long nanos) {
    for (WardenListener listener : listeners) {
      try {
        listener.acquisitionEnded(type, name, acquisitionId, outcome, nanos);
      } catch (RuntimeException e) {
        failed(listener, "acquisitionEnded", e);
      }
    }
  }

  public void holdStarted(ObjectType type, String name, long holdId, long fencingToken) {
    for (WardenListener listener : listeners) {
      try {
        listener.holdStarted(type, name, holdId, fencingToken);
      } catch (RuntimeException e) {
        failed(listener, "holdStarted", e);
      }
    }
  }

  public void holdEnded(ObjectType type, String name, long holdId, long nanos) {
    for (WardenListener listener : listeners) {
      try {
        listener.holdEnded(type, name, holdId, nanos);
      } catch (RuntimeException e) {
        failed(listener, "holdEnded", e);
      }
    }
  }

  public void leaseRenewed(ObjectType type, String name) {
    for (WardenListener listener : listeners) {
      try {
        listener.leaseRenewed(type, name);
      } catch (RuntimeException e) {
        failed(listener, "leaseRenewed", e);
      }
    }
  }

  public void leaseLost(
      ObjectType type, String name, long holdId, WardenListener.LossReason reason) {
    for (WardenListener listener : listeners) {
      try {
        listener.leaseLost(type, name, holdId, reason);
      } catch (RuntimeException e) {
        failed(listener, "leaseLost", e);
      }
    }
  }

  private static void failed(WardenListener listener, String event, RuntimeException e) {
    LOG.warn("Warden listener {} threw from {}; the event goes on", listener, event, e);
  }
}
