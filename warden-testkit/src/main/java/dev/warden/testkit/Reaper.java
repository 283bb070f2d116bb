package dev.warden.testkit;

import java.io.IOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * Kills the processes and deletes the directories the testkit still owns when the JVM exits, so a
 * test run that never reached {@code close()} leaves no {@code redis-server} or child JVM behind.
 *
 * <p>Thread-safe. The shutdown hook is registered once, when this class is first used. It cannot
 * help when the JVM itself is killed with SIGKILL.
 */
final class Reaper {
  private static final Set<Process> PROCESSES = ConcurrentHashMap.newKeySet();
  private static final Set<Path> DIRECTORIES = ConcurrentHashMap.newKeySet();

  static {
    Runtime.getRuntime().addShutdownHook(new Thread(Reaper::reap, "warden-testkit-reaper"));
  }

  private Reaper() {}

  static void track(Process process) {
    PROCESSES.add(process);
  }

  static void untrack(Process process) {
    PROCESSES.remove(process);
  }

  static void trackDirectory(Path directory) {
    DIRECTORIES.add(directory);
  }

  static void untrackDirectory(Path directory) {
    DIRECTORIES.remove(directory);
  }

  /** Deletes a directory and everything in it; a directory already gone is not an error. */
  static void deleteRecursively(Path directory) throws IOException {
    if (!Files.exists(directory)) {
      return;
    }
    Files.walkFileTree(
        directory,
        new SimpleFileVisitor<>() {
          @Override
          public FileVisitResult visitFile(Path file, BasicFileAttributes attributes)
              throws IOException {
            Files.deleteIfExists(file);
            return FileVisitResult.CONTINUE;
          }

          @Override
          public FileVisitResult visitFileFailed(Path file, IOException failure)
              throws IOException {
            if (failure instanceof NoSuchFileException) {
              return FileVisitResult.CONTINUE;
            }
            throw failure;
          }

          @Override
          public FileVisitResult postVisitDirectory(Path dir, IOException failure)
              throws IOException {
            if (failure != null) {
              throw failure;
            }
            Files.deleteIfExists(dir);
            return FileVisitResult.CONTINUE;
          }
        });
  }

  private static void reap() {
    for (Process process : PROCESSES) {
      process.destroyForcibly();
    }
    for (Process process : PROCESSES) {
      try {
        // Bounded: a hook that hangs would hang the JVM's exit.
        process.waitFor(2, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
    for (Path directory : DIRECTORIES) {
      try {
        deleteRecursively(directory);
      } catch (IOException | RuntimeException e) {
        // The JVM is exiting and there is no one left to tell; a stray temp dir is harmless.
      }
    }
  }
}
