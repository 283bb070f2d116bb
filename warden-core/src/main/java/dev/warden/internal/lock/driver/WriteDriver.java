package dev.warden.internal.lock.driver;

import dev.warden.ObjectType;
import dev.warden.internal.base.Settings;
import dev.warden.internal.base.Subject;
import dev.warden.internal.lease.Renewal;
import dev.warden.internal.redis.Scripts;
import dev.warden.internal.wait.WakeMessage;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.ToIntFunction;

/**
 * The write side of a read-write lock: a hash of owner to hold count like the reentrant lock, taken
 * only while no other owner holds a live read hold. A waiting writer is registered (with a
 * heartbeat, like a fair-lock waiter) so that new readers queue behind it: writers are not starved
 * by overlapping readers. A release wakes every local waiter.
 */
public final class WriteDriver implements LockDriver {
  private static final String HEARTBEAT_TIMEOUT = Long.toString(Settings.HEARTBEAT_TIMEOUT_MILLIS);

  private final Scripts scripts;
  private final ReadWriteKeys keys;
  private final Parts parts;
  private final String markerMillis;
  private final ToIntFunction<String> readHolds;

  /**
   * @param markerMillis how long a release's marker lives, in ms, as a script argument (see {@link
   *     LockDriver#release})
   * @param readHolds the read holds an owner has as this client knows them (0 when it knows of
   *     none, or knows them lost): a live read hold in Redis that this client does not know of does
   *     not refuse the owner the write lock (rw-write-acquire.lua)
   */
  public WriteDriver(
      Scripts scripts, ReadWriteKeys keys, String markerMillis, ToIntFunction<String> readHolds) {
    this.scripts = scripts;
    this.keys = keys;
    this.markerMillis = markerMillis;
    this.readHolds = readHolds;
    this.parts =
        new Parts(
            keys.side(keys.write(), "write lock"),
            new Renewal(DriverScripts.LOCK_RENEW, List.of(keys.write())),
            new HashQueries(scripts.redis(), keys.write()),
            new Subject(ObjectType.WRITE_LOCK, keys.name()));
  }

  @Override
  public Parts parts() {
    return parts;
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
            DriverScripts.RW_WRITE_ACQUIRE,
            keys.acquireKeys(),
            owner,
            Long.toString(leaseMillis),
            Integer.toString(heldBefore),
            scripts.fenceTerms(),
            willWait ? "1" : "0",
            HEARTBEAT_TIMEOUT,
            acquisitionId,
            Integer.toString(readHolds.applyAsInt(owner)))
        .thenApply(
            reply -> {
              if (Scripts.number(reply, 0) < 0) {
                throw new IllegalMonitorStateException(
                    describe()
                        + ": "
                        + owner
                        + " holds read holds: a read lock cannot be upgraded");
              }
              // a waiting writer's attempts are its heartbeat
              return Replies.queuedAttempt(reply);
            });
  }

  /** Releases one hold, or gives back acquisition {@code undo} (rw-write-release.lua). */
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
            DriverScripts.RW_WRITE_RELEASE,
            !token.isEmpty(), // a drop: rare, and must run when sent (Scripts.run)
            new String[] {keys.write(), keys.wanted(), parts.keys().releaseMarker(owner)},
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
  public CompletableFuture<?> leave(String owner, String acquisitionId) {
    return scripts.run(
        DriverScripts.RW_WRITER_LEAVE,
        new String[] {keys.writers(), keys.wanted()},
        owner,
        keys.channel(),
        acquisitionId);
  }

  @Override
  public CompletableFuture<Boolean> forceRelease() {
    return scripts
        .run(DriverScripts.RW_FORCE_RELEASE, new String[] {keys.write()}, keys.channel())
        .thenApply(Scripts::succeeded);
  }
}
