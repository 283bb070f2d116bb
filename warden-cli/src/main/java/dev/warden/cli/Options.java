package dev.warden.cli;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The arguments of one subcommand: {@code --name value} or {@code --name=value} options from a
 * known set, flags ({@code --name} alone) from another, {@code -h}/{@code --help}, and positional
 * arguments ({@code --} ends the options).
 *
 * <p>Every error is a {@link UsageException} whose message names the option and the value given, so
 * that the user sees what to fix. Immutable once parsed.
 */
final class Options {
  private final String command;
  private final Map<String, String> values;
  private final List<String> positionals;
  private final boolean helpRequested;
  private final Set<String> flags;

  private Options(
      String command,
      Map<String, String> values,
      Set<String> flags,
      List<String> positionals,
      boolean help) {
    this.command = command;
    this.values = Map.copyOf(values);
    this.flags = Set.copyOf(flags);
    this.positionals = List.copyOf(positionals);
    this.helpRequested = help;
  }

  /**
   * Parses {@code args} of {@code command}; a repeated option keeps its last value.
   *
   * @throws UsageException for an option not in {@code known} or an option without a value
   */
  static Options parse(String command, List<String> args, Set<String> known) {
    return parse(command, args, known, Set.of());
  }

  /**
   * Parses {@code args} of {@code command}, whose options in {@code flags} take no value.
   *
   * @throws UsageException for an option in neither set, an option without a value, or a flag given
   *     a value
   */
  static Options parse(
      String command, List<String> args, Set<String> known, Set<String> knownFlags) {
    Map<String, String> values = new HashMap<>();
    Set<String> flags = new HashSet<>();
    List<String> positionals = new ArrayList<>();
    boolean help = false;
    for (int i = 0; i < args.size(); i++) {
      String arg = args.get(i);
      if (arg.equals("--")) {
        positionals.addAll(args.subList(i + 1, args.size()));
        break;
      }
      if (arg.equals("-h") || arg.equals("--help")) {
        help = true;
        continue;
      }
      if (!arg.startsWith("-") || arg.equals("-")) {
        positionals.add(arg);
        continue;
      }
      int equals = arg.indexOf('=');
      String name = equals < 0 ? arg : arg.substring(0, equals);
      if (knownFlags.contains(name)) {
        if (equals >= 0) {
          throw new UsageException(name + " takes no value: " + arg);
        }
        flags.add(name);
        continue;
      }
      if (!known.contains(name)) {
        throw new UsageException("unknown option for " + command + ": " + name);
      }
      String value;
      if (equals >= 0) {
        value = arg.substring(equals + 1);
      } else if (i + 1 < args.size() && !args.get(i + 1).startsWith("--")) {
        value = args.get(++i);
      } else {
        throw new UsageException(name + " needs a value");
      }
      values.put(name, value);
    }
    return new Options(command, values, flags, positionals, help);
  }

  /** Returns whether {@code -h} or {@code --help} was given. */
  boolean helpRequested() {
    return helpRequested;
  }

  /** Returns whether the flag {@code option} was given. */
  boolean flag(String option) {
    return flags.contains(option);
  }

  /** Returns the positional arguments in order. */
  List<String> positionals() {
    return positionals;
  }

  /** Throws {@link UsageException} if any positional argument was given. */
  void requireNoPositionals() {
    if (!positionals.isEmpty()) {
      throw new UsageException(
          command + " takes no arguments, only options: " + String.join(" ", positionals));
    }
  }

  /** Returns the value of {@code option}, if given. */
  Optional<String> optional(String option) {
    return Optional.ofNullable(values.get(option)).map(value -> requireText(option, value));
  }

  /** Returns the value of {@code option}, or {@code fallback} if it was not given. */
  String string(String option, String fallback) {
    return optional(option).orElse(fallback);
  }

  /** Returns the value of {@code option}; throws {@link UsageException} if it was not given. */
  String required(String option) {
    return optional(option)
        .orElseThrow(() -> new UsageException(command + " needs " + option + " <value>"));
  }

  /**
   * Returns the whole number given for {@code option}, or {@code fallback} if it was not given.
   *
   * @throws UsageException naming the option and the value if it is not a whole number from {@code
   *     min} to {@code max}
   */
  int intInRange(String option, int fallback, int min, int max) {
    String text = values.get(option);
    if (text == null) {
      return fallback;
    }
    Integer value = parseIntOrNull(text.strip());
    if (value == null || value < min || value > max) {
      throw new UsageException(
          option + " must be a whole number from " + min + " to " + max + ": " + text);
    }
    return value;
  }

  private static Integer parseIntOrNull(String text) {
    try {
      return Integer.valueOf(text);
    } catch (NumberFormatException notAWholeNumber) {
      return null;
    }
  }

  private static String requireText(String option, String value) {
    if (value.isBlank()) {
      throw new UsageException(option + " must not be empty: '" + value + "'");
    }
    return value;
  }
}
