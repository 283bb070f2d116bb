package dev.warden.internal.wait;

import static org.assertj.core.api.Assertions.assertThat;

import dev.warden.WardenException;
import dev.warden.internal.base.Events;
import dev.warden.internal.base.Settings;
import dev.warden.internal.base.VirtualTime;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisConnectionException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CancellationException;
import org.junit.jupiter.api.Test;

/**
 * The acquisition state machine in virtual time: a scripted claim answers each attempt by hand, a
 * stub pub/sub confirms subscriptions and delivers messages, and nothing runs on another thread.
 */
class AcquisitionTest {
  private static final String CHANNEL = ScriptedClaim.CHANNEL;
  private static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(3);
  private static final Duration RECHECK = Duration.ofSeconds(10);
  private static final Duration LINGER = Duration.ofMillis(Settings.SUBSCRIPTION_LINGER_MILLIS);

  private final Settings settings = new Settings(Duration.ofSeconds(30), COMMAND_TIMEOUT, RECHECK);
  private final VirtualTime time = new VirtualTime();
  private final StubPubSub pubSub = new StubPubSub();
  private final Subscriptions subscriptions =
      new Subscriptions(pubSub, "client-1", time, time, settings);
  private final Waiting waiting = new Waiting(settings, time, time, subscriptions, new Events());
  private final ScriptedClaim claim = new ScriptedClaim();

  /** How an acquisition ended, and when (virtual time). */
  private final class Result {
    String granted;
    Throwable failure;
    boolean done;
    long at;

    Result(Acquisition<String> acquisition) {
      acquisition.whenComplete(
          (value, error) -> {
            done = true;
            granted = value;
            failure = error;
            at = time.nanoTime();
          });
    }
  }

  private Acquisition<String> start(ScriptedClaim claim, Duration wait) {
    return new Acquisition<>(waiting, claim, wait == null ? -1 : wait.toNanos()).start();
  }

  /** Starts an acquisition that is refused, subscribes, is refused again and parks. */
  private Acquisition<String> parked(ScriptedClaim claim, Duration wait, long retryAfterMillis) {
    Acquisition<String> acquisition = start(claim, wait);
    claim.refuse(0);
    pubSub.confirm(CHANNEL);
    claim.refuse(retryAfterMillis);
    assertThat(subscriptions.parked()).isOne();
    return acquisition;
  }

  @Test
  void anAttemptThatIsGrantedCompletesAtOnceWithoutSubscribingOrLeavingATimerBehind() {
    Result result = new Result(start(claim, Duration.ofSeconds(5)));
    assertThat(claim.attempts).hasSize(1);
    assertThat(claim.othersWait).containsExactly(false);
    claim.grant("token-1");
    assertThat(result.granted).isEqualTo("token-1");
    assertThat(pubSub.subscribes).isEmpty();
    assertThat(time.pending()).as("the verdict timer is cancelled").isZero();
    assertThat(waiting.pending()).isZero();
    assertThat(claim.finished).containsExactly(true);
  }

  @Test
  void aRefusedAttemptJoinsTheTopicTriesAgainOnceSubscribedThenParks() {
    Result result = new Result(start(claim, null));
    claim.refuse(0);
    assertThat(pubSub.subscribes).containsExactly(CHANNEL);
    time.advance(Duration.ofSeconds(30));
    assertThat(claim.attempts).as("no attempt before the subscription is confirmed").hasSize(1);
    assertThat(time.pending()).isZero();

    pubSub.confirm(CHANNEL);
    assertThat(claim.attempts).hasSize(2);
    long parkedAt = time.nanoTime();
    claim.refuse(0);
    assertThat(subscriptions.parked()).isOne();
    assertThat(time.dueTimes()).containsExactly(parkedAt + RECHECK.toNanos());
    assertThat(result.done).isFalse();
    assertThat(pubSub.subscribes).hasSize(1);
  }

  @Test
  void aReleaseMessageOrALocalReleaseWakesTheParkedAcquisitionToTryAgain() {
    Result result = new Result(parked(claim, null, 0));
    pubSub.publish(CHANNEL, WakeMessage.released("client-2"));
    assertThat(claim.attempts).hasSize(3);
    assertThat(subscriptions.parked()).isZero();
    assertThat(time.pending()).as("the re-check timer is cancelled").isZero();
    claim.refuse(0);
    assertThat(subscriptions.parked()).isOne();

    pubSub.publish(CHANNEL, subscriptions.ownReleaseMessage());
    assertThat(claim.attempts).as("this client's own release message wakes nobody").hasSize(3);

    subscriptions.releasedLocally(CHANNEL, WakeMessage.ONE);
    assertThat(claim.attempts).hasSize(4);
    claim.grant("token-4");
    assertThat(result.granted).isEqualTo("token-4");
    assertThat(claim.finished).containsExactly(true);
  }

