package dev.warden.internal.lease;

import dev.warden.internal.base.Settings;
import dev.warden.internal.redis.Script;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.protocol.CommandArgs;
import java.util.ArrayList;
import java.util.List;

/**
 * The holds of one renewal script and shard, in batches: every batch but the last is full. Guarded
 * by its own monitor; so are its holds' {@code keptIn} and {@code keptAt}.
 */
final class HoldGroup {
  final Key key;
  final List<Kept> batches = new ArrayList<>();
  boolean retired; // emptied and out of the map: an adder that finds it takes a new one

  HoldGroup(Key key) {
    this.key = key;
  }

  /** Appends the hold to the last batch; false if it is kept already. */
  boolean add(Hold hold) {
    if (hold.keptIn != null) {
      return false;
    }
    Kept last = batches.isEmpty() ? null : batches.get(batches.size() - 1);
    if (last == null || last.size == Settings.RENEWAL_BATCH) {
      last = new Kept(this, key.script());
      batches.add(last);
    }
    hold.keptIn = last;
    hold.keptAt = last.size;
    last.holds[last.size++] = hold;
    last.changed = true;
    return true;
  }

  /** Takes the hold out, moving the group's last hold into its place; false if not kept. */
  boolean remove(Hold hold) {
    if (!(hold.keptIn instanceof Kept batch) || batch.group != this) {
      return false; // not kept, or just added to another group (its place is not ours to read)
    }
    int at = hold.keptAt;
    Kept last = batches.get(batches.size() - 1);
    Hold moved = last.holds[--last.size];
    last.holds[last.size] = null;
    last.changed = true;
    if (moved != hold) {
      batch.holds[at] = moved;
      moved.keptIn = batch;
      moved.keptAt = at;
      batch.changed = true;
    }
    if (last.size == 0) {
      batches.remove(batches.size() - 1);
    }
    hold.keptIn = null;
    return true;
  }

  /** Forgets every hold; returns how many there were. */
  int clear() {
    int count = 0;
    for (Kept batch : batches) {
      for (int i = 0; i < batch.size; i++) {
        batch.holds[i].keptIn = null;
      }
      count += batch.size;
    }
    batches.clear();
    return count;
  }

  /** What the holds of one group share: their renewal script and their shard. */
  record Key(Script script, int shard) {}

  /**
   * One batch of a group as holds are added and removed, with its call made ready: rebuilt when its
   * holds changed since. Guarded by its group's monitor.
   */
  static final class Kept {
    final HoldGroup group;
    final Script script;
    final Hold[] holds = new Hold[Settings.RENEWAL_BATCH];
    int size;
    boolean changed = true;
    private Batch call;

    Kept(HoldGroup group, Script script) {
      this.group = group;
      this.script = script;
    }

    /** Its call, made again if its holds changed since it was made. */
    Batch ready(long now, long leaseMillis, long maxHoldNanos) {
      if (changed) {
        Batch made = new Batch(script, leaseMillis);
        long earliestDeadline = Long.MAX_VALUE;
        long earliestLimit = Long.MAX_VALUE;
        for (int i = 0; i < size; i++) {
          Hold hold = holds[i];
          made.add(hold);
          earliestDeadline = Math.min(earliestDeadline, hold.leaseDeadlineNanos() - now);
          if (maxHoldNanos > 0) {
            earliestLimit = Math.min(earliestLimit, hold.startedNanos() + maxHoldNanos - now);
          }
        }
        // kept relative to now while computed, so that the monotonic clock may wrap
        made.earliestDeadline.set(now + earliestDeadline);
        made.earliestLimit = maxHoldNanos > 0 ? now + earliestLimit : now + Long.MAX_VALUE / 2;
        made.args =
            new CommandArgs<>(StringCodec.UTF8)
                .addAll(made.keys)
                .add(leaseMillis)
                .addAll(made.owners);
        call = made;
        changed = false;
      }
      return call;
    }
  }
}
