package dev.warden.internal.lock.driver;

import dev.warden.ObjectType;
import dev.warden.internal.base.Subject;
import dev.warden.internal.lease.Renewal;
import dev.warden.internal.redis.Scripts;
import dev.warden.internal.wait.WakeMessage;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * The read side of a read-write lock: every reader's hold has its own lease, kept as a deadline in
 * a sorted set, so an expired reader stops counting without any scan, and taking, releasing or
 * renewing a read hold costs the same however many readers there are. New readers are refused while
 * another owner writes or a writer waits. A release wakes every local waiter.
 */
public final class ReadDriver implements LockDriver {
  private final Scripts scripts;
  private final ReadWriteKeys keys;
  private final Parts parts;
  private final String markerMillis;

  /**
   * @param markerMillis how long a release's marker lives, in ms, as a script argument (see {@link
   *     LockDriver#release})
   */
  public ReadDriver(Scripts scripts, ReadWriteKeys keys, String markerMillis) {
    this.scripts = scripts;
    this.keys = keys;
    this.markerMillis = markerMillis;
    this.parts =
        new Parts(
            keys.side(keys.reads(), "read lock"),
            new Renewal(DriverScripts.RW_READ_RENEW, List.of(keys.reads(), keys.readers())),
            new ReadQueries(scripts, keys),
            new Subject(ObjectType.READ_LOCK, keys.name()));
  }

  @Override
  public Parts parts() {
    return parts;
  }

  @Override
  public boolean supportsConditions() {
    return false;
  }

  @Override
  public CompletableFuture<Attempt> acquire(
      String owner,
      String acquisitionId,
      int heldBefore,
      long leaseMillis,
      boolean othersWait,
      boolean willWait) {
    return scripts
        .run(
            DriverScripts.RW_READ_ACQUIRE,
            keys.acquireKeys(),
            owner,
            Long.toString(leaseMillis),
            Integer.toString(heldBefore),
            scripts.fenceTerms(),
            acquisitionId)
        .thenApply(Replies::queuedAttempt);
  }

  /** Releases one hold, or gives back acquisition {@code undo} (rw-read-release.lua). */
  @Override
  public CompletableFuture<Release> lower(String owner, int count, String undo, String releaseId) {
    return lower(owner, count, undo, releaseId, "");
  }

  @Override
  public CompletableFuture<Release> dropLost(String owner, long token) {
    return lower(owner, 1, "", "", Long.toString(token));
  }

  /**
   * The release script; {@code token}: the one the owner's hold must still have, or '' for none.
   */
  private CompletableFuture<Release> lower(
      String owner, int count, String undo, String releaseId, String token) {
    return scripts
        .run(
            DriverScripts.RW_READ_RELEASE,
            !token.isEmpty(), // a drop: rare, and must run when sent (Scripts.run)
            new String[] {
              keys.reads(), keys.readers(), keys.wanted(), parts.keys().releaseMarker(owner)
            },
            owner,
            Integer.toString(count),
            keys.channel(),
            undo,
            releaseId,
            markerMillis,
            token)
        .thenApply(reply -> Replies.release(reply, WakeMessage.ALL));
  }

  @Override
  public CompletableFuture<Boolean> forceRelease() {
    return scripts
        .run(
            DriverScripts.RW_FORCE_RELEASE,
            new String[] {keys.reads(), keys.readers()},
            keys.channel())
        .thenApply(Scripts::succeeded);
  }
}
