package dev.warden.it;

import static org.assertj.core.api.Assertions.assertThat;

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

  static String body(String script) {
    String resource = "/dev/warden/internal/" + script + ".lua";
    try (InputStream in = LuaScripts.class.getResourceAsStream(resource)) {
      assertThat(in).as(resource).isNotNull();
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
