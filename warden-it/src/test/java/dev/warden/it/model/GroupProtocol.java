package dev.warden.it.model;

import static dev.warden.it.model.ReentrantProtocol.FENCE_TERMS;
import static dev.warden.it.model.ReentrantProtocol.number;

import dev.warden.it.model.Views.Hold;
import dev.warden.it.model.Views.Parked;
import java.util.ArrayList;
import java.util.List;

/**
 * A multi-lock of reentrant locks in one slot, as {@code GroupClaim} takes it (lock-acquire-all:
 * all parts or none) and {@code RedisMultiLock} adopts it (part by part, in order) and gives it
 * back (each part's own release, last part first).
 */
final class GroupProtocol {
  private final Wire wire;
  private final Clients clients;
  private final List<ReentrantProtocol> parts;

  GroupProtocol(Wire wire, Clients clients, List<ReentrantProtocol> parts) {
    this.wire = wire;
    this.clients = clients;
    this.parts = parts;
  }

  /** tryLock() of the multi-lock by an owner; {@code fault} around its one script call. */
  void tryLock(String owner, Clients.Fault fault) {
    String id = clients.newAcquisitionId(owner);
    List<String> keys = new ArrayList<>();
    List<String> args =
        new ArrayList<>(List.of(owner, Long.toString(Clients.LEASE), FENCE_TERMS, id));
    int[] heldBefore = new int[parts.size()];
    long[] before = new long[parts.size()];
    for (int i = 0; i < parts.size(); i++) {
      keys.add(parts.get(i).key());
      keys.add(parts.get(i).fence());
      heldBefore[i] = clients.views(parts.get(i)).known(owner);
      before[i] = clients.maxToken(parts.get(i));
      args.add(Integer.toString(heldBefore[i]));
    }
    List<Object> reply = wire.run("lock-acquire-all", keys, args.toArray(String[]::new));
    if (fault == Clients.Fault.LOST_RETRY) {
      seeTokens(reply);
      reply = wire.run("lock-acquire-all", keys, args.toArray(String[]::new));
    } else if (fault == Clients.Fault.LOST_GIVE_UP || fault == Clients.Fault.LOST_PARK) {
      seeTokens(reply);
      for (int i = 0; i < parts.size(); i++) { // GroupClaim.giveBackInDoubt
        parts.get(i).release(owner, heldBefore[i] + 1);
      }
      return;
    }
    if (number(reply, 0) != 1) {
      return; // refused: tryLock() returns false
    }
    seeTokens(reply);
    if (fault == Clients.Fault.ABANDON) {
      for (int i = 0; i < parts.size(); i++) { // GroupClaim.rollback
        parts.get(i).release(owner, (int) number(reply, 2 + 2 * i));
      }
      return;
    }
    for (int i = 0; i < parts.size(); i++) {
      ReentrantProtocol part = parts.get(i);
      Hold hold = clients.views(part).hold(owner);
      long token = number(reply, 1 + 2 * i);
      if (hold != null && token != hold.token) {
        // LockCore.adopt throws for this part: the parts adopted before it stay adopted
        part.release(owner, (int) number(reply, 2 + 2 * i));
        clients.lost(part, owner);
        for (int j = 0; j < i; j++) {
          clients.views(parts.get(j)).hold(owner).user--;
        }
        return;
      }
      Parked grant = new Parked(id, heldBefore[i]);
      grant.before = hold;
      clients.adopt(part, owner, grant, token, 1, before[i]);
    }
  }

  private void seeTokens(List<Object> reply) {
    if (number(reply, 0) == 1) {
      for (int i = 0; i < parts.size(); i++) {
        clients.seen(parts.get(i), number(reply, 1 + 2 * i));
      }
    }
  }

  /** unlock() of the multi-lock: each part's own unlock, last part first. */
  void unlock(String owner) {
    for (int i = parts.size() - 1; i >= 0; i--) {
      if (clients.views(parts.get(i)).hold(owner) != null) {
        clients.release(parts.get(i), owner, Clients.Fault.NONE);
      }
    }
  }
}