  @Test
  void theClientsOwnChannelIsSubscribedWithTheSharedOneAndWakesItsTopic() {
    Result result = new Result(parked(claim, null, 0));
    assertThat(pubSub.subscribes).containsExactly(CHANNEL);
    assertThat(pubSub.alongside).containsExactly(CHANNEL + ":client-1");
    assertThat(subscriptions.addressed(CHANNEL)).isEqualTo(CHANNEL + ":client-1");

    pubSub.publish(CHANNEL + ":client-1", WakeMessage.released("client-2") + " client-1");
    assertThat(claim.attempts).as("a nomination of this client on its own channel").hasSize(3);
    claim.refuse(0);
    pubSub.publish(CHANNEL + ":client-3", WakeMessage.released("client-2") + " client-3");
    assertThat(claim.attempts).as("another client's channel is no topic here").hasSize(3);
    pubSub.resubscribed(CHANNEL + ":client-1");
    assertThat(claim.attempts).as("the shared channel's confirmation stands for both").hasSize(3);
    assertThat(result.done).isFalse();
    assertThat(subscriptions.parked()).isOne();
  }

  @Test
  void theRecheckTimerTriesAgainAfterTheRecheckInterval() {
    parked(claim, null, 0);
    time.advance(RECHECK.minusNanos(1));
    assertThat(claim.attempts).hasSize(2);
    time.advance(Duration.ofNanos(1));
    assertThat(claim.attempts).hasSize(3);
    assertThat(subscriptions.parked()).isZero();
  }

  @Test
  void theRecheckTimerTriesAgainWhenTheHoldersLeaseMayHaveRunOutIfThatIsSooner() {
    parked(claim, null, 200);
    time.advance(Duration.ofMillis(200));
    assertThat(claim.attempts).hasSize(2);
    time.advance(Duration.ofNanos(1));
    assertThat(claim.attempts).hasSize(3);
  }

  @Test
  void aTimedAcquisitionWhoseWaitRunsOutCompletesWithNullExactlyAtTheDeadline() {
    long deadline = time.nanoTime() + Duration.ofSeconds(2).toNanos();
    Result result = new Result(parked(claim, Duration.ofSeconds(2), 0));
    time.advanceTo(deadline - 1);
    assertThat(result.done).isFalse();
    time.advanceTo(deadline);
    assertThat(claim.attempts).as("a last attempt at the deadline").hasSize(3);
    claim.refuse(0);
    assertThat(result.done).isTrue();
    assertThat(result.failure).isNull();
    assertThat(result.granted).isNull();
    assertThat(result.at).isEqualTo(deadline);
    assertThat(claim.finished).containsExactly(false);
    assertThat(time.dueTimes())
        .as("only the subscription's linger is left, not the verdict timer")
        .containsExactly(deadline + LINGER.toNanos());
  }

  @Test
  void aRedisThatNeverAnswersIsFailedByTheVerdictTimerAtTheDeadlinePlusTheMargin() {
    long verdictAt =
        time.nanoTime() + Duration.ofSeconds(2).toNanos() + settings.verdictMarginNanos();
    Result result = new Result(start(claim, Duration.ofSeconds(2)));
    time.advanceTo(verdictAt - 1);
    assertThat(result.done).isFalse();
    time.advanceTo(verdictAt);
    assertThat(result.at).isEqualTo(verdictAt);
    assertThat(result.failure)
        .isInstanceOf(WardenException.class)
        .hasMessage(
            "lock 'orders': acquire failed: no answer from Redis within the wait plus 500 ms");
    assertThat(claim.finished).containsExactly(false);

    claim.grant("late"); // the reply turns up after all: nobody will use it
    assertThat(claim.rollbacks).containsExactly("late");
  }

  @Test
  void transientFailuresAreRetriedAfterTheBackoffUntilTheyHaveLastedTheCommandTimeout() {
    long start = time.nanoTime();
    Result result = new Result(start(claim, null));
    long backoff = settings.retryBackoffNanos();
    assertThat(backoff).isEqualTo(Duration.ofMillis(50).toNanos());
    while (true) {
      claim.fail(new RedisConnectionException("connection lost"));
      if (result.done) {
        break;
      }
      assertThat(time.dueTimes()).containsExactly(time.nanoTime() + backoff);
      time.advance(Duration.ofNanos(backoff - 1));
      int sent = claim.attempts.size();
      time.advance(Duration.ofNanos(1));
      assertThat(claim.attempts).hasSize(sent + 1);
    }
    assertThat(result.at - start).isEqualTo(COMMAND_TIMEOUT.toNanos());
    assertThat(claim.attempts).hasSize(61); // at 0, 50, ..., 3000 ms
    assertThat(result.failure)
        .isInstanceOf(WardenException.class)
        .hasMessage("lock 'orders': acquire failed: Redis did not answer for 3000 ms")
        .hasCauseInstanceOf(RedisConnectionException.class);
    assertThat(time.pending()).isZero();
    assertThat(claim.finished).containsExactly(false);
  }

  @Test
  void aTransientFailureFollowedByAnAnswerIsForgotten() {
    Result result = new Result(start(claim, null));
    claim.fail(new RedisConnectionException("connection lost"));
    time.advance(Duration.ofMillis(50));
    claim.grant("token-2");
    assertThat(result.granted).isEqualTo("token-2");
    assertThat(result.failure).isNull();
  }

  @Test
  void aFailureThatIsNotTransientFailsTheAcquisitionAtOnce() {
    Result result = new Result(start(claim, null));
    claim.fail(new RedisCommandExecutionException("ERR Error running script"));
    assertThat(result.failure)
        .isInstanceOf(WardenException.class)
        .hasMessage("lock 'orders': acquire failed: ERR Error running script");
    assertThat(claim.attempts).hasSize(1);
    assertThat(time.pending()).as("no retry scheduled").isZero();
  }

