package dev.warden.bench;

import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The ceiling: what Redis itself manages for an uncontended lock()+unlock() pair when {@code
 * redis-benchmark} (a C client) calls lock-shaped scripts with EVALSHA from 1, 16 and 64 clients on
 * the same server. {@code ceiling-pair.lua} does the commands of both halves in one call (check the
 * hash, mint a fencing token from its fence and the server clock, write and expire the hash; read
 * the owner and the waiting mark, delete the hash), so every call, whatever key redis-benchmark's
 * random keys repeat, acquires a free lock and releases a held one; {@code ceiling-call.lua} is the
 * second call a real pair makes (a script that does nothing), whose time per call is added. The
 * pair rate is one over the sum of the two scripts' times per call: it bounds W1's pairs per second
 * on this server, the best of 16 and 64 clients being what Redis sustains at most ({@link
 * #best()}).
 *
 * @param clients number of redis-benchmark clients to pairs per second; empty when redis-benchmark
 *     is missing or failed
 * @param note why there is no number, or empty
 */
record Ceiling(Map<Integer, Double> clients, String note) {
  static final List<Integer> CLIENTS = List.of(1, 16, 64);
  static final String SCRIPTS =
      "ceiling-pair.lua (EXISTS + HMGET + TIME + HSET + HSET + PEXPIRE, then HMGET + DEL: a whole"
          + " pair's commands on a free lock, every call) plus one call of ceiling-call.lua (an empty"
          + " script: the second call of a pair), via EVALSHA";
  private static final Pattern REQUESTS_PER_SECOND =
      Pattern.compile("([0-9.]+) requests per second");
  private static final long TIMEOUT_SECONDS = 120;

  /** Runs redis-benchmark against the server at {@code uri}; never throws for a missing tool. */
  static Ceiling measure(String uri, RedisStats stats, boolean quick) throws InterruptedException {
    List<String> scripts =
        List.of(
            stats.commands().scriptLoad(script("ceiling-pair.lua")),
            stats.commands().scriptLoad(script("ceiling-call.lua")));
    List<String> connection = connectionArguments(URI.create(uri));
    Map<Integer, Double> rates = new LinkedHashMap<>();
    for (int clients : CLIENTS) {
      int requests = (quick ? 5_000 : 50_000) * (clients == 1 ? 1 : 4);
      double secondsPerPair = 0;
      for (String sha : scripts) {
        List<String> command = new ArrayList<>(List.of("redis-benchmark"));
        command.addAll(connection);
        command.addAll(
            List.of(
                "-c",
                Integer.toString(clients),
                "-n",
                Integer.toString(requests),
                "-r",
                "100000",
                "-q",
                "EVALSHA",
                sha,
                "1",
                "warden-bench:ceiling:__rand_int__",
                "owner",
                "30000"));
        Optional<Double> rate;
        try {
          rate = run(command);
        } catch (IOException e) {
          return new Ceiling(
              Map.of(),
              "redis-benchmark did not run (apt-get install redis-tools): " + e.getMessage());
        }
        if (rate.isEmpty()) {
          return new Ceiling(Map.of(), "redis-benchmark printed no rate");
        }
        secondsPerPair += 1 / rate.get();
      }
      rates.put(clients, 1 / secondsPerPair);
    }
    return new Ceiling(rates, "");
  }

  /** Returns redis-benchmark's host, port and credential options for a redis:// URI. */
  static List<String> connectionArguments(URI uri) {
    List<String> arguments = new ArrayList<>();
    arguments.addAll(
        List.of(
            "-h", uri.getHost(), "-p", Integer.toString(uri.getPort() < 0 ? 6379 : uri.getPort())));
    String userInfo = uri.getUserInfo();
    if (userInfo != null && !userInfo.isEmpty()) {
      int colon = userInfo.indexOf(':');
      String user = colon < 0 ? "" : userInfo.substring(0, colon);
      String password = colon < 0 ? userInfo : userInfo.substring(colon + 1);
      if (!user.isEmpty()) {
        arguments.addAll(List.of("--user", user));
      }
      arguments.addAll(List.of("-a", password, "--no-auth-warning"));
    }
    return arguments;
  }

  private static Optional<Double> run(List<String> command)
      throws IOException, InterruptedException {
    Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
    byte[] output = process.getInputStream().readAllBytes();
    if (!process.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
      process.destroyForcibly();
      throw new IOException("timed out after " + TIMEOUT_SECONDS + " s");
    }
    // -q prints progress lines ending in \r and then one "...: N requests per second" line.
    Matcher matcher = REQUESTS_PER_SECOND.matcher(new String(output, StandardCharsets.UTF_8));
    Double rate = null;
    while (matcher.find()) {
      rate = Double.valueOf(matcher.group(1));
    }
    return Optional.ofNullable(rate);
  }

  private static String script(String name) {
    try (InputStream in = Ceiling.class.getResourceAsStream(name)) {
      if (in == null) {
        throw new IllegalStateException(name + " is missing from the classpath");
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new IllegalStateException("cannot read " + name, e);
    }
  }

  /** Returns the script pairs per second with {@code clients} clients, or NaN. */
  double rate(int clients) {
    return clients().getOrDefault(clients, Double.NaN);
  }

  /**
   * Returns the most pairs per second Redis sustained: the best of 16 and 64 clients (16 saturate
   * one server here; with a round trip to Redis it takes more in flight), or NaN.
   */
  double best() {
    double best = Math.max(rate(16), rate(64));
    return Double.isNaN(rate(16)) ? rate(64) : Double.isNaN(rate(64)) ? rate(16) : best;
  }

  /** Returns how many clients {@link #best()} had, or 0 when there is none. */
  int bestClients() {
    double best = best();
    return Double.isNaN(best) ? 0 : best == rate(64) ? 64 : 16;
  }

  Map<String, Object> toJson() {
    Map<String, Object> json = new LinkedHashMap<>();
    json.put("scripts", SCRIPTS);
    clients.forEach((n, rate) -> json.put("clients_" + n + "_pairs_per_s", rate));
    if (!note.isEmpty()) {
      json.put("note", note);
    }
    return json;
  }
}
