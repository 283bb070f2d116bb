package dev.warden;

/**
 * Who publishes the wake-up a release sends to the clients waiting for that object (set with {@link
 * Warden.Builder#wakeUps(WakeUps)}; {@link DeploymentReport#wakeUps()} tells which one {@code
 * build()} uses).
 *
 * <p>Each release, and every other call that can let a waiter in, publishes a pub/sub message on
 * the object's channel ({@code SPUBLISH} on a cluster). Normally its Lua script publishes it, in
 * the same atomic step. Some proxies and managed services refuse pub/sub commands inside scripts
 * while serving them to clients (docs/deployments.md, "Supported servers"); there the client
 * publishes the wake-ups its script recorded, right after the script's reply, on the same
 * connection.
 *
 * @since 0.2
 */
public enum WakeUps {
  /**
   * The default: {@link #FROM_SCRIPTS} where the server allows {@code PUBLISH} ({@code SPUBLISH})
   * from a script, else {@link #FROM_CLIENT} where the client may publish; {@code build()} refuses
   * a deployment that allows neither, naming both.
   */
  AUTO,

  /**
   * Scripts publish their own wake-ups, atomically with what they change. {@code build()} refuses a
   * deployment that refuses {@code PUBLISH} ({@code SPUBLISH}) from a script.
   */
  FROM_SCRIPTS,

  /**
   * Scripts record their wake-ups and the client publishes them after the reply: one more command
   * for each call that wakes somebody (pipelined behind the script, not waited for). A wake-up is
   * lost if the client dies, or its connection drops, between the reply and the publish; the
   * waiters then find out at their next recheck ({@link Warden.Builder#recheckInterval}), as after
   * any lost pub/sub message. {@code build()} refuses a deployment that refuses {@code PUBLISH}
   * ({@code SPUBLISH}) from the client.
   */
  FROM_CLIENT
}