  @Test
  void aGrantArrivingAfterCancelIsGivenBackThroughTheClaimsRollback() {
    Acquisition<String> acquisition = start(claim, null);
    Result result = new Result(acquisition);
    assertThat(acquisition.cancel()).isTrue();
    assertThat(result.failure).isInstanceOf(CancellationException.class);
    assertThat(claim.finished).containsExactly(false);
    claim.grant("token-3");
    assertThat(claim.rollbacks).containsExactly("token-3");
    assertThat(claim.finished).containsExactly(false);
  }

  @Test
  void aVerdictWithAnAttemptOnItsWayGivesBackBehindItBeforeTheCallerHears() {
    claim.givesBackInDoubt = true;
    Result result = new Result(start(claim, Duration.ofSeconds(2)));
    time.advance(Duration.ofSeconds(2).plusNanos(settings.verdictMarginNanos()));
    assertThat(result.failure).isInstanceOf(WardenException.class);
    assertThat(claim.giveBacksInDoubt).as("sent behind the one attempt").containsExactly(1);
    assertThat(claim.finished).containsExactly(false);

    // the give-back went out behind it, but the attempt may have run after it all the same (sent
    // again as EVAL after NOSCRIPT): its grant is given back too (a give-back names the
    // acquisition,
    // so one with nothing more to undo changes nothing)
    claim.grant("late");
    assertThat(claim.rollbacks).containsExactly("late");
    assertThat(claim.giveBacksInDoubt).hasSize(1);
  }

  @Test
  void anAttemptThatFailedInDoubtIsGivenBackOnceBeforeTheFailureIsReported() {
    claim.givesBackInDoubt = true;
    Acquisition<String> acquisition = start(claim, null);
    List<Integer> sentWhenTheCallerHeard = new ArrayList<>();
    acquisition.whenComplete(
        (granted, failure) -> sentWhenTheCallerHeard.add(claim.giveBacksInDoubt.size()));
    Result result = new Result(acquisition);
    while (!result.done) {
      claim.fail(new RedisConnectionException("connection lost"));
      time.advance(Duration.ofNanos(settings.retryBackoffNanos()));
    }
    assertThat(result.failure).hasMessageContaining("Redis did not answer");
    assertThat(sentWhenTheCallerHeard).as("sent before the caller hears").containsExactly(1);
    assertThat(claim.giveBacksInDoubt).containsExactly(claim.attempts.size());
  }

  @Test
  void anAcquisitionWhoseAttemptsAllGotAnAnswerGivesNothingBackInDoubt() {
    claim.givesBackInDoubt = true;
    Result granted = new Result(start(claim, null));
    claim.fail(new RedisConnectionException("connection lost"));
    time.advance(Duration.ofMillis(50));
    claim.grant("token-2"); // the retry, with the same acquisition, covers the first attempt
    assertThat(granted.granted).isEqualTo("token-2");

    ScriptedClaim refused = new ScriptedClaim();
    refused.givesBackInDoubt = true;
    Result timedOut = new Result(parked(refused, Duration.ofSeconds(1), 0));
    time.advance(Duration.ofSeconds(1));
    refused.refuse(0);
    assertThat(timedOut.done).isTrue();
    assertThat(timedOut.granted).isNull();
    assertThat(claim.giveBacksInDoubt).isEmpty();
    assertThat(refused.giveBacksInDoubt).isEmpty();
  }

  @Test
  void aCancelWithAnAttemptOnItsWayGivesBackBehindIt() {
    claim.givesBackInDoubt = true;
    Acquisition<String> acquisition = start(claim, null);
    assertThat(acquisition.cancel()).isTrue();
    assertThat(claim.giveBacksInDoubt).containsExactly(1);
    claim.fail(new RedisConnectionException("connection lost"));
    assertThat(claim.giveBacksInDoubt)
        .as("once more: the failed attempt may have run after the first (EVAL after NOSCRIPT)")
        .containsExactly(1, 1);
    assertThat(claim.rollbacks).isEmpty();
  }

  @Test
  void anAcquisitionThatEndsWithoutAGrantLeavesItsQueueBeforeTheCallerHearsAndAfterItsAttempts() {
    claim.leaves = true;
    Acquisition<String> acquisition = parked(claim, Duration.ofSeconds(2), 0);
    acquisition.whenComplete((granted, failure) -> claim.log.add("caller hears"));
    time.advance(Duration.ofSeconds(2)); // the re-check at the deadline asks once more
    claim.refuse(0);
    assertThat(claim.log)
        .as("nothing is sent after the leave: the owner's next acquisition keeps its place")
        .containsExactly("attempt", "attempt", "attempt", "leave", "caller hears");
    subscriptions.releasedLocally(CHANNEL, WakeMessage.ONE);
    assertThat(claim.attempts).hasSize(3);
    assertThat(claim.finished).containsExactly(false);

    ScriptedClaim granted = new ScriptedClaim();
    granted.leaves = true;
    start(granted, Duration.ofSeconds(2));
    granted.grant("token-1");
    assertThat(granted.log).as("a grant left the queue already").containsExactly("attempt");
  }

