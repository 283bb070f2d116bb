package dev.warden.testkit;

import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.output.StatusOutput;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.CommandType;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * The smallest Redis ACL rules under which Warden does everything (docs/security.md), and a way to
 * make a user with one of them: {@link WardenDeployment.Kind#SINGLE_ACL} runs a test class's {@link
 * dev.warden.Warden} instances as such a user. Stateless and thread-safe.
 *
 * @since 0.2
 */
public final class WardenAcl {
  /**
   * The rule for one server and for a Sentinel deployment's data nodes (with {@link #SENTINEL}).
   */
  public static final String SINGLE_SERVER =
      "resetkeys ~warden:* resetchannels &warden:* -@all"
          + " +client|setname +evalsha +eval +subscribe +unsubscribe +pubsub|numsub"
          + " +get +hget +hmget +hexists +pttl +wait +info"
          + " +del +exists +set +incr +incrby +decrby +type +persist +pexpire +time +publish"
          + " +hset +hdel +hgetall +hincrby"
          + " +zadd +zcard +zcount +zrange +zrangebyscore +zrem +zremrangebyscore +zscore";

  /** Added to {@link #SINGLE_SERVER} on a Sentinel deployment's data nodes. */
  public static final String SENTINEL = "+role";

  /** Added to {@link #SINGLE_SERVER} on every node of a cluster. */
  public static final String CLUSTER =
      "+cluster|nodes +cluster|myid +cluster|info +spublish +ssubscribe +sunsubscribe"
          + " +pubsub|shardnumsub";

  private static final Pattern WORDS = Pattern.compile("\\s+");

  /** The user {@link WardenDeployment.Kind#SINGLE_ACL} makes. */
  static final String USER = "warden-acl";

  /** Its password. */
  static final String PASSWORD = "acl-secret-7f3c";

  private WardenAcl() {}

  /**
   * Returns {@link #SINGLE_SERVER} for a {@code Warden} built with {@code keyPrefix(keyPrefix)}:
   * its keys and channels are {@code <keyPrefix>:warden:*}, so the rule confines the user to them,
   * e.g. {@code singleServer("billing")} allows {@code ~billing:warden:* &billing:warden:*}.
   *
   * @param keyPrefix the key prefix, as given to the builder
   * @return the rule
   * @throws IllegalArgumentException if the prefix is null or blank
   * @since 0.2
   */
  public static String singleServer(String keyPrefix) {
    if (keyPrefix == null || keyPrefix.isBlank()) {
      throw new IllegalArgumentException("keyPrefix must not be null or blank: " + keyPrefix);
    }
    String pattern = keyPrefix + ":warden:*";
    return SINGLE_SERVER.replace(
        "~warden:* resetchannels &warden:*", "~" + pattern + " resetchannels &" + pattern);
  }

  /**
   * Makes (or remakes) a user on the server with exactly the rule given and the password given,
   * e.g. {@code createUser(server, "app", "secret", WardenAcl.SINGLE_SERVER)}; then connect as
   * {@code redis://app:secret@127.0.0.1:<port>}.
   *
   * @param server the server
   * @param user the user's name
   * @param password its password
   * @param rule ACL rule words, separated by spaces
   * @throws io.lettuce.core.RedisException if the server refuses the rule
   */
  public static void createUser(RedisServer server, String user, String password, String rule) {
    List<String> words = new ArrayList<>(List.of("reset", "on", ">" + password));
    WORDS.splitAsStream(rule.trim()).forEach(words::add);
    setUser(server, user, words);
  }

  /**
   * Changes a user on the server by ACL rule words ({@code ACL SETUSER} without {@code reset}), so
   * that what the words do not mention stays: e.g. a password rotation, {@code changeUser(server,
   * "app", ">new-secret", "<old-secret")}. Each word is passed as it is, spaces included.
   *
   * @param server the server
   * @param user the user's name
   * @param words ACL rule words, one per argument
   * @throws io.lettuce.core.RedisException if the server refuses a word
   * @since 0.2
   */
  public static void changeUser(RedisServer server, String user, String... words) {
    setUser(server, user, List.of(words));
  }

  private static void setUser(RedisServer server, String user, List<String> words) {
    Objects.requireNonNull(server, "server must not be null");
    CommandArgs<String, String> args = new CommandArgs<>(StringCodec.UTF8).add("SETUSER").add(user);
    words.forEach(args::add);
    server.redis().dispatch(CommandType.ACL, new StatusOutput<>(StringCodec.UTF8), args);
  }

  /** The URI of the ACL user of {@link WardenDeployment.Kind#SINGLE_ACL} on the server. */
  static String uriOf(RedisServer server) {
    return "redis://" + USER + ":" + PASSWORD + "@" + server.host() + ":" + server.port();
  }
}
