package dev.warden.internal.lease;

import dev.warden.internal.base.Settings;
import dev.warden.internal.redis.Script;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.protocol.CommandArgs;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Up to {@link Settings#RENEWAL_BATCH} holds renewed by one call of their script, with their keys
 * and owners as the script takes them.
 */
final class Batch {
  final Script script;
  final long leaseMillis;
  final Hold[] holds = new Hold[Settings.RENEWAL_BATCH];
  final CommandArgs<String, String> keys = new CommandArgs<>(StringCodec.UTF8);
  final CommandArgs<String, String> owners = new CommandArgs<>(StringCodec.UTF8);
  int size;
  int keyCount;
  byte[] routingKey;
  CommandArgs<String, String> args; // a kept batch's call: made once, sent by every tick
  final AtomicLong earliestDeadline = new AtomicLong(); // a kept batch's: see LeaseKeeper
  long earliestLimit; // a kept batch's: the earliest maximum hold time of its holds

  Batch(Script script, long leaseMillis) {
    this.script = script;
    this.leaseMillis = leaseMillis;
  }

  void add(Hold hold) {
    holds[size++] = hold;
    if (routingKey == null) {
      routingKey = hold.renewalKeys()[0];
    }
    for (byte[] key : hold.renewalKeys()) {
      keys.add(key);
      keyCount++;
    }
    owners.add(hold.renewalOwner());
  }
}
