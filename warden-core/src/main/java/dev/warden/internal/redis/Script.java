package dev.warden.internal.redis;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * One Lua script resource, read once, and its SHA-1 (computed here, so no SCRIPT LOAD round trip
 * is needed). Scripts live beside the package that runs them: {@code lock-acquire.lua} of the lock
 * drivers is the resource {@code dev/warden/internal/lock/driver/lock-acquire.lua}.
 *
 * @param name the script's name, e.g. {@code lock-acquire}
 * @param body the Lua source sent with EVAL
 * @param sha its SHA-1, sent with EVALSHA
 */
public record Script(String name, String body, String sha) {
  /**
   * Reads the script {@code name + ".lua"} from the package of {@code owner}.
   *
   * @throws IllegalStateException if there is no such resource
   */
  public static Script load(Class<?> owner, String name) {
    return new Script(name, read(owner, name + ".lua"), null);
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
            "script resource missing: " + owner.getPackageName() + "/" + resource);
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read script " + resource, e);
    }
  }
}