  @Test
  void aHandOffInDoubtToAnAcquisitionThatIsOverIsGivenBackAtOnce() {
    claim.givesBackInDoubt = true;
    Acquisition<String> acquisition = parked(claim, Duration.ofSeconds(1), 0);
    time.advance(Duration.ofSeconds(1));
    claim.refuse(0);
    assertThat(claim.giveBacksInDoubt).as("nothing was in doubt").isEmpty();
    acquisition.handOffInDoubt(); // a transfer to it, claimed while parked, timed out
    assertThat(claim.giveBacksInDoubt).hasSize(1);
    assertThat(claim.attempts).as("no attempt of an acquisition that is over").hasSize(3);
  }

  @Test
  void aHandOffInDoubtMakesAWaiterTryAgainAndItsLaterEndGivesItBack() {
    claim.givesBackInDoubt = true;
    Acquisition<String> acquisition = parked(claim, Duration.ofSeconds(5), 0);
    Result result = new Result(acquisition);
    assertThat(claim.attempts).hasSize(2);
    // a release took it off its topic for a hand-off, and the transfer timed out
    acquisition.handOffInDoubt();
    assertThat(claim.attempts).as("it tries for itself at once").hasSize(3);
    claim.refuse(0); // the transfer did not run: another owner holds the lock
    assertThat(claim.giveBacksInDoubt).isEmpty();
    time.advance(Duration.ofSeconds(5));
    claim.refuse(0);
    assertThat(result.done).isTrue();
    assertThat(claim.giveBacksInDoubt)
        .as("the hand-off is still in doubt at the end: given back by the acquisition's id")
        .hasSize(1);
  }

  @Test
  void closingWaitingFailsEveryPendingAcquisitionAndEveryLaterOne() {
    Result parked = new Result(parked(claim, null, 0));
    ScriptedClaim other = new ScriptedClaim();
    Result inFlight = new Result(start(other, Duration.ofSeconds(5)));
    assertThat(waiting.pending()).isEqualTo(2);

    waiting.close();
    for (Result result : new Result[] {parked, inFlight}) {
      assertThat(result.failure)
          .isInstanceOf(WardenException.class)
          .hasMessage("the Warden was closed while this call waited");
    }
    assertThat(waiting.pending()).isZero();
    assertThat(subscriptions.parked()).isZero();
    assertThat(subscriptions.subscriptions()).isZero();
    other.grant("token-5");
    assertThat(other.rollbacks).containsExactly("token-5");

    ScriptedClaim late = new ScriptedClaim();
    Result afterClose = new Result(start(late, null));
    assertThat(afterClose.failure).hasMessage("the Warden is closed");
    assertThat(late.attempts).isEmpty();
    assertThat(late.finished).containsExactly(false);
  }

  @Test
  void finishedIsCalledOnceWithTheVerdictWhateverHappensAfterwards() {
    Acquisition<String> acquisition = parked(claim, Duration.ofSeconds(5), 0);
    pubSub.publish(CHANNEL, "released");
    claim.grant("token-6");
    assertThat(acquisition.cancel()).isFalse();
    acquisition.fail(new WardenException("too late"));
    acquisition.wake();
    time.advance(Duration.ofSeconds(60));
    assertThat(claim.finished).containsExactly(true);
    assertThat(claim.rollbacks).isEmpty();
    assertThat(claim.attempts).hasSize(3);
  }

  @Test
  void theSubscriptionLingersOneLingerPeriodAfterTheLastMemberLeftThenIsDropped() {
    parked(claim, null, 0);
    pubSub.publish(CHANNEL, "released");
    claim.grant("token-7");
    long leftAt = time.nanoTime();
    assertThat(subscriptions.subscriptions()).isZero();
    assertThat(subscriptions.topic(CHANNEL)).as("kept for the linger period").isNotNull();

    time.advanceTo(leftAt + LINGER.toNanos() - 1);
    assertThat(pubSub.unsubscribes).isEmpty();
    time.advanceTo(leftAt + LINGER.toNanos());
    assertThat(pubSub.unsubscribes).containsExactly(CHANNEL);
    assertThat(subscriptions.topic(CHANNEL)).isNull();
  }

  @Test
  void anAcquisitionThatRejoinsWithinTheLingerKeepsTheSubscriptionAndParksWithoutASecondTry() {
    parked(claim, null, 0);
    pubSub.publish(CHANNEL, "released");
    claim.grant("token-8");
    long leftAt = time.nanoTime();

    time.advance(LINGER.dividedBy(2));
    ScriptedClaim next = new ScriptedClaim();
    Result result = new Result(start(next, null));
    next.refuse(0);
    assertThat(next.attempts).as("the topic was subscribed before its attempt").hasSize(1);
    assertThat(subscriptions.parked()).isOne();

    time.advanceTo(leftAt + LINGER.toNanos());
    assertThat(pubSub.unsubscribes).isEmpty();
    assertThat(pubSub.subscribes).containsExactly(CHANNEL);

    pubSub.publish(CHANNEL, "released");
    next.grant("token-9");
    assertThat(result.granted).isEqualTo("token-9");
    long secondLeftAt = time.nanoTime();
    time.advanceTo(secondLeftAt + LINGER.toNanos());
    assertThat(pubSub.unsubscribes).containsExactly(CHANNEL);
  }

