package dev.warden.it;

import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.sync.RedisCommands;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;

/** Runs Warden's Lua scripts on their own, with EVAL, for the script-level suites. */
final class LuaScripts {
  private LuaScripts() {}

  static List<Object> run(
      RedisCommands<String, String> redis, String script, String[] keys, String... args) {
    return redis.eval(body(script), ScriptOutputType.MULTI, keys, args);
  }

  /** The folders of warden-core's packages that hold scripts. */
  private static final List<String> FOLDERS = List.of("lock/driver", "lock", "sync");

  static String body(String script) {
    for (String folder : FOLDERS) {
      String resource = "/dev/warden/internal/" + folder + "/" + script + ".lua";
      try (InputStream in = LuaScripts.class.getResourceAsStream(resource)) {
        if (in != null) {
          return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    throw new AssertionError("no script " + script + " in " + FOLDERS);
  }
}
