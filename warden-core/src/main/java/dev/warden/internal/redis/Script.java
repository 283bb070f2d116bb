package dev.warden.internal.redis;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * One Lua script, read once, and its SHA-1 (computed here, so no SCRIPT LOAD round trip is needed).
 * Scripts live beside the package that runs them: {@code lock-acquire.lua} of the lock drivers is
 * the resource {@code dev/warden/internal/lock/driver/lock-acquire.lua}.
 *
 * <p>The one loading rule, for Warden and for the script tests alike: a script's body is the shared
 * prelude ({@code redis/prelude.lua}: its local functions), then the script's own file. EVALSHA
 * sends only the digest, so the prelude costs nothing per call; error line numbers in a script
 * count the prelude's lines first.
 *
 * @param name the script's name, e.g. {@code lock-acquire}
 * @param body the Lua source sent with EVAL: the prelude, then the script
 * @param sha its SHA-1, sent with EVALSHA
 */
public record Script(String name, String body, String sha) {
  private static final String PRELUDE = read(Script.class, "prelude.lua");

  /** The folder of warden-core's packages, which script paths are relative to. */
  private static final String ROOT = "/dev/warden/internal/";

  /**
   * Loads the script {@code name + ".lua"} of the package of {@code owner}, after the prelude.
   *
   * @throws IllegalStateException if there is no such resource
   */
  public static Script load(Class<?> owner, String name) {
    return new Script(name, PRELUDE + read(owner, name + ".lua"), null);
  }

  /**
   * Loads a script by its path under {@code dev/warden/internal}, without {@code .lua}: {@code
   * lock/driver/lock-acquire}. For tools and tests that run scripts on their own.
   *
   * @throws IllegalStateException if there is no such resource
   */
  public static Script resource(String path) {
    String name = path.substring(path.lastIndexOf('/') + 1);
    return new Script(name, PRELUDE + read(Script.class, ROOT + path + ".lua"), null);
  }

  /** The prelude's line that names the publish command, and its sharded twin. */
  private static final String PUBLISH_LINE = "local PUBLISH = 'PUBLISH'\n";

  private static final String SPUBLISH_LINE = "local PUBLISH = 'SPUBLISH'\n";

  /**
   * The same script publishing its wake-ups with SPUBLISH, for Redis Cluster's sharded pub/sub: the
   * prelude's publish command swapped, so it has its own SHA-1. Only the prelude's line changes.
   */
  public Script sharded() {
    if (!body.startsWith(PRELUDE) || !PRELUDE.contains(PUBLISH_LINE)) {
      throw new IllegalStateException("script " + name + " does not begin with the prelude");
    }
    return new Script(
        name,
        PRELUDE.replace(PUBLISH_LINE, SPUBLISH_LINE) + body.substring(PRELUDE.length()),
        null);
  }

  /** The prelude's line that records wake-ups instead (recording twin), and its last line. */
  private static final String RECORD_LINE = "local PUBLISH = false\n";

  private static final String PRELUDE_END =
      "-- end of the prelude; the script's own file follows\n";

  /** The recording twin's last prelude line: the script's own text becomes a function's body. */
  private static final String RECORDING_END =
      "local function run_script() -- end of the prelude; the script's own file follows\n";

  private static final String RECORDING_REPLY = read(Script.class, "recording-reply.lua");

  /**
   * The same script recording its wake-ups instead of publishing them, for a server that refuses
   * PUBLISH in scripts ({@code WakeUps.FROM_CLIENT}): the prelude's publish command swapped for
   * {@code false} (prelude.lua's {@code publish()} then records), its last line opening a function
   * whose body is the script's own text, on the same lines, and {@code recording-reply.lua} after
   * it, which replies {@code {recorded wake-ups, the script's reply}} ({@link Scripts} publishes
   * them). Its own SHA-1; one twin for one server and a cluster alike (the client picks PUBLISH or
   * SPUBLISH).
   *
   * @throws IllegalStateException if the script does not begin with the prelude
   */
  public Script recording() {
    if (!body.startsWith(PRELUDE)
        || !PRELUDE.contains(PUBLISH_LINE)
        || !PRELUDE.endsWith(PRELUDE_END)) {
      throw new IllegalStateException("script " + name + " does not begin with the prelude");
    }
    String prelude =
        PRELUDE
                .substring(0, PRELUDE.length() - PRELUDE_END.length())
                .replace(PUBLISH_LINE, RECORD_LINE)
            + RECORDING_END;
    String source = source();
    return new Script(
        name, prelude + source + (source.endsWith("\n") ? "" : "\n") + RECORDING_REPLY, null);
  }

  /** The prelude every script's body begins with. */
  public static String prelude() {
    return PRELUDE;
  }

  /** The script's own text: its body without the prelude. */
  public String source() {
    return body.substring(PRELUDE.length());
  }

  /** Creates a script from its body, computing the SHA-1 when not given. */
  public Script {
    if (sha == null) {
      sha = sha1(body);
    }
  }

  /** Returns the SHA-1 of a script body as Redis computes it: 40 lower-case hex digits. */
  public static String sha1(String body) {
    try {
      byte[] digest =
          MessageDigest.getInstance("SHA-1").digest(body.getBytes(StandardCharsets.UTF_8));
      return HexFormat.of().formatHex(digest);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-1 is required by every Java platform", e);
    }
  }

  private static String read(Class<?> owner, String resource) {
    try (InputStream in = owner.getResourceAsStream(resource)) {
      if (in == null) {
        throw new IllegalStateException(
            "script resource missing: " + resource + " (beside " + owner.getName() + ")");
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read script " + resource, e);
    }
  }
}
