package dev.warden.internal.wait;

/**
 * How a {@link Topic} keeps its parked waiters: entries linked in order, in the topic and a line.
 */
final class Parked {
  private Parked() {}

  /** A parked waiter, linked in the topic's order and, if it has one, in its line. */
  static final class Entry {
    final Waiter waiter;
    final Successor successor;
    final Line line;
    final long ticket;
    final long order;
    Entry prev;
    Entry next;
    Entry linePrev;
    Entry lineNext;

    Entry(Waiter waiter, Successor successor, Line line, long ticket, long order) {
      this.waiter = waiter;
      this.successor = successor;
      this.line = line;
      this.ticket = ticket;
      this.order = order;
    }
  }

  /**
   * A doubly linked list of entries kept in order (by ticket, then order, for a line; by order for
   * the topic), with O(1) removal. An entry is inserted after every entry that does not come after
   * it, walking from the last one back, or at once at the front if it comes before the first: both
   * are O(1) in the usual cases (a new waiter; one going back to where it was taken from the
   * front).
   */
  static final class Chain {
    private final boolean line;
    Entry first;
    Entry last;

    Chain(boolean line) {
      this.line = line;
    }

    private Entry prev(Entry e) {
      return line ? e.linePrev : e.prev;
    }

    private Entry next(Entry e) {
      return line ? e.lineNext : e.next;
    }

    private void setPrev(Entry e, Entry p) {
      if (line) {
        e.linePrev = p;
      } else {
        e.prev = p;
      }
    }

    private void setNext(Entry e, Entry n) {
      if (line) {
        e.lineNext = n;
      } else {
        e.next = n;
      }
    }

    private boolean before(Entry a, Entry b) {
      if (line && a.ticket != b.ticket) {
        return a.ticket < b.ticket;
      }
      return a.order < b.order;
    }

    void insert(Entry entry) {
      Entry after;
      if (first != null && before(entry, first)) {
        after = null;
      } else {
        after = last;
        while (after != null && before(entry, after)) {
          after = prev(after);
        }
      }
      Entry following = after == null ? first : next(after);
      setPrev(entry, after);
      setNext(entry, following);
      if (after == null) {
        first = entry;
      } else {
        setNext(after, entry);
      }
      if (following == null) {
        last = entry;
      } else {
        setPrev(following, entry);
      }
    }

    void unlink(Entry entry) {
      Entry p = prev(entry);
      Entry n = next(entry);
      if (p == null) {
        first = n;
      } else {
        setNext(p, n);
      }
      if (n == null) {
        last = p;
      } else {
        setPrev(n, p);
      }
      setPrev(entry, null);
      setNext(entry, null);
    }
  }
}
