package dev.warden.it;

import dev.warden.internal.ScriptLoader;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.sync.RedisCommands;
import java.util.List;

/**
 * Runs Warden's Lua scripts on their own, with EVAL, for the script-level suites: each loaded as
 * Warden loads it, by {@link ScriptLoader} (the shared prelude, then the script's own file).
 */
final class LuaScripts {
  private LuaScripts() {}

  static List<Object> run(
      RedisCommands<String, String> redis, String script, String[] keys, String... args) {
    return redis.eval(body(script), ScriptOutputType.MULTI, keys, args);
  }

  static String body(String script) {
    return ScriptLoader.body(ScriptLoader.class, script);
  }
}
