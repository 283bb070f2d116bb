package dev.warden.internal.wait;

import dev.warden.internal.base.Clock;
import dev.warden.internal.base.Timer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;

/**
 * The local waiters of one channel, parked until a wake-up ({@link WakeMessage}) or a timer.
 *
 * <p>Each topic counts the wake-ups it has seen ({@link #generation()}). A waiter reads the count
 * before each attempt and refuses to park if it changed meanwhile, or if a message named it while
 * it was not parked: a release message that arrives while the failed attempt's reply is still on
 * its way is therefore never lost.
 *
 * <p>Order: parked waiters stand in the order of their {@link Waiter#order()} (the order in which
 * their acquisitions first waited), kept when one parks again after an attempt; a wake-up of one
 * takes the first. Waiters that share their waiting ({@link Successor#sharing()}: the lock's first
 * acquisitions, whose refusal by Redis stands for all of them) also stand in a line per object,
 * ordered by their place in the object's queue ({@link Successor#ticket()}) and then by order. A
 * line has one re-check timer for all its parked waiters: when it falls due, only the line's first
 * waiter is taken off to check again ({@link Waiter#recheck()}), and the others stay parked (its
 * grant or its release wakes the next; a refusal means theirs too), and the line backs off from the
 * recheck interval to at most 1 s while it keeps being refused, until a wake-up, a re-subscription,
 * a local hand-off or a new first waiter (see {@link Line}); a line whose object keeps a queue with
 * heartbeats sends one heartbeat for all its parked waiters once per heartbeat period ({@link
 * SharedWait}). A waiter outside a line keeps its own timer (see {@link Acquisition}).
 *
 * <p>Cost: parking, unparking by handle, a wake-up of one, a wake-up by id and a hand-off's claim
 * are O(1) (a park after the first is O(1) when the waiter goes back to either end of the order, as
 * it does unless several were woken at once), plus, for a wake-up of the channel, O(its lines) to
 * reset their back-off (one per object waited for on the channel: usually one); a line's re-check
 * is O(1) and its heartbeat O(its parked waiters) once per heartbeat period.
 *
 * <p>Thread-safety: parking and waking take the topic's monitor, briefly; {@link Waiter#wake()},
 * {@link Waiter#recheck()} and heartbeats are always called or sent with no monitor held.
 * Membership ({@code members}) belongs to {@link Subscriptions} and is guarded by it.
 */
public final class Topic {
  private static final int MISSED_LIMIT = 1024;

  private final String channel;
  private final Timer timer;
  private final Clock clock;
  private final long recheckNanos;
  private final AtomicLong generation = new AtomicLong();
  final Object monitor = new Object(); // guards what follows, and the topic's lines

  /** The parked waiters in order: the first is woken first. Guarded by monitor. */
  private final Parked.Chain all = new Parked.Chain(false);

  private final IdentityHashMap<Waiter, Parked.Entry> entries =
      new IdentityHashMap<>(); // guarded by monitor
  private final Map<String, Parked.Entry> byId = new HashMap<>(); // guarded by monitor
  private final Map<String, Line> lines = new HashMap<>(); // by object; guarded by monitor

  /**
   * The acquisitions that take direct grants, by the id a grant names them by (their acquisition
   * id), while they are members. Guarded by monitor.
   */
  private final Map<String, Acquisition<?>> grantees = new HashMap<>();

  /**
   * Direct grants that came for a listed acquisition while it was not parked (its attempt in
   * flight, or about to be sent), by acquisition: it does not park after its next attempt, but
   * tries once more (a replay, which takes the grant); it gives the grant back, by its id and
   * token, when it ends (a no-op if it took it). Guarded by monitor.
   */
  private final IdentityHashMap<Waiter, MissedGrant> missedGrants = new IdentityHashMap<>();

  /** A direct grant its acquisition missed (see {@code missedGrants}). */
  static final class MissedGrant {
    final long token;
    final String owner;
    boolean retried; // guarded by the topic's monitor

    MissedGrant(long token, String owner) {
      this.token = token;
      this.owner = owner;
    }
  }

