package dev.warden.examples.boot;

import dev.warden.Warden;
import dev.warden.reactor.ReactiveLocks;
import dev.warden.spring.WardenLocked;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.stereotype.Service;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/** Charges invoices, each at most once across every instance of the application. */
@Service
public class Invoices {
  private final StringRedisTemplate redis;
  private final Warden warden;

  Invoices(StringRedisTemplate redis, Warden warden) {
    this.redis = redis;
    this.warden = warden;
  }

  /**
   * The outcome of a charge request.
   *
   * @param invoice the invoice's id
   * @param charged whether this request charged it (false: it had been charged before)
   * @param fencingToken the token of the lock hold that charged it
   */
  public record Charge(String invoice, boolean charged, long fencingToken) {}

  /**
   * Charges the invoice unless it has been charged already. The check and the charge are two
   * separate steps, so they run under the invoice's lock: lock name {@code invoice-<id>}, waiting
   * at most 5 s, renewed by the watchdog while the method runs.
   *
   * @param id the invoice's id
   * @return what happened
   */
  @WardenLocked(key = "'invoice-' + #id", waitTime = "5s")
  public Charge charge(String id) {
    String charged = "example:charged:" + id;
    String previous = redis.opsForValue().get(charged);
    if (previous != null) {
      return new Charge(id, false, Long.parseLong(previous));
    }
    // A real service calls its payment provider here, passing the token along so that a
    // stale holder (paused past its lease) is refused there.
    long token = warden.lock("invoice-" + id).fencingToken();
    redis.opsForValue().set(charged, Long.toString(token));
    return new Charge(id, true, token);
  }

  /**
   * Charges the invoice as {@link #charge(String)} does, but as a future: the lock (a handle's, not
   * a thread's) is taken without blocking before this method runs, and released when the returned
   * future completes, however it completes. The hold's fencing token is not at hand here (the
   * annotation owns the handle): use {@code ReactiveLocks.withLock} or a {@code LockHandle} where
   * the token must go along.
   *
   * @param id the invoice's id
   * @return what happened, once it did ({@code fencingToken} 0: not known here)
   */
  @WardenLocked(key = "'invoice-' + #id", waitTime = "5s")
  public CompletableFuture<Charge> chargeAsync(String id) {
    return CompletableFuture.supplyAsync(
        () -> {
          String charged = "example:charged:" + id;
          String previous = redis.opsForValue().get(charged);
          if (previous != null) {
            return new Charge(id, false, Long.parseLong(previous));
          }
          redis.opsForValue().set(charged, "0");
          return new Charge(id, true, 0);
        });
  }

  /**
   * Charges the invoice as {@link #charge(String)} does, as a {@link Mono} from Warden's reactive
   * API: the lock is awaited without blocking a thread, held while the charge runs (its Redis calls
   * on a scheduler for blocking work), and released when the charge ends, however it ends. The
   * hold's fencing token goes along with the charge, as a payment provider would need it.
   *
   * @param id the invoice's id
   * @return what happened, once it did
   */
  public Mono<Charge> chargeReactive(String id) {
    return ReactiveLocks.withLock(
        warden.lock("invoice-" + id),
        Duration.ofSeconds(5),
        hold ->
            Mono.fromCallable(
                    () -> {
                      String charged = "example:charged:" + id;
                      String previous = redis.opsForValue().get(charged);
                      if (previous != null) {
                        return new Charge(id, false, Long.parseLong(previous));
                      }
                      redis.opsForValue().set(charged, Long.toString(hold.fencingToken()));
                      return new Charge(id, true, hold.fencingToken());
                    })
                .subscribeOn(Schedulers.boundedElastic()));
  }
}
