package dev.warden.internal.lease;

import dev.warden.internal.redis.Script;
import java.util.List;

/**
 * How the holds of one lock are renewed: the script (its arguments are the holds' keys, the lease,
 * then their owners) and the keys each hold adds. One per lock object, shared by its holds.
 *
 * @param script renews a batch of holds; replies with the 1-based indices of those not renewed
 * @param keys the keys of one hold, in the order the script takes them
 */
public record Renewal(Script script, List<String> keys) {
  public Renewal {
    keys = List.copyOf(keys);
  }
}
