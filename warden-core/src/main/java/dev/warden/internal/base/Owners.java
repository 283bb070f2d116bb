package dev.warden.internal.base;

import java.util.concurrent.atomic.AtomicLong;

/**
 * Who acts, as Redis sees it: this client's id and the owner ids made from it. A thread's owner is
 * {@code <client id>:<thread id>}, a handle's {@code <client id>:h<n>}; an acquisition id is unique
 * within the client.
 */
public final class Owners {
  private final String clientId;
  private final String prefix;
  private final AtomicLong handles = new AtomicLong();
  private final AtomicLong acquisitions = new AtomicLong();

  /** Owners of a new client, with a random 48-bit id. */
  public Owners() {
    this(Ids.randomHex(6));
  }

  /** Owners of the client with that id. */
  public Owners(String clientId) {
    this.clientId = clientId;
    this.prefix = clientId + ":";
  }

  /** This client's id. */
  public String clientId() {
    return clientId;
  }

  /** What every owner id of this client begins with: {@code <client id>:}. */
  public String prefix() {
    return prefix;
  }

  /** The owner id of the calling thread. */
  public String currentThread() {
    return prefix + Thread.currentThread().getId();
  }

  /** Returns a new owner id for a handle: unique within this client and beyond. */
  public String newHandle() {
    return prefix + "h" + handles.incrementAndGet();
  }

  /** Returns a new acquisition id, unique within this client. */
  public String newAcquisitionId() {
    return Long.toString(acquisitions.incrementAndGet(), 36);
  }
}
