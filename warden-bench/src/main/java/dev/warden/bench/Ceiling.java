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
 * The ceiling: what Redis itself manages with a pair of lock-shaped scripts when {@code
 * redis-benchmark} calls them with EVALSHA from 1 and from 16 clients on the same server: {@code
 * ceiling-lock.lua} (check the hash, mint a fencing token from its fence and the server clock,
 * write and expire the hash) and {@code ceiling-unlock.lua} (read the owner and the waiting mark,
 * delete the hash). A lock()+unlock() pair is at least one call of each, so the pair rate (one over
 * the sum of the two scripts' times per call) bounds W1's pairs per second on this machine.
 *
 * @param clients number of redis-benchmark clients to script pairs per second; empty when
 *     redis-benchmark is missing or failed
 * @param note why there is no number, or empty
 */
record Ceiling(Map<Integer, Double> clients, String note) {
  static final List<Integer> CLIENTS = List.of(1, 16);
  static final String SCRIPTS =
      "ceiling-lock.lua (EXISTS + HMGET + TIME + HSET + HSET + PEXPIRE) and ceiling-unlock.lua"
          + " (HMGET + DEL) via EVALSHA";
  private static final Pattern REQUESTS_PER_SECOND =
      Pattern.compile("([0-9.]+) requests per second");
  private static final long TIMEOUT_SECONDS = 120;

  /** Runs redis-benchmark against the server at {@code uri}; never throws for a missing tool. */
  static Ceiling measure(String uri, RedisStats stats, boolean quick) throws InterruptedException {
    List<String> scripts =
        List.of(
            stats.commands().scriptLoad(script("ceiling-lock.lua")),
            stats.commands().scriptLoad(script("ceiling-unlock.lua")));
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
