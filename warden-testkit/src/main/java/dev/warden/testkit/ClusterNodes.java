package dev.warden.testkit;

import io.lettuce.core.cluster.SlotHash;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.Set;

/**
 * What one node of a {@link RedisCluster} says of the cluster: its {@code CLUSTER NODES}, parsed.
 */
final class ClusterNodes {
  private static final int SLOTS = SlotHash.SLOT_COUNT;

  private ClusterNodes() {}

  /** One node's {@code CLUSTER NODES}. */
  static final class Topology {
    final String text;
    final List<Line> lines;

    private Topology(String text, List<Line> lines) {
      this.text = text;
      this.lines = lines;
    }

    static Topology parse(String text) {
      List<Line> lines = new ArrayList<>();
      for (String row : text.split("\n", -1)) {
        if (!row.isBlank()) {
          lines.add(Line.parse(row.trim()));
        }
      }
      return new Topology(text, List.copyOf(lines));
    }

    Line self() {
      for (Line line : lines) {
        if (line.flags.contains("myself")) {
          return line;
        }
      }
      return null;
    }

    Line at(int port) {
      for (Line line : lines) {
        if (line.port == port) {
          return line;
        }
      }
      return null;
    }

    Line byId(String id) {
      for (Line line : lines) {
        if (line.id.equals(id)) {
          return line;
        }
      }
      return null;
    }

    Line ownerOf(int slot) {
      for (Line line : lines) {
        if (line.slots.get(slot)) {
          return line;
        }
      }
      return null;
    }
  }

  /**
   * One row: {@code <id> <ip:port@bus[,host]> <flags> <master|-> <ping> <pong> <epoch> <link> <slot
   * ranges...>}.
   */
  static final class Line {
    final String id;
    final int port;
    final Set<String> flags;
    final String masterId;
    final BitSet slots;

    private Line(String id, int port, Set<String> flags, String masterId, BitSet slots) {
      this.id = id;
      this.port = port;
      this.flags = flags;
      this.masterId = masterId;
      this.slots = slots;
    }

    static Line parse(String row) {
      String[] fields = row.split(" ", -1);
      String address = fields[1];
      int colon = address.lastIndexOf(':');
      int at = address.indexOf('@');
      int port = Integer.parseInt(address.substring(colon + 1, at < 0 ? address.length() : at));
      BitSet slots = new BitSet(SLOTS);
      for (int i = 8; i < fields.length; i++) {
        String range = fields[i];
        if (range.isEmpty() || range.startsWith("[")) {
          continue; // a slot being imported or migrated: still owned by the row it names
        }
        int dash = range.indexOf('-');
        if (dash < 0) {
          slots.set(Integer.parseInt(range));
        } else {
          slots.set(
              Integer.parseInt(range.substring(0, dash)),
              Integer.parseInt(range.substring(dash + 1)) + 1);
        }
      }
      return new Line(fields[0], port, Set.of(fields[2].split(",", -1)), fields[3], slots);
    }

    boolean isMaster() {
      return flags.contains("master");
    }

    boolean isReplica() {
      return flags.contains("slave");
    }

    boolean failed() {
      return flags.contains("fail") || flags.contains("fail?") || flags.contains("noaddr");
    }
  }
}