  /**
   * The claim of the last acquisition that joined and can give back grants (a grantee, or any
   * acquisition of a lock type that grants): gives back grants nobody here took. A topic made anew
   * (after the linger time) may get a grant to a registration left by an acquisition of an earlier
   * one, while only acquisitions that do not register have joined it.
   */
  private volatile Claim<?> grantReturns;

  /** Ids woken while not parked (their attempt was in flight): they must not park next. */
  private final Set<String> missed = new LinkedHashSet<>(); // guarded by monitor

  int members; // guarded by the Subscriptions that owns this topic
  volatile CompletableFuture<Void> subscribed;

  /** A subscription was asked for and its first confirmation has not come yet. */
  final AtomicBoolean confirming = new AtomicBoolean();

  /**
   * @param timer runs the lines' re-checks
   * @param recheckNanos the recheck interval: a line's first re-check, and where its back-off
   *     starts
   */
  Topic(String channel, Timer timer, Clock clock, long recheckNanos) {
    this.channel = channel;
    this.timer = timer;
    this.clock = clock;
    this.recheckNanos = recheckNanos;
  }

  /** The channel whose wake-ups this topic delivers. */
  public String channel() {
    return channel;
  }

  /** Completes when Redis confirmed the subscription; null before the first join. */
  public CompletableFuture<Void> subscribed() {
    return subscribed;
  }

  /** Whether Redis has confirmed the subscription (and it did not fail). */
  boolean isSubscribed() {
    CompletableFuture<Void> confirmed = subscribed;
    return confirmed != null && confirmed.isDone() && !confirmed.isCompletedExceptionally();
  }

  /** Returns the number of wake-ups seen so far. */
  public long generation() {
    return generation.get();
  }

  /** Returns the number of waiters parked now. */
  int parkedCount() {
    synchronized (monitor) {
      return entries.size();
    }
  }

  /**
   * Parks the waiter unless a wake-up arrived since {@code seenGeneration}; returns whether it
   * parked (if not, the caller should try again at once).
   */
  boolean park(Waiter waiter, long seenGeneration) {
    return restore(waiter, seenGeneration, () -> true, Long.MAX_VALUE);
  }

  /**
   * Parks a waiter unless a wake-up it would have had arrived since {@code seenGeneration} or named
   * it meanwhile, or {@code stillDue} says a timer of its own is gone; returns whether it is parked
   * (if not, the caller wakes it). {@code stillDue} is asked under the topic's monitor, which the
   * waiter's timers also take to unpark it. A waiter in a line makes its line check again within
   * {@code recheckNanos} or the line's current interval, whichever is shorter, at the latest (the
   * line's timer is moved earlier if needed): a waiter in a line passes only a bound of its own
   * (the holder's remaining lease), or {@link Long#MAX_VALUE}, so that the line's back-off decides.
   */
  boolean restore(Waiter waiter, long seenGeneration, BooleanSupplier stillDue, long recheckNanos) {
    synchronized (monitor) {
      MissedGrant grant = missedGrants.isEmpty() ? null : missedGrants.get(waiter);
      if (grant != null && !grant.retried) {
        grant.retried = true; // a direct grant came meanwhile: its next attempt takes it
        return false;
      }
      String id = waiter.waiterId();
      boolean named = id != null && missed.remove(id);
      if (named || generation.get() != seenGeneration || !stillDue.getAsBoolean()) {
        return false;
      }
      if (entries.containsKey(waiter)) {
        return true; // parked already
      }
      Successor successor = waiter.successor();
      SharedWait sharing = successor == null ? null : successor.sharing();
      Line line = null;
      if (sharing != null) {
        String object = successor.terms().object();
        line = lines.get(object);
        if (line == null) {
          line = new Line(this, object, sharing, timer, clock, this.recheckNanos);
          lines.put(object, line);
        }
      }
      Parked.Entry entry =
          new Parked.Entry(
              waiter, successor, line, line == null ? 0 : successor.ticket(), waiter.order());
      entries.put(waiter, entry);
      if (id != null) {
        byId.put(id, entry);
      }
      all.insert(entry);
      if (line != null) {
        line.chain.insert(entry);
        line.parked(entry);
        line.recheckWithin(recheckNanos);
      }
      return true;
    }
  }

