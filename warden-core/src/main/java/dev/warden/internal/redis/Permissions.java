package dev.warden.internal.redis;

/**
 * The smallest Redis ACL rules under which Warden does everything, and how a refusal by one of them
 * is reported. docs/security.md quotes the same rules; {@code AclContractIT} runs the contract
 * suites under a user with exactly the single-server rule.
 */
public final class Permissions {
  /**
   * Every key and channel Warden uses starts with this (see {@link ObjectKeys}); under a key prefix
   * {@code P}, with {@code P:warden:} ({@link Namespace}).
   */
  public static final String NAMESPACE = "warden:";

  /** The commands Warden's scripts call and the client sends, on one server and Sentinel. */
  public static final String SINGLE_SERVER_RULE =
      "resetkeys ~warden:* resetchannels &warden:* -@all"
          // sent by the client: connection set-up, scripts, wake-ups, read-only queries
          + " +client|setname +evalsha +eval +subscribe +unsubscribe +pubsub|numsub"
          + " +get +hget +hmget +hexists +pttl +wait +info"
          // called inside the scripts, which run with the caller's permissions
          + " +del +exists +set +incr +incrby +decrby +type +persist +pexpire +time +publish"
          + " +hset +hdel +hgetall +hincrby"
          + " +zadd +zcard +zcount +zrange +zrangebyscore +zrem +zremrangebyscore +zscore";

  /** What a Sentinel deployment needs on its data nodes besides the single-server rule. */
  public static final String SENTINEL_EXTRA = "+role";

  /** What a cluster needs on every node besides the single-server rule. */
  public static final String CLUSTER_EXTRA =
      "+cluster|nodes +cluster|myid +cluster|info +spublish +ssubscribe +sunsubscribe"
          + " +pubsub|shardnumsub";

  private Permissions() {}

  /**
   * Returns whether the server refused a command for want of an ACL permission: a {@code NOPERM}
   * reply (Redis: {@code "NOPERM this user has no permissions to run the 'x' command"}, Valkey:
   * {@code "NOPERM User app has no permissions to run the 'x' command"}), or its form inside a
   * script (Redis: {@code "The user executing the script can't run this command"}, Valkey: {@code
   * "ACL failure in script: User app has no permissions ..."}).
   */
  public static boolean isRefusal(String message) {
    return message != null
        && (message.startsWith("NOPERM")
            || message.contains("The user executing the script")
            || message.contains("ACL failure in script"));
  }

  /**
   * Explains a refusal: what the server refused (the command, key or channel when it says so; for a
   * script, the script's failing line, or on Valkey the command) and the rule that lets Warden
   * work.
   */
  public static String explain(String redisMessage) {
    return "the Redis user lacks a permission Warden needs (the server said: "
        + redisMessage.strip()
        + "); give it the ACL rule of docs/security.md: "
        + SINGLE_SERVER_RULE
        + " (plus "
        + SENTINEL_EXTRA
        + " under Sentinel, "
        + CLUSTER_EXTRA
        + " on a cluster; under a key prefix P, ~P:warden:* &P:warden:* in place of ~warden:*"
        + " &warden:*)";
  }

  /**
   * The single-server rule for the keys and channels of a namespace: {@link #SINGLE_SERVER_RULE}
   * with the namespace's patterns in place of {@code ~warden:* &warden:*}.
   */
  public static String singleServerRule(Namespace namespace) {
    return SINGLE_SERVER_RULE.replace(
        "~warden:* resetchannels &warden:*",
        "~" + namespace.pattern() + " resetchannels &" + namespace.pattern());
  }
}
