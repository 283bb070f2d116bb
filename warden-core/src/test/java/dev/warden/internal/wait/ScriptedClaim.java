package dev.warden.internal.wait;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * A claim whose attempts the test answers by hand: each {@link #attempt} returns a future the test
 * completes ({@link #grant}, {@link #refuse}, {@link #fail}); rollbacks and {@code finished} calls
 * are recorded, and so are give-backs in doubt and leaves, once {@link #givesBackInDoubt} and
 * {@link #leaves} are set.
 */
final class ScriptedClaim implements Claim<String> {
  static final String CHANNEL = "warden:{orders}:released";

  final List<CompletableFuture<Outcome<String>>> attempts = new ArrayList<>();
  final List<Boolean> othersWait = new ArrayList<>();
  final List<String> rollbacks = new ArrayList<>();
  final List<Boolean> finished = new ArrayList<>();

  /** Whether the claim has a give-back in doubt; without one, it returns null as by default. */
  boolean givesBackInDoubt;

  /** For each give-back in doubt: how many attempts had been sent when it was sent. */
  final List<Integer> giveBacksInDoubt = new ArrayList<>();

  /** Whether the claim leaves a queue; without one, it returns null as by default. */
  boolean leaves;

  /** What was sent and when, in order: "attempt", "give-back", "leave" (and what a test adds). */
  final List<String> log = new ArrayList<>();

  /** How a parked acquisition of it shares its waiting; null (the default) waits alone. */
  SharedWait sharing;

  /** The id direct grants name it by; null (the default) takes none. */
  String grantId;

  /** The direct grants given back: "owner id token". */
  final List<String> grantsGivenBack = new ArrayList<>();

  /** What {@link #heldLocally()} says: another owner of this client holds the object. */
  boolean heldLocally;

  private final String owner;

  ScriptedClaim() {
    this("owner");
  }

  /** A claim of {@code owner}, which names its hand-off terms (for a line). */
  ScriptedClaim(String owner) {
    this.owner = owner;
  }

  /** A claim that shares its waiting with the other claims of {@code lock 'orders'}. */
  static ScriptedClaim inLine(String owner) {
    ScriptedClaim claim = new ScriptedClaim(owner);
    claim.sharing = SharedWait.RECHECKS;
    return claim;
  }

  @Override
  public String describe() {
    return "lock 'orders'";
  }

  @Override
  public String channel() {
    return CHANNEL;
  }

  @Override
  public CompletableFuture<Outcome<String>> attempt(boolean othersWait) {
    this.othersWait.add(othersWait);
    log.add("attempt");
    CompletableFuture<Outcome<String>> reply = new CompletableFuture<>();
    attempts.add(reply);
    return reply;
  }

  @Override
  public CompletableFuture<?> rollback(String granted) {
    rollbacks.add(granted);
    return CompletableFuture.completedFuture(null);
  }

  @Override
  public CompletableFuture<?> giveBackInDoubt() {
    if (!givesBackInDoubt) {
      return null;
    }
    giveBacksInDoubt.add(attempts.size());
    log.add("give-back");
    return CompletableFuture.completedFuture(null);
  }

  @Override
  public CompletableFuture<?> leave() {
    if (!leaves) {
      return null;
    }
    log.add("leave");
    return CompletableFuture.completedFuture(null);
  }

  @Override
  public HandOffTerms handOffTerms() {
    return sharing == null ? null : new HandOffTerms("warden:{orders}", owner, 30_000, owner);
  }

  @Override
  public SharedWait sharing() {
    return sharing;
  }

  @Override
  public boolean heldLocally() {
    return heldLocally;
  }

  /**
   * Run once, at the next {@link #grantId()} call: an attempt asks for it between reading its
   * channel's topic and joining it, so a test can let time pass there.
   */
  Runnable atNextGrantId;

  @Override
  public String grantId() {
    Runnable hook = atNextGrantId;
    atNextGrantId = null;
    if (hook != null) {
      hook.run();
    }
    return grantId;
  }

  @Override
  public String grantedDirectly(long token, long receivedAtNanos) {
    return "granted-" + token;
  }

  @Override
  public CompletableFuture<?> giveBackGrant(String owner, String acquisitionId, long token) {
    grantsGivenBack.add(owner + " " + acquisitionId + " " + token);
    log.add("give-back-grant");
    return CompletableFuture.completedFuture(null);
  }

  @Override
  public void finished(boolean granted) {
    finished.add(granted);
  }

  /** The attempt in flight: the last one sent, which must not have been answered yet. */
  CompletableFuture<Outcome<String>> last() {
    CompletableFuture<Outcome<String>> reply = attempts.get(attempts.size() - 1);
    if (reply.isDone()) {
      throw new AssertionError("no attempt in flight; attempts: " + attempts.size());
    }
    return reply;
  }

  void grant(String grant) {
    last().complete(Outcome.granted(grant));
  }

  void refuse(long retryAfterMillis) {
    last().complete(Outcome.busy(retryAfterMillis));
  }

  void fail(Throwable failure) {
    last().completeExceptionally(failure);
  }
}
