package dev.warden.integration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.warden.Warden;
import dev.warden.testkit.RedisServer;
import dev.warden.testkit.WardenExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.context.ApplicationEvent;
import org.springframework.context.ApplicationListener;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.integration.leader.Context;
import org.springframework.integration.leader.DefaultCandidate;
import org.springframework.integration.leader.event.OnGrantedEvent;
import org.springframework.integration.leader.event.OnRevokedEvent;
import org.springframework.integration.support.leader.LockRegistryLeaderInitiator;

/**
 * Spring Integration's own leader election ({@link LockRegistryLeaderInitiator}) on {@link
 * WardenLockRegistry}: two candidates, each in a Spring context of its own with its own {@link
 * Warden}, against one real redis-server. At most one leads at any time, and leadership moves to
 * the other candidate when the leader yields, stops, or loses its Redis client, within a bounded
 * time.
 */
@ExtendWith(WardenExtension.class)
class LeaderElectionIT {
  private static final Duration WATCHDOG = Duration.ofSeconds(1);
  private static final Duration BOUND = Duration.ofSeconds(10);

  private final Election election = new Election();
  private final List<AnnotationConfigApplicationContext> contexts = new ArrayList<>();

  @AfterEach
  void closeContexts() {
    contexts.forEach(AnnotationConfigApplicationContext::close);
  }

  /**
   * The shared record of leadership: every grant checks that no other candidate leads at that
   * moment ({@code Context.isLeader()} turns true before the grant and false before the lock is
   * released, so two overlapping leaderships are seen by the grant of the later one).
   */
  static final class Election {
    final Map<String, LockRegistryLeaderInitiator> initiators = new ConcurrentHashMap<>();
    final Map<String, AtomicInteger> grants = new ConcurrentHashMap<>();
    final Map<String, AtomicInteger> revocations = new ConcurrentHashMap<>();
    final Map<String, AtomicInteger> events = new ConcurrentHashMap<>();
    final List<String> overlaps = new ArrayList<>(); // guarded by itself

    void granted(String name) {
      initiators.forEach(
          (other, initiator) -> {
            if (!other.equals(name) && initiator.getContext().isLeader()) {
              synchronized (overlaps) {
                overlaps.add(name + " was granted leadership while " + other + " led");
              }
            }
          });
      count(grants, name);
    }

    void revoked(String name) {
      count(revocations, name);
    }

    void event(String what) {
      count(events, what);
    }

    static void count(Map<String, AtomicInteger> counts, String name) {
      counts.computeIfAbsent(name, n -> new AtomicInteger()).incrementAndGet();
    }

    static int countOf(Map<String, AtomicInteger> counts, String name) {
      AtomicInteger count = counts.get(name);
      return count == null ? 0 : count.get();
    }

    List<String> leaders() {
      List<String> leaders = new ArrayList<>();
      initiators.forEach(
          (name, initiator) -> {
            if (initiator.getContext().isLeader()) {
              leaders.add(name);
            }
          });
      return leaders;
    }

    /** Waits until exactly one candidate leads, and returns its name. */
    String awaitOneLeader() {
      await().atMost(BOUND).until(() -> leaders().size() == 1);
      return leaders().get(0);
    }

    List<String> overlaps() {
      synchronized (overlaps) {
        return List.copyOf(overlaps);
      }
    }
  }

  /** What one candidate's context needs from the test. */
  record Node(String name, String redisUri, Election election) {}

  /** A candidate that tells the election; the initiator calls it on its selector thread. */
  static final class RecordingCandidate extends DefaultCandidate {
    private final Node node;

    RecordingCandidate(Node node) {
      super(node.name(), "leader");
      this.node = node;
    }

    @Override
    public void onGranted(Context context) {
      node.election().granted(node.name());
      super.onGranted(context);
    }

    @Override
    public void onRevoked(Context context) {
      node.election().revoked(node.name());
      super.onRevoked(context);
    }
  }

  /** One candidate's application: a Warden, the registry and Spring Integration's initiator. */
  @Configuration(proxyBeanMethods = false)
  static class LeaderConfig {
    @Bean(destroyMethod = "close")
    Warden warden(Node node) {
      return Warden.builder().uri(node.redisUri()).watchdogTimeout(WATCHDOG).build();
    }

    @Bean
    WardenLockRegistry lockRegistry(Warden warden) {
      return new WardenLockRegistry(warden, "leaders:");
    }

    @Bean
    LockRegistryLeaderInitiator leaderInitiator(WardenLockRegistry registry, Node node) {
      LockRegistryLeaderInitiator initiator =
          new LockRegistryLeaderInitiator(registry, new RecordingCandidate(node));
      initiator.setHeartBeatMillis(100);
      return initiator;
    }

