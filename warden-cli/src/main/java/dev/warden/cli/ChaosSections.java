package dev.warden.cli;

import dev.warden.cli.ChaosChecker.Event;
import dev.warden.cli.ChaosChecker.Fault;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * The lock sections of a {@code warden chaos} run, replayed against a protected resource that
 * checks fencing tokens, and the leases they lost.
 *
 * <p><b>The resource.</b> Each lock guards one resource ({@code chaos-rw} for both sides of the
 * read-write lock). Accesses are replayed in time order: a write is accepted if its token is at
 * least the highest of every accepted access (write or read), else rejected; a read is good if its
 * token is at least the highest accepted write, else stale. No token may go to two sections.
 *
 * <p><b>Lost leases.</b> A section lost its lease if one of its accesses was rejected or stale, if
 * it overlaps a conflicting section (not two readers) with a higher token (one acquired the lock
 * between the other's acquisition and last access, so both believed they held it, whatever their
 * writes; Redis granted the lower token first, so that one's lease ended), or if its holder was
 * told ({@code leaseLost()} completed, or the release said the lease was lost). Each lost lease
 * must have been told to its holder (a failed release is no report) and explained by a fault that
 * could take it ({@link Fault#explains}): an injected one, or else a pause of its worker long
 * enough to cost a lease ({@link ChaosPauses}), counted apart; anything else is a violation, named
 * by what happened: two holders without a fault, a reader inside a writer's section without a
 * fault, or a lease lost without a fault.
 *
 * <p>Not thread-safe; one instance replays one run.
 */
final class ChaosSections {
  /** The lock objects whose sections are replayed, each with the resource it guards. */
  private static final Map<String, String> RESOURCES =
      Map.of(
          ChaosWorker.LOCK, ChaosWorker.LOCK,
          ChaosWorker.FAIR, ChaosWorker.FAIR,
          ChaosWorker.RW, ChaosWorker.RW,
          ChaosWorker.RW_READ, ChaosWorker.RW);

  /** What the replay found. */
  record Figures(
      long sections,
      long readSections,
      long writesAccepted,
      long writesRejected,
      long readsGood,
      long readsStale,
      long lost,
      long reported,
      long explained,
      long explainedByPause,
      long failedReleaseOnly) {}

  /** One holder's section under one lock. */
  private static final class Section {
    final String lock;
    final String holder;
    final int worker;
    final boolean reads;
    final long token;
    final long acquired; // T: surely held from here
    long from; // the acquisition's call: the grant came after it
    long lastAccess;
    long released = Long.MAX_VALUE;
    int accessesSeen;
    int accessesMade = -1;
    boolean told;
    boolean releaseFailed;
    boolean lost;
    Section lostTo;
    long lostAt;

    Section(String lock, String holder, int worker, long token, long acquired) {
      this.lock = lock;
      this.holder = holder;
      this.worker = worker;
      this.reads = lock.equals(ChaosWorker.RW_READ);
      this.token = token;
      this.acquired = acquired;
      this.from = acquired;
      this.lastAccess = acquired;
    }

    void lose(Section to, long at) {
      if (!lost) {
        lost = true;
        lostTo = to;
        lostAt = at;
      }
    }

    long end() {
      return released != Long.MAX_VALUE ? released : lastAccess;
    }

    String describe() {
      return holder + (token >= 0 ? " (token " + token + ")" : "");
    }
  }

  /** A resource's replay state: the highest accepted tokens and the sections that set them. */
  private static final class Resource {
    long topAny = Long.MIN_VALUE;
    Section topAnySection;
    long topWrite = Long.MIN_VALUE;
    Section topWriteSection;
    final Map<Long, Section> tokens = new HashMap<>();
  }

  private final List<Fault> faults;
  private final List<Fault> pauses;
  private final List<String> violations;
  private final long origin;
  private final Map<String, Section> sections = new LinkedHashMap<>(); // by lock and holder
  private final Map<String, Long> calls = new HashMap<>(); // acquisition start, by holder
  private final Map<String, Resource> resources = new HashMap<>();
  private final Set<String> reissued = new HashSet<>();
  private long writesAccepted;
  private long writesRejected;
  private long readsGood;
  private long readsStale;

  /**
   * A replay that adds what it finds to {@code violations}; {@code pauses} are the workers' pauses
   * long enough to cost a lease ({@link ChaosPauses#asFaults}); {@code origin} is the run's first
   * instant, from which messages count time.
   */
  ChaosSections(List<Fault> faults, List<Fault> pauses, List<String> violations, long origin) {
    this.faults = faults;
    this.pauses = pauses;
    this.violations = violations;
    this.origin = origin;
  }

  /** Replays the events (in time order) and checks every lost lease. */
  Figures replay(List<Event> events) {
    for (Event event : events) {
      switch (event.kind()) {
        case "A" -> {
          if (RESOURCES.containsKey(event.field(0)) && event.fields().size() > 4) {
            calls.put(event.field(4), Long.parseLong(event.field(1)));
          }
        }
        case "T" -> acquired(event);
        case "W", "V" -> access(event);
        case "R" -> released(event);
        case "L" -> {
          Section section = sections.get(key(event.field(0), event.field(1)));
          if (section != null) {
            section.told = true;
          } else if (RESOURCES.containsKey(event.field(0))) {
            section(event.field(0), event.field(1), event.worker(), -1, event.at()).told = true;
          }
        }
        default -> {}
      }
    }
    findOverlaps();
    return judgeLosses();
  }

  private void acquired(Event event) {
    if (RESOURCES.containsKey(event.field(0))) {
      section(
          event.field(0),
          event.field(1),
          event.worker(),
          Long.parseLong(event.field(2)),
          event.at());
    }
  }

  private Section section(String lock, String holder, int worker, long token, long at) {
    return sections.computeIfAbsent(
        key(lock, holder),
        k -> {
          Section section = new Section(lock, holder, worker, token, at);
          Long call = calls.remove(holder);
          if (call != null && call <= at) {
            section.from = call;
          }
          return section;
        });
  }

  private void access(Event event) {
    String object = event.field(0);
    String holder = event.field(1);
    long token = Long.parseLong(event.field(2));
    boolean write = event.kind().equals("W");
    String lock = write ? object : ChaosWorker.RW_READ;
    Section section = sections.get(key(lock, holder));
    if (section == null) { // a log without its T line (an older format): the section starts here
      section = section(lock, holder, event.worker(), token, event.at());
    }
    section.accessesSeen++;
    section.lastAccess = Math.max(section.lastAccess, event.at());
    if (event.fields().size() > 3 && Integer.parseInt(event.field(3)) != section.accessesSeen) {
      violations.add(
          "the log of " + holder + " on " + lock + " lost an access before " + event.field(3));
    }
    Resource resource = resources.computeIfAbsent(RESOURCES.get(lock), r -> new Resource());
    Section owner = resource.tokens.putIfAbsent(token, section);
    if (owner != null
        && owner != section
        && reissued.add(RESOURCES.get(lock) + " " + token + " " + holder)) {
      violations.add(
          "token "
              + token
              + " of "
              + RESOURCES.get(lock)
              + " was issued to "
              + owner.holder
              + " and to "
              + holder);
    }
    if (write) {
      if (token < resource.topAny) {
        writesRejected++;
        section.lose(resource.topAnySection, event.at());
      } else {
        writesAccepted++;
        resource.topAny = token;
        resource.topAnySection = section;
        resource.topWrite = token;
        resource.topWriteSection = section;
      }
    } else if (token < resource.topWrite) {
      readsStale++;
      section.lose(resource.topWriteSection, event.at());
    } else {
      readsGood++;
      if (token > resource.topAny) {
        resource.topAny = token;
        resource.topAnySection = section;
      }
    }
  }

  private void released(Event event) {
    Section section = sections.get(key(event.field(0), event.field(1)));
    if (section == null) {
      if (!RESOURCES.containsKey(event.field(0))) {
        return;
      }
      // Released with no token seen: the hold was lost before its token could be read.
      section = section(event.field(0), event.field(1), event.worker(), -1, event.at());
    }
    section.released = event.at();
    String outcome = event.field(2);
    section.told |= outcome.equals("lost");
    section.releaseFailed = outcome.equals("error");
    if (event.fields().size() > 3) {
      section.accessesMade = Integer.parseInt(event.field(3));
      if (section.accessesMade != section.accessesSeen) {
        violations.add(
            "the log of "
                + section.holder
                + " on "
                + section.lock
                + " has "
                + section.accessesSeen
                + " of its "
                + section.accessesMade
                + " accesses");
      }
    }
  }

  /**
   * Marks as lost every section during which a conflicting section acquired the same lock: from
   * then on both believed they held it.
   */
  private void findOverlaps() {
    Map<String, List<Section>> byResource = new HashMap<>();
    for (Section section : sections.values()) {
      if (section.token >= 0) {
        byResource
            .computeIfAbsent(RESOURCES.get(section.lock), r -> new ArrayList<>())
            .add(section);
      }
    }
    for (List<Section> list : byResource.values()) {
      list.sort(Comparator.comparingLong((Section s) -> s.acquired));
      List<Section> open = new ArrayList<>();
      for (Section next : list) {
        open.removeIf(s -> s.lastAccess <= next.acquired);
        for (Section held : open) {
          if (!(held.reads && next.reads)) {
            // Redis granted the two in token order (tokens rise with every grant), so the one with
            // the lower token lost its lease, whichever holder logged its token first: a worker
            // paused between the grant and its log line logs it late
            if (held.token < next.token) {
              held.lose(next, next.acquired);
            } else {
              next.lose(held, next.acquired);
            }
          }
        }
        open.add(next);
      }
    }
  }

  private Figures judgeLosses() {
    long lost = 0;
    long reported = 0;
    long explained = 0;
    long explainedByPause = 0;
    long failedReleaseOnly = 0;
    long readSections = 0;
    for (Section section : sections.values()) {
      readSections += section.reads ? 1 : 0;
      if (!section.lost && !section.told) {
        continue;
      }
      lost++;
      if (section.told) {
        reported++;
      } else {
        failedReleaseOnly += section.releaseFailed ? 1 : 0;
        violations.add(
            "lost lease not reported to its holder: "
                + section.lock
                + " "
                + section.holder
                + (section.releaseFailed ? " (its release failed, which is no report)" : ""));
      }
      if (explainedBy(faults, section)) {
        explained++;
      } else if (explainedBy(pauses, section)) {
        explained++;
        explainedByPause++;
      } else {
        violations.add(unexplained(section));
      }
    }
    return new Figures(
        sections.size(),
        readSections,
        writesAccepted,
        writesRejected,
        readsGood,
        readsStale,
        lost,
        reported,
        explained,
        explainedByPause,
        failedReleaseOnly);
  }

  private static boolean explainedBy(List<Fault> faults, Section section) {
    for (Fault fault : faults) {
      if (fault.explains(section.worker, section.from, section.end())) {
        return true;
      }
    }
    return false;
  }

  private String unexplained(Section section) {
    Section other = section.lostTo;
    if (other == null) {
      return "lease lost without a fault: "
          + section.lock
          + " "
          + section.describe()
          + ", held from "
          + seconds(section.acquired)
          + ", told by "
          + (section.released != Long.MAX_VALUE ? "its release" : "leaseLost()");
    }
    String what =
        section.reads || other.reads
            ? "a reader inside a writer's section without a fault: "
            : "two holders without a fault: ";
    return what
        + RESOURCES.get(section.lock)
        + " held by "
        + role(section)
        + " "
        + section.describe()
        + " from "
        + seconds(section.acquired)
        + " and by "
        + role(other)
        + " "
        + other.describe()
        + " from "
        + seconds(other.acquired)
        + (section.lostAt != other.acquired ? " (seen at " + seconds(section.lostAt) + ")" : "");
  }

  private static String role(Section section) {
    return section.reads ? "reader" : "writer";
  }

  private String seconds(long at) {
    return String.format(Locale.ROOT, "%.3f s", (at - origin) / 1e9);
  }

  private static String key(String lock, String holder) {
    return lock + " " + holder;
  }
}
