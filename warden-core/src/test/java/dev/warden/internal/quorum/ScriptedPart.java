package dev.warden.internal.quorum;

import dev.warden.LockHandle;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;

/**
 * A quorum part whose answers the test gives: each {@code tryAcquire} is a future the test
 * completes ({@link #grant}, {@link #refuse}), unless the part grants at once ({@link
 * #grantingAtOnce}); a hold's calls run at once on the test's thread (its handles never block), or
 * never answer while the part is {@link #silent}. Not thread-safe: one test thread.
 */
final class ScriptedPart implements Part {
  final List<CompletableFuture<Optional<LockHandle>>> acquisitions = new ArrayList<>();
  final List<Long> leases = new ArrayList<>();
  final List<Long> fences = new ArrayList<>();
  final List<Handle> granted = new ArrayList<>();
  boolean silent; // hold calls never answer
  boolean fenceFails;
  private long autoToken = -1;

  /** A part that grants every acquisition at once with the given token. */
  static ScriptedPart grantingAtOnce(long token) {
    ScriptedPart part = new ScriptedPart();
    part.autoToken = token;
    return part;
  }

  @Override
  public CompletableFuture<Optional<LockHandle>> tryAcquire(long leaseMillis) {
    CompletableFuture<Optional<LockHandle>> call = new CompletableFuture<>();
    acquisitions.add(call);
    leases.add(leaseMillis);
    if (autoToken >= 0) {
      grant(autoToken);
    }
    return call;
  }

  @Override
  public <T> CompletableFuture<T> call(Supplier<T> call) {
    return silent ? new CompletableFuture<>() : CompletableFuture.completedFuture(call.get());
  }

  @Override
  public CompletableFuture<?> raiseFence(long token) {
    fences.add(token);
    return fenceFails
        ? CompletableFuture.failedFuture(new IllegalStateException("fence not raised"))
        : CompletableFuture.completedFuture(null);
  }

  /** Grants the last acquisition; returns the hold. */
  Handle grant(long token) {
    Handle handle = new Handle(token);
    granted.add(handle);
    last().complete(Optional.of(handle));
    return handle;
  }

  /** Refuses the last acquisition: another owner holds the part. */
  void refuse() {
    last().complete(Optional.empty());
  }

  private CompletableFuture<Optional<LockHandle>> last() {
    return acquisitions.get(acquisitions.size() - 1);
  }

  /** A part's hold: counts what is done to it. */
  static final class Handle implements LockHandle {
    final long token;
    int extensions;
    int closes;
    boolean extendAnswer = true;

    Handle(long token) {
      this.token = token;
    }

    @Override
    public long fencingToken() {
      return token;
    }

    @Override
    public boolean isHeld() {
      return closes == 0;
    }

    @Override
    public CompletionStage<Void> leaseLost() {
      return new CompletableFuture<>();
    }

    @Override
    public boolean extend(Duration leaseTime) {
      extensions++;
      return extendAnswer;
    }

    @Override
    public void closeAfter(Duration keepFor) {
      close();
    }

    @Override
    public void close() {
      closes++;
    }
  }
}
