package dev.warden.cli;

import java.io.PrintStream;
import java.util.Arrays;
import java.util.List;

/**
 * The {@code warden} command: dispatches to a subcommand and turns its outcome into an exit status
 * (0 success, 1 failure, 2 usage error).
 */
public final class Main {
  static final String USAGE =
      """
      Usage: warden <command> [options]

      Commands:
        demo       Runs worker processes that increment one counter under one lock,
                   then checks that no increment was lost and fencing tokens only grew.
                     --uri URI      Redis to use (default: a throwaway redis-server);
                                    redis://, rediss://, redis-sentinel://h:p,h:p#master
                     --cluster      a throwaway 3+3 Redis Cluster; with --uri, the URI
                                    lists seeds of your cluster (comma-separated)
                     --sentinel     a throwaway Sentinel set (a master, 2 replicas,
                                    3 sentinels)
                     --failover     with --cluster or --sentinel: fails the lock's
                                    master over half-way through the run
                     --workers N    worker processes, 1-%d (default 4)
                     --threads T    threads per worker, 1-%d (default 4)
                     --seconds S    how long the workers run, 1-%d (default 10)
                     --lock NAME    lock name (default %s)
                     --key-prefix P the workers' Warden keys under P:warden: (keyPrefix)
        inspect    Prints a lock's holders, time to live, fencing tokens and waiting clients.
                     NAME           the lock name
                     --uri URI      Redis to ask (default %s)
                     --cluster      the URI lists seeds of a Redis Cluster
                     --key-prefix P the lock of a Warden built with keyPrefix(P)
        doctor     Checks what a deployment allows of what Warden needs there (the checks
                   Warden's build() makes): scripts, TIME and PUBLISH (SPUBLISH on a
                   cluster) from a script, the scripts' commands under your ACL user,
                   SUBSCRIBE (SSUBSCRIBE), CLUSTER MYID/INFO on a cluster, one writable
                   master. Prints each as ok, refused (the server's words, what to do)
                   or not checked, then who would publish wake-ups (the client, where
                   scripts may not); exit status 1 if one is refused.
                     --uri URI      Redis to check (default %s)
                     --cluster      the URI lists seeds of a Redis Cluster
                     --key-prefix P checks under P:warden: (keyPrefix; the ACL user's
                                    key pattern must cover it)
        chaos      Runs worker processes that use locks (reentrant, fair, read-write),
                   semaphores and latches on a throwaway deployment while faults are
                   injected (restarts, also from an older snapshot; freezes; pub/sub
                   kills; partitions; failovers; a worker stopped past its lease), then
                   checks from their logs, replayed against a resource that checks
                   fencing tokens, that no two sections held a lock at once (readers
                   apart), every lost lease was reported and explained by a fault, no
                   permit was created, every wait kept its bound, and nothing leaked.
                   Prints the figures; exit status 1 on a violation.
                     --deployment D single, sentinel, cluster or all (default single)
                     --minutes N    how long each deployment runs (default 2)
                     --seconds S    instead of --minutes, at least 20
                     --workers K    worker processes, 1-%d (default 3)
                     --threads T    threads per worker, 1-%d (default 3)
                     --seed S       the faults' and operations' random seed
                     --out DIR      where the logs go (default a new temporary directory)
                     --check DIR    runs the checker again on the logs of an earlier run
                     --wake-ups W   who publishes wake-ups: client, scripts or auto
                                    (default auto: the scripts where the server allows)
        bench      Measures Warden against Redisson on one Redis (module warden-bench;
                   ./warden bench --help lists its options).
        help       Prints this text.

      Exit status: 0 success or PASS, 1 failure or FAIL, 2 bad command line.
      """
          .formatted(
              Demo.MAX_WORKERS,
              Demo.MAX_THREADS,
              Demo.MAX_SECONDS,
              Demo.DEFAULT_LOCK,
              Inspect.DEFAULT_URI,
              Inspect.DEFAULT_URI,
              Chaos.MAX_WORKERS,
              Chaos.MAX_THREADS);

  private Main() {}

  /** Runs the command line and exits with its status. */
  public static void main(String[] args) {
    // A command line tool shows its own messages; library chatter below WARN is noise here.
    if (System.getProperty("org.slf4j.simpleLogger.defaultLogLevel") == null) {
      System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", "warn");
    }
    int status;
    try {
      status = run(args, System.out, System.err);
    } catch (RuntimeException | Error e) {
      e.printStackTrace();
      status = 1;
    }
    System.out.flush();
    System.exit(status); // Redis client threads must not keep the JVM alive
  }

  /** Runs the command line, writing to {@code out} and {@code err}; returns the exit status. */
  static int run(String[] args, PrintStream out, PrintStream err) {
    if (args.length == 0) {
      out.print(USAGE);
      return 0;
    }
    String command = args[0];
    List<String> rest = Arrays.asList(args).subList(1, args.length);
    try {
      return switch (command) {
        case "demo" -> Demo.run(rest, out, err);
        case "worker" -> DemoWorker.run(rest, System.in, out, err);
        case "inspect" -> Inspect.run(rest, out, err);
        case "doctor" -> Doctor.run(rest, out, err);
        case "chaos" -> Chaos.run(rest, out, err);
        case "chaos-worker" -> ChaosWorker.run(rest, System.in, out, err);
        case "help", "-h", "--help" -> {
          out.print(USAGE);
          yield 0;
        }
        default -> {
          err.println("warden: unknown command: " + command);
          err.println();
          err.print(USAGE);
          yield 2;
        }
      };
    } catch (UsageException e) {
      err.println("warden: " + e.getMessage());
      err.println("Run 'warden help' for usage.");
      return 2;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      err.println("warden: interrupted");
      return 1;
    }
  }
}
