package dev.warden.internal.redis;

import dev.warden.DeploymentReport.Check;
import dev.warden.DeploymentReport.Status;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * The on-Redis format: the keys, fields and values Warden's scripts read and write, which clients
 * of different Warden versions share during a rolling deploy. {@link #CURRENT} numbers this
 * version's format; {@link #SHARED_SINCE} is the oldest format whose clients may run beside this
 * version's on the same data (checked by {@code MixedVersionIT} against the previous release). A
 * change to the format that older clients would misread raises both, so that no client of an older
 * format starts where this one has written (docs/operations.md, 'Upgrades').
 *
 * <p>The marker, one small hash per deployment (and key prefix) that does not expire, holds the
 * newest format recorded and the oldest that shares data with every format recorded (the largest of
 * their shared-since formats, which no later record lowers). The capability check records this
 * client's format there at {@code build()} and refuses to start when the marker's shared-since
 * format is newer than {@link #CURRENT}; {@code warden doctor} only reads it.
 *
 * <p>Stateless.
 */
final class DataFormat {
  /**
   * This version's on-Redis format: 1 was 0.1.0-SNAPSHOT, 2 is 0.2.0 (acquisition ids, release
   * markers).
   */
  static final int CURRENT = 2;

  /**
   * The oldest format whose clients may share data with this version's (0.1.0-SNAPSHOT's:
   * MixedVersionIT).
   */
  static final int SHARED_SINCE = 1;

  /**
   * The hash tag of the marker's key, which no object uses: {@code warden:{warden-format}:format},
   * or {@code <prefix>:warden:{warden-format}:format} under a key prefix.
   */
  private static final String MARKER_TAG = "warden-format";

  static final String CHECK = "on-Redis data format";

  private static final Script MARK = Script.load(DataFormat.class, "format-mark");

  private DataFormat() {}

  /**
   * Reads the marker and, when {@code record}, records this client's format in it; the reply is
   * {@code {format, since}} as the marker holds them after the call. The marker is the namespace's:
   * Wardens under different key prefixes keep apart formats.
   */
  static CompletableFuture<List<Object>> mark(
      Deployment deployment, boolean record, Namespace namespace) {
    return new Scripts(deployment)
        .run(
            MARK,
            new String[] {namespace.key(MARKER_TAG, "format")},
            Integer.toString(CURRENT),
            Integer.toString(SHARED_SINCE),
            record ? "1" : "0");
  }

  /** The check for a marker that holds {@code format} and {@code since} (0 when none). */
  static Check verdict(long format, long since) {
    if (since > CURRENT) {
      return new Check(
          CHECK,
          Status.REFUSED,
          "format " + format + " recorded, shared by clients of format " + since + " and later",
          "a newer Warden has written data this version (format "
              + CURRENT
              + ") would misread: run that version or newer here (docs/operations.md 'Upgrades')");
    }
    return new Check(CHECK, Status.OK, "", "");
  }
}