  /** Whether the waiter is parked in a line, whose timer re-checks it (else it has its own). */
  static boolean sharesRecheck(Waiter waiter) {
    Successor successor = waiter.successor();
    return successor != null && successor.sharing() != null;
  }

  /** Wakes the waiters a message names. */
  void deliver(WakeMessage message) {
    message.deliver(this);
  }

  /** Wakes the waiter with that id only; remembers the wake-up if it is not parked now. */
  void wakeWaiter(String id) {
    Waiter target = null;
    synchronized (monitor) {
      Parked.Entry entry = byId.get(id);
      if (entry != null) {
        if (entry.line != null) {
          entry.line.reset();
        }
        remove(entry);
        target = entry.waiter;
      } else {
        missed.add(id);
        if (missed.size() > MISSED_LIMIT) { // ids of waiters long gone: forget the oldest
          Iterator<String> oldest = missed.iterator();
          oldest.next();
          oldest.remove();
        }
      }
    }
    if (target != null) {
      target.wake();
    }
  }

  /** Takes the waiter off the topic; returns false if a wake-up took it first. */
  boolean unpark(Waiter waiter) {
    synchronized (monitor) {
      Parked.Entry entry = entries.get(waiter);
      if (entry == null) {
        return false;
      }
      remove(entry);
      return true;
    }
  }

  /**
   * Takes off the topic the first parked waiter in the line of {@code object} (the earliest in the
   * object's queue, then the longest waiting) and returns it: its wake-up is now the caller's to
   * give. Returns null when none is parked.
   */
  public Successor claim(String object) {
    synchronized (monitor) {
      Line line = lines.get(object);
      if (line == null || line.chain.first == null) {
        return null;
      }
      Parked.Entry first = line.chain.first;
      line.reset(); // a local hand-off: the lock changed hands
      remove(first);
      return first.successor;
    }
  }

  /**
   * Lists an acquisition that takes direct grants, by the id grants name it by; one that takes none
   * but can give back grants ({@link Claim#givesBackGrants()}) gives back, through its claim, the
   * grants nobody here took (a grant to a registration of an ended acquisition).
   */
  void enlist(Acquisition<?> acquisition) {
    Claim<?> claim = acquisition.claim();
    String grantId = claim.grantId();
    if (grantId != null) {
      synchronized (monitor) {
        grantees.put(grantId, acquisition);
      }
    }
    if (grantId != null || claim.givesBackGrants()) {
      grantReturns = claim;
    }
  }

  /**
   * Takes an acquisition off the list of those that take direct grants; gives back, by its id and
   * token, a grant it missed while listed (see {@link #granted}; a no-op in Redis if it took the
   * grant by a replay).
   */
  // FutureReturnValueIgnored: the claim's give-back logs its own failure
  @SuppressWarnings("FutureReturnValueIgnored")
  void unenlist(Acquisition<?> acquisition) {
    Claim<?> claim = acquisition.claim();
    String grantId = claim.grantId();
    if (grantId == null) {
      return;
    }
    MissedGrant missed;
    synchronized (monitor) {
      grantees.remove(grantId, acquisition);
      missed = missedGrants.isEmpty() ? null : missedGrants.remove(acquisition);
    }
    if (missed != null) {
      claim.giveBackGrant(missed.owner, grantId, missed.token);
    }
  }

