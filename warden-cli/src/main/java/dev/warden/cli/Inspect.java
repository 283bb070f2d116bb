package dev.warden.cli;

import dev.warden.LockInfo;
import dev.warden.Warden;
import dev.warden.WardenException;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/** {@code warden inspect NAME}: prints one lock's state as Redis has it, read in one round trip. */
final class Inspect {
  static final String DEFAULT_URI = "redis://127.0.0.1:6379";

  private Inspect() {}

  /** Runs the {@code inspect} command; returns the exit status: 0 shown, 1 Redis failed. */
  static int run(List<String> args, PrintStream out, PrintStream err) {
    Options options =
        Options.parse("inspect", args, Set.of("--uri", "--key-prefix"), Set.of("--cluster"));
    if (options.helpRequested()) {
      out.print(Main.USAGE);
      return 0;
    }
    List<String> names = options.positionals();
    if (names.size() != 1) {
      throw new UsageException(
          names.isEmpty()
              ? "inspect needs a lock name"
              : "inspect takes one lock name, not "
                  + names.size()
                  + ": "
                  + String.join(" ", names));
    }
    String name = names.get(0);
    Target target =
        new Target(
            options.string("--uri", DEFAULT_URI),
            options.flag("--cluster"),
            options.optional("--key-prefix").orElse(null));
    LockInfo info;
    try (Warden warden = target.connect()) {
      info = warden.inspect(name);
    } catch (IllegalArgumentException e) { // a malformed URI, key prefix or lock name
      throw new UsageException(e.getMessage());
    } catch (WardenException e) {
      err.println(
          "warden: cannot inspect lock '"
              + name
              + "' at "
              + target.describe()
              + ": "
              + e.getMessage());
      return 1;
    }
    out.println("Lock '" + name + "' at " + target.describe());
    format(info).forEach(out::println);
    return 0;
  }

  /** Returns the lines that describe {@code info}, labels aligned. */
  static List<String> format(LockInfo info) {
    List<List<String>> rows = new ArrayList<>();
    rows.add(List.of("key", info.key()));
    Map<String, Integer> holders = new TreeMap<>(info.holders());
    if (holders.isEmpty()) {
      rows.add(List.of("state", "free"));
    } else {
      rows.add(List.of("state", "held by " + plural(holders.size(), "owner")));
      int width = holders.keySet().stream().mapToInt(String::length).max().orElse(0);
      holders.forEach(
          (owner, count) ->
              rows.add(List.of("holder", Text.pad(owner, width) + "  " + plural(count, "hold"))));
    }
    rows.add(List.of("time to live", timeToLive(info.remainTimeToLive())));
    rows.add(
        List.of(
            "fencing token",
            "current " + token(info.currentToken()) + ", last issued " + token(info.lastToken())));
    rows.add(List.of("waiting clients", Long.toString(info.waitingClients())));
    return Text.aligned("  ", rows);
  }

  private static String timeToLive(long millis) {
    if (millis == -2) {
      return "none (not locked)";
    }
    if (millis == -1) {
      return "no expiry";
    }
    return Text.millis(millis);
  }

  private static String token(long token) {
    return token < 0 ? "none" : Long.toString(token);
  }

  private static String plural(long n, String noun) {
    return n + " " + noun + (n == 1 ? "" : "s");
  }
}
