package dev.warden.testkit;

import java.io.IOException;
import java.nio.charset.Charset;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * One {@code redis-server} or {@code redis-sentinel} process on 127.0.0.1, as {@link RedisServer}
 * and {@link RedisSentinels} run them: started in its own directory with stdout and stderr appended
 * to a log, tracked by the {@link Reaper} so that none outlives the JVM, ready once it answers
 * {@code PING} as itself (its {@code process_id}), signalled, stopped or killed.
 *
 * <p>Not thread-safe: its owner serializes the calls (the server and the sentinel set hold their
 * monitor).
 */
final class RedisProcess {
  static final String HOST = "127.0.0.1";
  static final Duration EXIT_TIMEOUT = Duration.ofSeconds(10);

  private final String name;
  private final int port;
  private final Path log;
  private final Process process;

  private RedisProcess(String name, int port, Path log, Process process) {
    this.name = name;
    this.port = port;
    this.log = log;
    this.process = process;
  }

  /**
   * How long to wait for a process to answer, how long one probe may take, and how often to probe.
   */
  record Readiness(Duration timeout, Duration probeTimeout, long pollMillis) {}

  /**
   * Starts {@code command} in {@code directory}, its output appended to {@code log}, and returns it
   * once it answers {@code PING} on {@code port} as this process; returns {@code null} (the process
   * gone) if it could not bind the port or another process answered there, so the caller may try
   * another port.
   *
   * @param name the executable's name, for messages
   * @param install how to install the executable, e.g. {@code apt-get install redis-server}
   * @throws IllegalStateException if the executable cannot be started, exits for another reason, or
   *     does not answer within {@code readiness.timeout()} (the message quotes the end of its log)
   */
  static RedisProcess start(
      String name,
      List<String> command,
      Path directory,
      Path log,
      int port,
      String install,
      Readiness readiness) {
    Process started;
    try {
      started =
          new ProcessBuilder(command)
              .directory(directory.toFile())
              .redirectErrorStream(true)
              .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
              .start();
    } catch (IOException e) {
      throw new IllegalStateException(
          "cannot start " + command.get(0) + " (install it, e.g. " + install + ")", e);
    }
    Reaper.track(started);
    RedisProcess process = new RedisProcess(name, port, log, started);
    return process.awaitReady(readiness) ? process : null;
  }

  long pid() {
    return process.pid();
  }

  boolean isAlive() {
    return process.isAlive();
  }

  /** Returns the end of the process's log, for messages. */
  String tail() {
    return LogTail.of(log);
  }

  /**
   * Asks the process to {@code SHUTDOWN NOSAVE}, and kills it if it has not exited within 10 s.
   * Does nothing more than forget it if it is down already.
   */
  void stop() {
    if (process.isAlive()) {
      try {
        RedisCli.call(HOST, port, Duration.ofSeconds(1), "SHUTDOWN", "NOSAVE");
      } catch (IOException e) {
        // Unreachable or refused: SIGKILL below ends it all the same.
      }
      if (!awaitExit(EXIT_TIMEOUT)) {
        process.destroyForcibly();
        awaitExit(EXIT_TIMEOUT);
      }
    }
    Reaper.untrack(process);
  }

  /** Kills the process with SIGKILL and waits up to 10 s for it to exit. */
  void kill() {
    process.destroyForcibly();
    awaitExit(EXIT_TIMEOUT);
    Reaper.untrack(process);
  }

  /**
   * Sends a signal by name ({@code "STOP"}, {@code "CONT"}) with {@code kill}.
   *
   * @throws IllegalStateException if {@code kill} fails or does not finish within 10 s
   */
  void signal(String signal) {
    long pid = process.pid();
    Process kill;
    try {
      kill =
          new ProcessBuilder("kill", "-" + signal, Long.toString(pid))
              .redirectErrorStream(true)
              .start();
    } catch (IOException e) {
      throw new IllegalStateException("cannot run `kill -" + signal + " " + pid + "`", e);
    }
    int exitCode;
    try {
      if (!kill.waitFor(EXIT_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
        kill.destroyForcibly();
        throw new IllegalStateException("`kill -" + signal + " " + pid + "` did not finish");
      }
      exitCode = kill.exitValue();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while sending SIG" + signal + " to " + pid, e);
    }
    if (exitCode != 0) {
      String output;
      try {
        output = new String(kill.getInputStream().readAllBytes(), Charset.defaultCharset()).trim();
      } catch (IOException e) {
        output = e.toString();
      }
      throw new IllegalStateException(
          "`kill -" + signal + " " + pid + "` exited with " + exitCode + ": " + output);
    }
  }

  /**
   * Waits until the process answers {@code PING} as itself; returns {@code false}, the process
   * gone, if it could not bind its port or another process owns the port.
   */
  private boolean awaitReady(Readiness readiness) {
    long deadline = System.nanoTime() + readiness.timeout().toNanos();
    while (true) {
      if (!process.isAlive()) {
        Reaper.untrack(process);
        String tail = tail();
        if (tail.contains("Address already in use")) {
          return false;
        }
        throw new IllegalStateException(
            name + " on port " + port + " exited with " + process.exitValue() + "; " + tail);
      }
      try {
        if ("PONG".equals(RedisCli.call(HOST, port, readiness.probeTimeout(), "PING"))) {
          String info = RedisCli.call(HOST, port, readiness.probeTimeout(), "INFO", "server");
          if (info.contains("process_id:" + process.pid() + "\n")
              || info.contains("process_id:" + process.pid() + "\r")) {
            return true;
          }
          kill(); // our process lost the race for the port to another one, which answered instead
          return false;
        }
      } catch (IOException e) {
        // Not listening yet.
      }
      if (System.nanoTime() - deadline > 0) {
        kill();
        throw new IllegalStateException(
            name
                + " on port "
                + port
                + " did not answer PING within "
                + readiness.timeout()
                + "; "
                + tail());
      }
      // The poll interval; waitFor rather than sleep, so that a crash ends the wait at once.
      awaitExit(Duration.ofMillis(readiness.pollMillis()));
    }
  }

  /**
   * Waits up to {@code timeout} for the process to exit; on an interrupt, kills it, restores the
   * flag and throws.
   */
  private boolean awaitExit(Duration timeout) {
    try {
      return process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      process.destroyForcibly();
      throw new IllegalStateException(
          "interrupted while waiting for " + name + " (pid " + process.pid() + ") to exit", e);
    }
  }
}