  /**
   * Delivers a direct grant ({@code granted <token> <acquisition id> <owner>}, lock-release.lua):
   * to the acquisition it names if that is parked here (taken off, so no attempt of its own is in
   * flight, and completed with the token: no script). One listed here but not parked (an attempt in
   * flight, or about to be sent) is not completed from the message, which could race with its
   * attempt's reply: it does not park after its next attempt but tries once more, a replay that
   * takes the grant (with a new token), and gives the grant back by id and token when it ends. An
   * acquisition not listed here (over, or never of this client's) has the grant given back at once
   * by its id and token, on the command connection. Such a give-back changes nothing when the
   * acquisition took the grant by an attempt of its own (a replay mints a new token) or another
   * acquisition of the owner took the hold over. So a grant is taken at most once, and one nobody
   * takes ends at once, or with its grant lease when even this message is lost.
   */
  // FutureReturnValueIgnored: the give-back logs its own failure
  @SuppressWarnings("FutureReturnValueIgnored")
  void granted(long token, String grantId, String owner) {
    Acquisition<?> taken = null;
    synchronized (monitor) {
      Acquisition<?> named = grantees.get(grantId);
      Parked.Entry entry = named == null ? null : entries.get(named);
      if (entry != null) {
        if (entry.line != null) {
          entry.line.reset(); // the lock changed hands
        }
        remove(entry);
        taken = named;
      } else if (named != null) {
        missedGrants.put(named, new MissedGrant(token, owner));
        return;
      }
    }
    if (taken != null) {
      taken.grantedDirectly(token);
      return;
    }
    Claim<?> returns = grantReturns;
    if (returns != null) {
      returns.giveBackGrant(owner, grantId, token);
    }
  }

  /** Wakes the longest-parked waiter. */
  void wakeOne() {
    wake(1, null);
  }

  /** Wakes every parked waiter. */
  void wakeAll() {
    wake(Integer.MAX_VALUE, null);
  }

  /**
   * Wakes, after the subscription was (re)confirmed and messages may have been lost, every parked
   * waiter outside a line and the first of each line: a refusal of that one stands for the rest of
   * its line, and its grant or its release wakes the next.
   */
  void resubscribed() {
    List<Waiter> woken = new ArrayList<>();
    synchronized (monitor) {
      generation.incrementAndGet();
      resetLines();
      List<Parked.Entry> taken = new ArrayList<>();
      for (Parked.Entry entry = all.first; entry != null; entry = entry.next) {
        if (entry.line == null || entry.line.chain.first == entry) {
          taken.add(entry); // removed after the walk: a line's next would become its first
        }
      }
      for (Parked.Entry entry : taken) {
        remove(entry);
        woken.add(entry.waiter);
      }
    }
    woken.forEach(Waiter::wake);
  }

  /** Wakes the waiter of id {@code named} (if parked; null: none) and up to {@code count} more. */
  void wake(int count, String named) {
    List<Waiter> woken = new ArrayList<>();
    synchronized (monitor) {
      generation.incrementAndGet();
      resetLines();
      if (named != null) {
        Parked.Entry entry = byId.get(named);
        if (entry != null) {
          remove(entry);
          woken.add(entry.waiter);
        }
      }
      for (int others = 0; others < count && all.first != null; others++) {
        Parked.Entry first = all.first;
        remove(first);
        woken.add(first.waiter);
      }
    }
    woken.forEach(Waiter::wake);
  }

  /** A wake-up or re-subscription: every line backs off from the recheck interval again. */
  private void resetLines() {
    for (Line line : lines.values()) {
      line.reset();
    }
  }

  /**
   * Takes the first entry of a line off for its re-check, leaving the line open even if empty, so
   * that the waiter, refused, parks in the same line and its back-off goes on. Under the monitor.
   */
  void takeForRecheck(Parked.Entry entry) {
    entries.remove(entry.waiter);
    String id = entry.waiter.waiterId();
    if (id != null) {
      byId.remove(id, entry);
    }
    all.unlink(entry);
    entry.line.chain.unlink(entry);
  }

  /** Ends a line its last waiter left for good (see {@link Line}). Under the monitor. */
  void removeLine(Line line) {
    lines.remove(line.object, line);
  }

  /** The line of {@code object}, or null (tests). */
  Line line(String object) {
    synchronized (monitor) {
      return lines.get(object);
    }
  }

  /** Takes a parked entry off every structure it is in. Under the monitor. */
  void remove(Parked.Entry entry) {
    entries.remove(entry.waiter);
    String id = entry.waiter.waiterId();
    if (id != null) {
      byId.remove(id, entry);
    }
    all.unlink(entry);
    Line line = entry.line;
    if (line != null) {
      line.chain.unlink(entry);
      if (line.chain.first == null) {
        line.close();
        lines.remove(line.object, line);
      }
    }
  }
}
