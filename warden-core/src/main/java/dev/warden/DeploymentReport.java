package dev.warden;

import java.util.List;
import java.util.Objects;

/**
 * What a Redis deployment allows of what Warden needs there, as {@link Warden.Builder#check()}
 * found it: scripts, {@code TIME} and the wake-up publish from a script, the commands of Warden's
 * scripts under the connected user's ACL, the wake-up subscription, {@code CLUSTER MYID/INFO} on a
 * cluster, {@code WAIT} under a replication policy, and a single writable master. {@link
 * Warden.Builder#build()} runs the same checks and refuses a deployment with a {@link
 * Status#REFUSED} one, naming it.
 *
 * <p>Immutable and thread-safe. {@link #toString()} is the report {@code warden doctor} prints: one
 * line per check, never with a password.
 *
 * @since 0.2
 */
public final class DeploymentReport {
  /** The outcome of one check. */
  public enum Status {
    /** The deployment allows it. */
    OK,
    /** The deployment refused it: Warden cannot work there as configured. */
    REFUSED,
    /** Not checked: the deployment did not say (e.g. {@code INFO} refused); not an error. */
    NOT_CHECKED
  }

  /**
   * One check: what was checked, its outcome, the server's own words when it refused, and what to
   * do.
   *
   * @param name what Warden needs, e.g. {@code "PUBLISH from a script"}
   * @param status the outcome
   * @param serverSaid the server's reply when it refused (or why it was not checked), else empty
   * @param fix what to do about a refusal, else empty
   */
  public record Check(String name, Status status, String serverSaid, String fix) {
    /**
     * Checks the fields.
     *
     * @param name what Warden needs
     * @param status the outcome
     * @param serverSaid the server's reply when it refused, else empty
     * @param fix what to do about a refusal, else empty
     * @throws NullPointerException if one is null
     */
    public Check {
      Objects.requireNonNull(name, "name");
      Objects.requireNonNull(status, "status");
      Objects.requireNonNull(serverSaid, "serverSaid");
      Objects.requireNonNull(fix, "fix");
    }

    /**
     * Returns the check as one line: {@code "PUBLISH from a script: refused (...); fix"}.
     *
     * @return the line
     */
    @Override
    public String toString() {
      return switch (status) {
        case OK -> name + ": ok";
        case NOT_CHECKED -> name + ": not checked (" + serverSaid + ")";
        case REFUSED -> name + ": refused (the server said: " + serverSaid + "); " + fix;
      };
    }
  }

  private final String deployment;
  private final List<Check> checks;
  private final WakeUps wakeUps;

  /**
   * Creates a report whose wake-ups are published by the scripts.
   *
   * @param deployment the deployment checked, without credentials
   * @param checks the checks, in the order they are reported
   */
  public DeploymentReport(String deployment, List<Check> checks) {
    this(deployment, checks, WakeUps.FROM_SCRIPTS);
  }

  /**
   * Creates a report.
   *
   * @param deployment the deployment checked, without credentials
   * @param checks the checks, in the order they are reported
   * @param wakeUps who publishes wake-ups there: {@link WakeUps#FROM_SCRIPTS} or {@link
   *     WakeUps#FROM_CLIENT}
   * @throws IllegalArgumentException if {@code wakeUps} is {@link WakeUps#AUTO} (a report says what
   *     was chosen)
   * @since 0.2
   */
  public DeploymentReport(String deployment, List<Check> checks, WakeUps wakeUps) {
    this.deployment = Objects.requireNonNull(deployment, "deployment");
    this.checks = List.copyOf(checks);
    this.wakeUps = Objects.requireNonNull(wakeUps, "wakeUps");
    if (wakeUps == WakeUps.AUTO) {
      throw new IllegalArgumentException("wakeUps must be FROM_SCRIPTS or FROM_CLIENT: AUTO");
    }
  }

  /**
   * Returns the deployment checked, as its address without credentials.
   *
   * @return the address
   */
  public String deployment() {
    return deployment;
  }

  /**
   * Returns who publishes wake-ups on this deployment, as {@link Warden.Builder#build()} would run
   * there: {@link WakeUps#FROM_SCRIPTS}, or {@link WakeUps#FROM_CLIENT} when it was asked for, or
   * when {@link WakeUps#AUTO} found {@code PUBLISH} refused inside scripts and allowed to the
   * client. When neither is allowed the report refuses it (see {@link #refused()}) and this is the
   * mode that was asked for ({@code FROM_SCRIPTS} for {@code AUTO}).
   *
   * @return {@link WakeUps#FROM_SCRIPTS} or {@link WakeUps#FROM_CLIENT}, never {@code AUTO}
   * @since 0.2
   */
  public WakeUps wakeUps() {
    return wakeUps;
  }

  /**
   * Returns every check, in report order.
   *
   * @return the checks
   */
  public List<Check> checks() {
    return checks;
  }

  /**
   * Returns the checks the deployment refused; empty if Warden can work there.
   *
   * @return the refused checks
   */
  public List<Check> refused() {
    return checks.stream().filter(check -> check.status() == Status.REFUSED).toList();
  }

  /**
   * Returns whether the deployment refused nothing Warden needs.
   *
   * @return true if no check was refused
   */
  public boolean ok() {
    return refused().isEmpty();
  }

  /**
   * Returns the report: the deployment, then one line per check, then who publishes wake-ups.
   *
   * @return the report's text
   */
  @Override
  public String toString() {
    StringBuilder text = new StringBuilder(deployment).append('\n');
    for (Check check : checks) {
      text.append("  ").append(check).append('\n');
    }
    text.append("  wake-ups: ")
        .append(
            wakeUps == WakeUps.FROM_CLIENT
                ? "published by the client after each script (WakeUps.FROM_CLIENT)"
                : "published by the scripts (WakeUps.FROM_SCRIPTS)")
        .append('\n');
    return text.toString();
  }
}
