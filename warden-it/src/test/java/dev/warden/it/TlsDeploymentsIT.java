package dev.warden.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.warden.DistributedLock;
import dev.warden.LockHandle;
import dev.warden.TlsOptions;
import dev.warden.Warden;
import dev.warden.WardenException;
import dev.warden.testkit.CriticalSection;
import dev.warden.testkit.RedisCluster;
import dev.warden.testkit.RedisSentinels;
import dev.warden.testkit.RedisServer;
import dev.warden.testkit.StartGate;
import dev.warden.testkit.TestCertificates;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link TlsOptions} on a Sentinel set and a Redis Cluster whose every process speaks TLS (data,
 * replication, the sentinels, the cluster bus), with mutual TLS: mutual exclusion across two
 * clients, a waiter woken by a release, a failover, and the clear message when the servers'
 * certificate is not trusted. About 40 s (a set, a cluster and a failover of each).
 */
class TlsDeploymentsIT {
  private static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(5);
  private static final Duration RECOVERY = Duration.ofSeconds(30);

  @TempDir static Path files;
  private static TestCertificates.Issued ca;
  private static TestCertificates.Issued server;
  private static TestCertificates.Issued client;
  private static TestCertificates.Issued strangerCa;

  @BeforeAll
  static void makeCertificates() throws Exception {
    TestCertificates certificates = TestCertificates.in(files);
    ca = certificates.authority("warden-test-ca");
    strangerCa = certificates.authority("stranger-ca");
    server = certificates.issue(ca, "server", "IP:127.0.0.1");
    client = certificates.issue(ca, "client", "DNS:client.example");
  }

  @Test
  void onASentinelSetOverTlsLocksExcludeWakeAndSurviveAFailover() throws Exception {
    try (RedisSentinels set =
        RedisSentinels.startWithTls(server.certificate(), server.key(), ca.certificate(), true)) {
      // With TlsOptions every connection uses TLS, the sentinels' too, whatever the URI's scheme;
      // the sentinels name the data nodes' TLS ports.
      String plainScheme = set.tlsUri().replace("rediss-sentinel://", "redis-sentinel://");
      try (Warden plainSentinels = connect(plainScheme, trusted());
          Warden tlsSentinels = connect(set.tlsUri(), trusted())) {
        exclusionAndWakeUp(plainSentinels, tlsSentinels, "tls-sentinel");

        RedisServer old = set.master();
        RedisServer promoted = set.failover();

        assertThat(promoted).isNotSameAs(old);
        for (Warden warden : List.of(plainSentinels, tlsSentinels)) {
          DistributedLock lock = warden.lock("after-failover");
          await()
              .atMost(RECOVERY)
              .ignoreExceptionsInstanceOf(WardenException.class)
              .until(() -> tryLockAndUnlock(lock));
        }
        assertThat(promoted.redis().exists("warden:{after-failover}:lock:fence")).isEqualTo(1);
      }

      assertThatThrownBy(() -> connect(set.tlsUri(), untrusted()))
          .isInstanceOf(WardenException.class)
          .hasMessageContaining("server's certificate is not trusted");
    }
  }

  @Test
  void onAClusterOverTlsLocksExcludeWakeAndSurviveAFailover() throws Exception {
    try (RedisCluster cluster =
        RedisCluster.startWithTls(server.certificate(), server.key(), ca.certificate(), true)) {
      try (Warden first = connectCluster(cluster.tlsSeeds(), trusted());
          Warden second = connectCluster(cluster.tlsSeeds(), trusted())) {
        exclusionAndWakeUp(first, second, "tls-cluster");

        RedisServer master = cluster.masterOf("warden:{tls-cluster}:lock");
        RedisServer replica = cluster.replicaOf(master);
        cluster.failover(replica, RedisCluster.Mode.GRACEFUL);

        assertThat(cluster.masterOf("warden:{tls-cluster}:lock")).isSameAs(replica);
        for (Warden warden : List.of(first, second)) {
          DistributedLock lock = warden.lock("tls-cluster");
          await()
              .atMost(RECOVERY)
              .ignoreExceptionsInstanceOf(WardenException.class)
              .until(() -> tryLockAndUnlock(lock));
        }
      }

      assertThatThrownBy(() -> connectCluster(cluster.tlsSeeds(), untrusted()))
          .isInstanceOf(WardenException.class)
          .hasMessageContaining("server's certificate is not trusted");
    }
  }

  /**
   * Two clients, two threads each, 25 entries per thread under one lock: exact count, one inside at
   * most, tokens rising. Then one holds, the other waits and is woken by the release.
   */
  private static void exclusionAndWakeUp(Warden first, Warden second, String name)
      throws Exception {
    CriticalSection section = new CriticalSection();
    List<DistributedLock> locks = List.of(first.lock(name), second.lock(name));
    StartGate.run(
        4,
        25,
        contender -> {
          try (LockHandle hold = locks.get(contender % 2).acquire(Duration.ofSeconds(30))) {
            section.enterWithToken(hold.fencingToken());
          }
        });
    section.assertMutualExclusion(4 * 25);

    DistributedLock held = first.lock(name + "-wake");
    DistributedLock waiting = second.lock(name + "-wake");
    held.lock();
    CompletableFuture<Boolean> woken =
        CompletableFuture.supplyAsync(
            () -> {
              try {
                boolean got = waiting.tryLock(20, TimeUnit.SECONDS);
                if (got) {
                  waiting.unlock();
                }
                return got;
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
              }
            });
    await().atMost(RECOVERY).until(() -> second.stats().acquisitions() == 1);
    held.unlock();
    assertThat(woken.get(10, TimeUnit.SECONDS)).isTrue();
  }

  private static boolean tryLockAndUnlock(DistributedLock lock) {
    if (!lock.tryLock()) {
      return false;
    }
    lock.unlock();
    return true;
  }

  private static TlsOptions trusted() {
    return TlsOptions.builder()
        .trustCertificates(ca.certificate())
        .clientCertificate(client.certificate(), client.key())
        .build();
  }

  private static TlsOptions untrusted() {
    return TlsOptions.builder()
        .trustCertificates(strangerCa.certificate())
        .clientCertificate(client.certificate(), client.key())
        .build();
  }

  private static Warden connect(String uri, TlsOptions tls) {
    return Warden.builder().uri(uri).tls(tls).commandTimeout(COMMAND_TIMEOUT).build();
  }

  private static Warden connectCluster(List<String> seeds, TlsOptions tls) {
    return Warden.builder()
        .cluster(seeds.toArray(String[]::new))
        .tls(tls)
        .commandTimeout(COMMAND_TIMEOUT)
        .build();
  }
}