    @Bean
    ApplicationListener<ApplicationEvent> leaderEvents(Node node) {
      return event -> {
        if (event instanceof OnGrantedEvent) {
          node.election().event("granted " + node.name());
        } else if (event instanceof OnRevokedEvent) {
          node.election().event("revoked " + node.name());
        }
      };
    }
  }

  private AnnotationConfigApplicationContext start(String name, RedisServer redis) {
    AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext();
    context.registerBean(Node.class, () -> new Node(name, redis.uri(), election));
    context.register(LeaderConfig.class);
    context.refresh();
    contexts.add(context);
    election.initiators.put(name, context.getBean(LockRegistryLeaderInitiator.class));
    return context;
  }

  private AnnotationConfigApplicationContext contextOf(String name) {
    return contexts.stream()
        .filter(c -> c.getBean(Node.class).name().equals(name))
        .findFirst()
        .orElseThrow();
  }

  private static String other(String name) {
    return name.equals("a") ? "b" : "a";
  }

  @Test
  void exactlyOneOfTwoContextsLeadsAndLeadershipMovesEachTimeTheLeaderYields(RedisServer redis) {
    start("a", redis);
    start("b", redis);

    for (int move = 0; move < 4; move++) {
      String leader = election.awaitOneLeader();
      election.initiators.get(leader).getContext().yield();
      await().atMost(BOUND).until(() -> election.leaders().equals(List.of(other(leader))));
    }

    assertThat(election.overlaps()).isEmpty();
    assertThat(Election.countOf(election.grants, "a") + Election.countOf(election.grants, "b"))
        .isGreaterThanOrEqualTo(5);
    // the initiators published the events in their contexts too
    await()
        .atMost(BOUND)
        .until(
            () ->
                Election.countOf(election.events, "granted a") >= 2
                    && Election.countOf(election.events, "granted b") >= 2
                    && Election.countOf(election.events, "revoked a") >= 1
                    && Election.countOf(election.events, "revoked b") >= 1);
  }

  @Test
  void leadershipMovesWithinTheWatchdogTimeoutWhenTheLeadersWardenIsClosed(RedisServer redis) {
    start("a", redis);
    start("b", redis);
    String leader = election.awaitOneLeader();
    int revokedBefore = Election.countOf(election.revocations, leader);

    long closedAt = System.nanoTime();
    contextOf(leader).getBean(Warden.class).close(); // renewal stops; the lease runs out

    await().atMost(BOUND).until(() -> election.leaders().equals(List.of(other(leader))));
    Duration handOver = Duration.ofNanos(System.nanoTime() - closedAt);
    assertThat(Election.countOf(election.revocations, leader)).isGreaterThan(revokedBefore);
    assertThat(election.overlaps()).isEmpty();
    // not before the lease could have run out (it was renewed at most a watchdog timeout ago)...
    assertThat(handOver).isGreaterThan(WATCHDOG.dividedBy(2));
    // ...and it stays with the other one: the closed client cannot take it back
    await()
        .during(Duration.ofMillis(500))
        .atMost(BOUND)
        .until(() -> election.leaders().equals(List.of(other(leader))));
  }

  @Test
  void leadershipMovesAtOnceWhenTheLeadersContextStops(RedisServer redis) {
    start("a", redis);
    start("b", redis);
    String leader = election.awaitOneLeader();

    contextOf(leader).close(); // the initiator stops and unlocks; the Warden closes after it
    election.initiators.remove(leader);

    await().atMost(BOUND).until(() -> election.leaders().equals(List.of(other(leader))));
    assertThat(Election.countOf(election.revocations, leader)).isPositive();
    assertThat(election.overlaps()).isEmpty();
  }

  @Test
  void theLeaderIsRevokedAtItsNextHeartbeatWhenItsLeaseIsLost(RedisServer redis) {
    start("a", redis);
    start("b", redis);
    String leader = election.awaitOneLeader();
    int revokedBefore = Election.countOf(election.revocations, leader);

    try (Warden outsider = Warden.connect(redis.uri())) {
      // the lease is gone from under the leader, as after a failover that lost the key
      assertThat(outsider.lock("leaders:leader").forceUnlock()).isTrue();
    }

    // the leader's reentrant tryLock at its next heartbeat asks Redis and is told false
    await()
        .atMost(BOUND)
        .until(() -> Election.countOf(election.revocations, leader) > revokedBefore);
    election.awaitOneLeader();
    try (Warden outsider = Warden.connect(redis.uri())) {
      assertThat(outsider.lock("leaders:leader").isLocked()).isTrue(); // the new leader's hold
    }
  }
}
