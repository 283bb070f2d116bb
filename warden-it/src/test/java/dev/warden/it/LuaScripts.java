package dev.warden.it;

import dev.warden.internal.redis.Script;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.sync.RedisCommands;
import java.util.List;

/**
 * Runs Warden's Lua scripts on their own, with EVAL, for the script-level suites: each loaded as
 * Warden loads it, by {@link Script} (the shared prelude, then the script's own file).
 */
public final class LuaScripts {
  /** The folders of warden-core's packages that hold scripts. */
  private static final List<String> FOLDERS =
      List.of("lock/driver", "lock", "sync", "quorum", "redis");

  private LuaScripts() {}

  static List<Object> run(
      RedisCommands<String, String> redis, String script, String[] keys, String... args) {
    return redis.eval(body(script), ScriptOutputType.MULTI, keys, args);
  }

  /** The body Warden sends for the script of that name. */
  static String body(String script) {
    return load(script).body();
  }

  /** The script of that name, from whichever package's folder holds it. */
  public static Script load(String script) {
    for (String folder : FOLDERS) {
      if (LuaScripts.class.getResource("/dev/warden/internal/" + folder + "/" + script + ".lua")
          != null) {
        return Script.resource(folder + "/" + script);
      }
    }
    throw new AssertionError("no script " + script + " in " + FOLDERS);
  }
}
