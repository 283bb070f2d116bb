package dev.warden.internal;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/**
 * The one rule by which Warden's Lua scripts are read: the shared prelude ({@code prelude.lua}, its
 * local functions), then the script's own file. The body sent with EVAL, and hashed for EVALSHA, is
 * that text; Redis computes the same SHA-1 from it. Public only so that the script-level tests
 * load scripts the same way; not API ({@code module-info} does not export this package).
 */
public final class ScriptLoader {
  /** The prelude's resource, relative to this class: the one place that says where it lives. */
  private static final String PRELUDE = "prelude.lua";

  private static final String PRELUDE_TEXT = read(ScriptLoader.class, PRELUDE);

  private ScriptLoader() {}

  /**
   * The body of script {@code name}: the prelude, then the resource {@code name + ".lua"} found
   * next to {@code anchor} (so a script may live in any package that has a class to name it).
   */
  public static String body(Class<?> anchor, String name) {
    return PRELUDE_TEXT + source(anchor, name);
  }

  /** The script's own file, without the prelude. */
  public static String source(Class<?> anchor, String name) {
    return read(anchor, name + ".lua");
  }

  /** The lower-case hex SHA-1 of a body, as Redis computes it for SCRIPT LOAD and EVALSHA. */
  public static String sha1(String body) {
    try {
      byte[] digest =
          MessageDigest.getInstance("SHA-1").digest(body.getBytes(StandardCharsets.UTF_8));
      StringBuilder hex = new StringBuilder(40);
      for (byte b : digest) {
        hex.append(Character.forDigit((b >> 4) & 0xf, 16)).append(Character.forDigit(b & 0xf, 16));
      }
      return hex.toString();
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-1 is required by every Java platform", e);
    }
  }

  private static String read(Class<?> anchor, String resource) {
    try (InputStream in = anchor.getResourceAsStream(resource)) {
      if (in == null) {
        throw new IllegalStateException(
            "script resource missing: " + resource + " (next to " + anchor.getName() + ")");
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read script " + resource, e);
    }
  }
}
