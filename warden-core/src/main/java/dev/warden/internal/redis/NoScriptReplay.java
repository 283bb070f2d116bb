package dev.warden.internal.redis;

import io.lettuce.core.RedisConnectionException;
import io.lettuce.core.protocol.CommandType;
import io.lettuce.core.protocol.RedisCommand;
import java.util.function.Predicate;

/**
 * Keeps Lettuce from replaying Warden's scripts after a reconnect: a script whose connection
 * dropped may have run already, and only Warden knows whether running it again is safe (a release
 * that ran twice must not count twice), so Warden retries scripts itself.
 *
 * <p>Lettuce drops a filtered command without completing it, which would leave its caller waiting
 * for the whole command timeout; so the filter first fails the command with a connection error,
 * which Warden's retry logic treats as transient. The same path handles scripts written while the
 * connection is down: they fail at once instead of queueing.
 */
final class NoScriptReplay implements Predicate<RedisCommand<?, ?, ?>> {
  @Override
  public boolean test(RedisCommand<?, ?, ?> command) {
    if (command.getType() != CommandType.EVALSHA && command.getType() != CommandType.EVAL) {
      return false;
    }
    command.completeExceptionally(
        new RedisConnectionException(
            "not connected to Redis; the script is not replayed after reconnecting"));
    return true;
  }
}