  @Test
  void aHolderWhoseLeaseEndsWithinTheMillisecondIsAskedAgainAMillisecondLaterNotAtTheInterval() {
    // PTTL answers 0 for a lease that ends within the millisecond, and a re-check timed at the
    // holder's remaining lease (PTTL rounds down) lands on that edge often: read as "unknown", the
    // lock was found free only at the next (backed-off) interval, a second late in MaxHoldTimeIT
    ScriptedClaim claim = parkedInLine(1, null).get(0);
    time.advance(RECHECK);
    assertThat(claim.attempts).hasSize(3);
    long refusedAt = time.nanoTime();
    claim.refuse(Outcome.untilExpiry(0));
    time.advanceTo(refusedAt + Duration.ofMillis(1).toNanos());
    assertThat(claim.attempts).hasSize(3);
    time.advance(Duration.ofNanos(1));
    assertThat(claim.attempts).as("asked again once that millisecond is over").hasSize(4);
  }

  @Test
  void aWaiterOnItsOwnTimerAlsoAsksAgainAMillisecondAfterALeaseThatEndsWithinTheMillisecond() {
    parked(claim, null, Outcome.untilExpiry(0));
    time.advance(Duration.ofMillis(1).plusNanos(1));
    assertThat(claim.attempts).hasSize(3);
  }

