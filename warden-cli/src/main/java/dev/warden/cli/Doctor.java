package dev.warden.cli;

import dev.warden.DeploymentReport;
import dev.warden.WardenException;
import java.io.PrintStream;
import java.util.List;
import java.util.Set;

/**
 * {@code warden doctor --uri URI [--cluster] [--key-prefix P]}: prints what a deployment allows of
 * what Warden needs there (under the key prefix, if given: the probe's key and channel are in it),
 * the same checks {@code Warden.Builder.build()} makes ({@code Warden.Builder.check()}): each
 * capability ok, refused (with the server's words and what to do) or not checked, then who would
 * publish wake-ups ({@code WakeUps.AUTO}'s choice: the client where scripts may not). Never prints
 * a password.
 */
final class Doctor {
  private Doctor() {}

  /** Runs the command; returns the exit status: 0 nothing refused, 1 a refusal or no connection. */
  static int run(List<String> args, PrintStream out, PrintStream err) {
    Options options =
        Options.parse("doctor", args, Set.of("--uri", "--key-prefix"), Set.of("--cluster"));
    if (options.helpRequested()) {
      out.print(Main.USAGE);
      return 0;
    }
    if (!options.positionals().isEmpty()) {
      throw new UsageException(
          "doctor takes no arguments besides its options: "
              + String.join(" ", options.positionals()));
    }
    Target target =
        new Target(
            options.string("--uri", Inspect.DEFAULT_URI),
            options.flag("--cluster"),
            options.optional("--key-prefix").orElse(null));
    DeploymentReport report;
    try {
      report = target.check();
    } catch (IllegalArgumentException e) { // a malformed URI or key prefix
      throw new UsageException(e.getMessage());
    } catch (WardenException e) {
      out.println(target.describe());
      out.println("  connect: refused (" + e.getMessage() + ")");
      out.println("verdict: Warden cannot connect");
      return 1;
    }
    out.print(report);
    if (target.keyPrefix() != null) {
      out.println(
          "  key prefix "
              + target.keyPrefix()
              + ": checked under "
              + target.keyPrefix()
              + ":warden:* (keys and channels)");
    }
    out.println(
        report.ok()
            ? "verdict: Warden can work here"
            : "verdict: Warden cannot work here as configured: "
                + report.refused().size()
                + " refused");
    return report.ok() ? 0 : 1;
  }
}
