package dev.warden.bench;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;

/**
 * The critical sections one W7 worker process went through, as it hands them to the benchmark: a
 * binary file per process, written once the process has stopped and read once by the parent. All
 * times are {@link System#nanoTime()} values, which every JVM on one Linux machine reads from the
 * same monotonic clock, so the parent can lay every process's sections on one timeline.
 *
 * <p>Format (big-endian, {@link DataOutputStream}): the magic number {@code W7S1}, the process
 * number (int), its counter after the run (long), the number of sections (int), then per section
 * the thread number (int) and the nanoTime when lock() was called, when it returned and when
 * unlock() was called (three longs): 28 bytes a section.
 *
 * @param process the worker process's number, from 0
 * @param counter the value of the process's plain counter, incremented once inside every section
 * @param sections the sections, in no particular order
 */
record SectionLog(int process, long counter, List<SectionLog.Section> sections) {
  private static final int MAGIC = 0x57375331; // "W7S1"

  /**
   * One critical section: one acquisition and its release.
   *
   * @param process the worker process's number
   * @param thread the thread's number within its process
   * @param calledAt when lock() was called
   * @param acquiredAt when lock() returned
   * @param releasedAt when unlock() was called
   */
  record Section(int process, int thread, long calledAt, long acquiredAt, long releasedAt) {
    /** Returns how long lock() waited. */
    long waitNanos() {
      return acquiredAt - calledAt;
    }
  }

  SectionLog {
    sections = List.copyOf(sections);
  }

  /**
   * Writes this log to {@code file}, through a temporary file moved into place, so that a reader
   * never sees half of it.
   */
  void write(Path file) throws IOException {
    Path partial = file.resolveSibling(file.getFileName() + ".partial");
    try (DataOutputStream out =
        new DataOutputStream(new BufferedOutputStream(Files.newOutputStream(partial), 1 << 16))) {
      out.writeInt(MAGIC);
      out.writeInt(process);
      out.writeLong(counter);
      out.writeInt(sections.size());
      for (Section section : sections) {
        out.writeInt(section.thread());
        out.writeLong(section.calledAt());
        out.writeLong(section.acquiredAt());
        out.writeLong(section.releasedAt());
      }
    }
    Files.move(partial, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
  }

  /**
   * Reads a log that {@link #write} wrote.
   *
   * @throws IOException if the file cannot be read, is cut short or is not such a log
   */
  static SectionLog read(Path file) throws IOException {
    try (DataInputStream in =
        new DataInputStream(new BufferedInputStream(Files.newInputStream(file), 1 << 16))) {
      int magic = in.readInt();
      if (magic != MAGIC) {
        throw new IOException("not a W7 section log: " + file + " (magic " + magic + ")");
      }
      int process = in.readInt();
      long counter = in.readLong();
      int count = in.readInt();
      if (count < 0) {
        throw new IOException("negative section count in " + file + ": " + count);
      }
      List<Section> sections = new ArrayList<>(count);
      for (int i = 0; i < count; i++) {
        sections.add(
            new Section(process, in.readInt(), in.readLong(), in.readLong(), in.readLong()));
      }
      return new SectionLog(process, counter, sections);
    }
  }
}