  /** Starts {@code count} acquisitions in one line and has each refused until it parks. */
  private List<ScriptedClaim> parkedInLine(int count, Duration wait) {
    List<ScriptedClaim> claims = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      ScriptedClaim claim = ScriptedClaim.inLine("owner-" + i);
      claims.add(claim);
      start(claim, wait);
      claim.refuse(0);
    }
    pubSub.confirm(CHANNEL); // each tries again once subscribed
    for (ScriptedClaim claim : claims) {
      claim.refuse(0);
    }
    assertThat(subscriptions.parked()).isEqualTo(count);
    return claims;
  }

  private static int attempts(List<ScriptedClaim> claims) {
    return claims.stream().mapToInt(c -> c.attempts.size()).sum();
  }

  @Test
  void aLineOfAHundredParkedAcquisitionsAsksRedisOncePerRecheckInterval() {
    aLineAsksRedisOncePerRecheckInterval(100);
  }

  @Test
  void aLineOfAThousandParkedAcquisitionsAsksRedisOncePerRecheckInterval() {
    aLineAsksRedisOncePerRecheckInterval(1000);
  }

  private void aLineAsksRedisOncePerRecheckInterval(int count) {
    List<ScriptedClaim> claims = parkedInLine(count, null);
    int before = attempts(claims);
    for (int round = 1; round <= 3; round++) {
      time.advance(RECHECK);
      assertThat(attempts(claims) - before).as("round " + round).isEqualTo(round);
      assertThat(claims.get(0).attempts).as("by the first in line").hasSize(2 + round);
      claims.get(0).refuse(0); // busy: it parks again, and so stand all the others
    }
    // the first gets the lock: the others stay parked, and the next one checks next time
    time.advance(RECHECK);
    claims.get(0).grant("token");
    time.advance(RECHECK);
    assertThat(claims.get(1).attempts).hasSize(3);
    assertThat(attempts(claims) - before).isEqualTo(5);
    assertThat(subscriptions.parked()).isEqualTo(count - 2);
  }

  @Test
  void aRecheckAsksRedisNothingWhileAnotherOwnerOfThisClientHoldsTheObject() {
    ScriptedClaim claim = ScriptedClaim.inLine("owner-1");
    claim.heldLocally = true;
    Result result = new Result(start(claim, null));
    assertThat(pubSub.subscribes).containsExactly(CHANNEL);
    pubSub.confirm(CHANNEL);
    time.advance(RECHECK.multipliedBy(50));
    assertThat(claim.attempts)
        .as("neither at first nor when subscribed nor at re-checks")
        .isEmpty();
    assertThat(subscriptions.parked()).isOne();

    claim.heldLocally = false; // its hold was found lost: nothing woke us, the re-check asks
    time.advance(RECHECK);
    assertThat(claim.attempts).hasSize(1);
    claim.grant("token-1");
    assertThat(result.granted).isEqualTo("token-1");
  }

  @Test
  void aWakeUpAsksRedisEvenWhileTheObjectIsHeldLocally() {
    ScriptedClaim claim = ScriptedClaim.inLine("owner-1");
    claim.heldLocally = true;
    start(claim, null);
    pubSub.confirm(CHANNEL);
    pubSub.publish(CHANNEL, "released"); // e.g. force-unlocked by another client
    assertThat(claim.attempts).hasSize(1);
  }

  @Test
  void aTimedAcquisitionHeldLocallyEndsAtItsDeadlineWithoutAskingRedis() {
    ScriptedClaim claim = ScriptedClaim.inLine("owner-1");
    claim.heldLocally = true;
    long deadline = time.nanoTime() + Duration.ofSeconds(2).toNanos();
    Result result = new Result(start(claim, Duration.ofSeconds(2)));
    pubSub.confirm(CHANNEL);
    time.advanceTo(deadline - 1);
    assertThat(result.done).isFalse();
    time.advanceTo(deadline);
    assertThat(result.done).isTrue();
    assertThat(result.granted).isNull();
    assertThat(result.failure).isNull();
    assertThat(claim.attempts).isEmpty();
  }

  @Test
  void aTimedAcquisitionBehindTheFirstInLineStillEndsExactlyAtItsDeadline() {
    List<ScriptedClaim> claims = parkedInLine(2, null);
    ScriptedClaim timed = ScriptedClaim.inLine("owner-timed");
    long deadline = time.nanoTime() + Duration.ofSeconds(15).toNanos();
    Result result = new Result(start(timed, Duration.ofSeconds(15)));
    timed.refuse(0); // the topic is subscribed: it parks at once
    time.advance(RECHECK);
    claims.get(0).refuse(0);
    time.advanceTo(deadline - 1);
    assertThat(timed.attempts).hasSize(1);
    time.advanceTo(deadline);
    assertThat(timed.attempts).as("a last attempt of its own at the deadline").hasSize(2);
    timed.refuse(0);
    assertThat(result.done).isTrue();
    assertThat(result.at).isEqualTo(deadline);
    assertThat(result.granted).isNull();
    assertThat(subscriptions.parked()).isEqualTo(2);
  }

  @Test
  void cancellingOneAcquisitionInALineEndsItAloneAndTheLineGoesOn() {
    List<ScriptedClaim> claims = parkedInLine(3, null);
    ScriptedClaim cancelled = ScriptedClaim.inLine("owner-cancelled");
    Acquisition<String> acquisition = start(cancelled, null);
    cancelled.refuse(0);
    assertThat(acquisition.cancel()).isTrue();
    assertThat(subscriptions.parked()).isEqualTo(3);
    assertThat(cancelled.finished).containsExactly(false);
    time.advance(RECHECK);
    assertThat(attempts(claims)).isEqualTo(7);
    assertThat(cancelled.attempts).hasSize(1);
  }

  @Test
  void theFirstConfirmationOfASubscriptionWakesNobodyWhicheverReachesUsFirst() {
    ScriptedClaim claim = ScriptedClaim.inLine("owner-1");
    claim.heldLocally = true;
    start(claim, null);
    pubSub.confirmFutureFirst(CHANNEL);
    assertThat(subscriptions.parked()).isOne();
    assertThat(claim.attempts).isEmpty();
  }

  @Test
  void aResubscriptionWakesOnlyTheFirstOfALineAndEveryWaiterOutsideOne() {
    List<ScriptedClaim> claims = parkedInLine(5, null);
    ScriptedClaim alone = new ScriptedClaim();
    start(alone, null);
    alone.refuse(0);
    int before = attempts(claims);
    pubSub.resubscribed(CHANNEL); // messages may have been lost while the connection was down
    assertThat(attempts(claims) - before).isOne();
    assertThat(claims.get(0).attempts).hasSize(3);
    assertThat(alone.attempts).hasSize(2);
  }

  // ---- direct grants ----

  private static final String OWN = CHANNEL + ":client-1";

  @Test
  void aDirectGrantCompletesTheParkedAcquisitionItNamesWithNoAttempt() {
    ScriptedClaim named = ScriptedClaim.inLine("client-1:1");
    named.grantId = "a1";
    Result result = new Result(parked(named, null, 0));
    int attempts = named.attempts.size();

    pubSub.publish(OWN, "granted 42 a1 client-1:1");

    assertThat(result.granted).isEqualTo("granted-42");
    assertThat(named.attempts).hasSize(attempts);
    assertThat(named.grantsGivenBack).isEmpty();
    assertThat(subscriptions.parked()).isZero();
  }

  @Test
  void aDirectGrantForAnAcquisitionInFlightMakesItTryOnceMoreAndIsGivenBackByTokenWhenItEnds() {
    ScriptedClaim named = ScriptedClaim.inLine("client-1:1");
    named.grantId = "a1";
    Result result = new Result(parked(named, null, 0));
    pubSub.publish(CHANNEL, "released client-2"); // woken: its attempt is in flight
    int attempts = named.attempts.size();

    pubSub.publish(OWN, "granted 42 a1 client-1:1");
    assertThat(result.done).as("not completed from the message: its attempt may answer").isFalse();
    named.refuse(0); // it ran before the grant

    assertThat(named.attempts)
        .as("not parked: it tries again, a replay of the granted acquisition")
        .hasSize(attempts + 1);
    named.grant("replayed");
    assertThat(result.granted).isEqualTo("replayed");
    // the grant's own token is given back: Redis changes nothing (the replay minted another)
    assertThat(named.grantsGivenBack).containsExactly("client-1:1 a1 42");
  }

  @Test
  void aDirectGrantThatComesBeforeTheFirstRefusalIsReadIsKeptForTheAcquisitionsReplay() {
    ScriptedClaim first = ScriptedClaim.inLine("client-1:1");
    first.grantId = "a1";
    parked(first, null, 0); // the client listens on the lock's channels
    ScriptedClaim next = ScriptedClaim.inLine("client-1:2");
    next.grantId = "a2";
    Result result = new Result(start(next, null)); // its first attempt is on its way
    int attempts = next.attempts.size();

    // its attempt queued it, and the lock was granted to it before this client read the refusal
    pubSub.publish(OWN, "granted 42 a2 client-1:2");
    assertThat(first.grantsGivenBack.size() + next.grantsGivenBack.size())
        .as("not given back as a grant nobody waits for")
        .isZero();
    next.refuse(0);

    assertThat(next.attempts).as("not parked: a replay takes the grant").hasSize(attempts + 1);
    next.grant("replayed");
    assertThat(result.granted).isEqualTo("replayed");
    assertThat(next.grantsGivenBack).containsExactly("client-1:2 a2 42"); // a no-op in Redis
    assertThat(subscriptions.parked()).isOne();
  }

  @Test
  void anAcquisitionListedForGrantsBeforeItsFirstAttemptKeepsItsPlaceBehindThoseThatWaitedFirst() {
    ScriptedClaim first = ScriptedClaim.inLine("client-1:1");
    first.grantId = "a1";
    parked(first, null, 0); // listed after its refusal: it waits first
    ScriptedClaim second = ScriptedClaim.inLine("client-1:2");
    second.grantId = "a2";
    new Result(start(second, null)); // listed before its first attempt, as the topic is subscribed
    second.refuse(0);
    ScriptedClaim third = ScriptedClaim.inLine("client-1:3");
    third.grantId = "a3";
    new Result(start(third, null));
    third.refuse(0);
    assertThat(subscriptions.parked()).isEqualTo(3);
    int[] before = {first.attempts.size(), second.attempts.size(), third.attempts.size()};

    pubSub.publish(CHANNEL, "released client-2"); // wakes one: the one parked longest

    assertThat(first.attempts).as("the first to wait is woken first").hasSize(before[0] + 1);
    assertThat(second.attempts).hasSize(before[1]);
    assertThat(third.attempts).hasSize(before[2]);
    first.grant("token-1"); // it takes the lock and leaves
    pubSub.publish(CHANNEL, "released client-2");
    assertThat(second.attempts).as("then the next to wait, not the last").hasSize(before[1] + 1);
    assertThat(third.attempts).hasSize(before[2]);
  }

  @Test
  void aGrantToAnAcquisitionWhoseTopicLingeredOutAsItsFirstAttemptWasSentIsKeptOrGivenBack() {
    ScriptedClaim earlier = ScriptedClaim.inLine("client-1:1");
    earlier.grantId = "a1";
    parked(earlier, null, 0).cancel(); // the client listened; the subscription lingers
    ScriptedClaim next = ScriptedClaim.inLine("client-1:2");
    next.grantId = "a2";
    // the linger ends after the attempt found the subscribed topic, before it joined it
    next.atNextGrantId = () -> time.advance(LINGER);
    Acquisition<String> acquisition = start(next, null);
    Result result = new Result(acquisition);
    assertThat(pubSub.unsubscribes).containsExactly(CHANNEL);
    assertThat(pubSub.subscribes).as("subscribed anew before the attempt").hasSize(2);
    pubSub.confirm(CHANNEL);

    // the attempt queued it, and the lock was granted to it before this client read the refusal
    pubSub.publish(OWN, "granted 42 a2 client-1:2");
    acquisition.cancel(); // it ends before it reads the refusal

    assertThat(result.done).isTrue();
    assertThat(next.grantsGivenBack)
        .as("the grant is given back, not left to its grant lease")
        .containsExactly("client-1:2 a2 42");
  }

  @Test
  void anAcquisitionWhoseTopicLingeredOutAsItsFirstAttemptWasSentTakesAGrantThatCameFirst() {
    ScriptedClaim earlier = ScriptedClaim.inLine("client-1:1");
    earlier.grantId = "a1";
    parked(earlier, null, 0).cancel();
    ScriptedClaim next = ScriptedClaim.inLine("client-1:2");
    next.grantId = "a2";
    next.atNextGrantId = () -> time.advance(LINGER);
    Result result = new Result(start(next, null));
    int attempts = next.attempts.size();

    pubSub.publish(OWN, "granted 42 a2 client-1:2"); // subscribed, not yet confirmed here
    next.refuse(0);
    assertThat(next.attempts).as("no attempt before the confirmation").hasSize(attempts);
    pubSub.confirm(CHANNEL);
    assertThat(next.attempts).as("then a replay, which takes the grant").hasSize(attempts + 1);
    next.grant("replayed");

    assertThat(result.granted).isEqualTo("replayed");
    assertThat(subscriptions.parked()).isZero();
    time.advance(LINGER);
    assertThat(subscriptions.subscriptions()).as("no member left behind").isZero();
    assertThat(pubSub.unsubscribes).hasSize(2);
  }

  /** A grantable acquisition started while the client listens on the lock's channels. */
  private ScriptedClaim listedEarly(String owner, String grantId) {
    ScriptedClaim first = ScriptedClaim.inLine("client-1:0");
    first.grantId = "a0";
    parked(first, null, 0).cancel(); // the subscription lingers: an early listing joins it
    ScriptedClaim next = ScriptedClaim.inLine(owner);
    next.grantId = grantId;
    return next;
  }

  @Test
  void anAcquisitionListedEarlyWhoseFirstAttemptIsGrantedLeavesTheTopicOnce() {
    ScriptedClaim next = listedEarly("client-1:1", "a1");
    Result result = new Result(start(next, null));
    assertThat(next.othersWait).as("its own listing is no other waiter").containsExactly(false);
    assertThat(subscriptions.subscriptions()).isOne();
    next.grant("token-1");

    assertThat(result.granted).isEqualTo("token-1");
    assertThat(subscriptions.subscriptions()).as("no member left").isZero();
    pubSub.publish(OWN, "granted 9 a1 client-1:1"); // a stray grant to it, while it lingers
    assertThat(next.grantsGivenBack).containsExactly("client-1:1 a1 9");
    time.advance(LINGER);
    assertThat(pubSub.unsubscribes).containsExactly(CHANNEL);
  }

  @Test
  void anAcquisitionListedEarlyThatFailsAfterAGrantCameGivesItBackOnce() {
    ScriptedClaim next = listedEarly("client-1:1", "a1");
    Result result = new Result(start(next, null));
    pubSub.publish(OWN, "granted 42 a1 client-1:1");
    next.fail(new RedisCommandExecutionException("ERR Error running script"));

    assertThat(result.failure).isInstanceOf(WardenException.class);
    assertThat(next.grantsGivenBack).containsExactly("client-1:1 a1 42");
    assertThat(subscriptions.subscriptions()).isZero();
  }

  @Test
  void anAcquisitionListedEarlyWhoseWaitRunsOutAtItsFirstRefusalGivesBackTheGrantThatCame() {
    ScriptedClaim next = listedEarly("client-1:1", "a1");
    Result result = new Result(start(next, Duration.ofMillis(50)));
    time.advance(Duration.ofMillis(50)); // the first attempt is still on its way
    pubSub.publish(OWN, "granted 42 a1 client-1:1");
    next.refuse(0);

    assertThat(result.done).isTrue();
    assertThat(result.granted).isNull();
    assertThat(next.attempts).hasSize(1);
    assertThat(next.grantsGivenBack).containsExactly("client-1:1 a1 42");
    assertThat(subscriptions.subscriptions()).isZero();
  }

  @Test
  void anAcquisitionListedEarlyThatIsCancelledBeforeTheGrantComesHasItGivenBackOnce() {
    ScriptedClaim next = listedEarly("client-1:1", "a1");
    Acquisition<String> acquisition = start(next, null);
    acquisition.cancel(); // its attempt is on its way
    pubSub.publish(OWN, "granted 42 a1 client-1:1"); // it ran, and the lock was granted to it
    next.refuse(0);

    assertThat(next.grantsGivenBack).containsExactly("client-1:1 a1 42");
    assertThat(next.attempts).hasSize(1);
    assertThat(subscriptions.subscriptions()).isZero();
  }

  @Test
  void aDirectGrantForAnAcquisitionThatIsOverOrUnknownIsGivenBackAtOnce() {
    ScriptedClaim listed = ScriptedClaim.inLine("client-1:1");
    listed.grantId = "a1";
    Acquisition<String> acquisition = parked(listed, null, 0);
    ScriptedClaim other = ScriptedClaim.inLine("client-1:2");
    other.grantId = "a2";
    Result waiting = new Result(start(other, null));
    other.refuse(0); // subscribed already: it parks
    assertThat(subscriptions.parked()).isEqualTo(2);

    pubSub.publish(OWN, "granted 7 zz client-1:9"); // an acquisition this client does not have
    acquisition.cancel();
    pubSub.publish(OWN, "granted 8 a1 client-1:1"); // one that ended

    assertThat(listed.grantsGivenBack.size() + other.grantsGivenBack.size()).isEqualTo(2);
    assertThat(waiting.done).isFalse();
    assertThat(listed.rollbacks).isEmpty();
  }

  @Test
  void aGrantMessageOfAnotherShapeOrOnTheSharedChannelIsIgnored() {
    ScriptedClaim named = ScriptedClaim.inLine("client-1:1");
    named.grantId = "a1";
    Result result = new Result(parked(named, null, 0));
    int attempts = named.attempts.size();

    pubSub.publish(CHANNEL, "granted 42 a1 client-1:1");
    pubSub.publish(OWN, "granted x a1 client-1:1");
    pubSub.publish(OWN, "granted 42 a1");

    assertThat(result.done).isFalse();
    assertThat(named.attempts).hasSize(attempts);
    assertThat(named.grantsGivenBack).isEmpty();
  }

  @Test
  void aWaiterWhoseWaitRunsOutAsTheGrantLandsGivesTheGrantBackByItsToken() {
    ScriptedClaim named = ScriptedClaim.inLine("client-1:1");
    named.grantId = "a1";
    long deadline = time.nanoTime() + Duration.ofSeconds(2).toNanos();
    Result result = new Result(parked(named, Duration.ofSeconds(2), 0));
    time.advanceTo(deadline); // its last attempt, at the deadline, is on its way
    int attempts = named.attempts.size();

    pubSub.publish(OWN, "granted 42 a1 client-1:1"); // the grant lands meanwhile
    named.refuse(0); // the attempt ran before it

    assertThat(result.done).as("the wait ran out: it ends without the lock").isTrue();
    assertThat(result.granted).isNull();
    assertThat(named.attempts).hasSize(attempts);
    assertThat(named.grantsGivenBack).containsExactly("client-1:1 a1 42");
  }
}
