package dev.warden.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.warden.DistributedLock;
import dev.warden.LockHandle;
import dev.warden.Warden;
import dev.warden.testkit.RedisServer;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/**
 * The quorum lock's example of the locks guide, on three independent redis-servers, as shown there
 * (DocSnippetsTest compares the two).
 */
class QuorumExampleIT {
  /** A resource that records each entry with the token it came with. */
  private static final class Ledger {
    final List<String> entries = new CopyOnWriteArrayList<>();

    void append(String entry, long token) {
      entries.add(entry + " " + token);
    }
  }

  @Test
  void theQuorumExampleAppendsOnceWithTheQuorumsToken() throws InterruptedException {
    try (RedisServer one = RedisServer.start();
        RedisServer two = RedisServer.start();
        RedisServer three = RedisServer.start()) {
      String uri1 = one.uri();
      String uri2 = two.uri();
      String uri3 = three.uri();
      Ledger ledger = new Ledger();
      String entry = "entry-1";
      // example quorum: begin
      List<Warden> wardens =
          List.of(Warden.connect(uri1), Warden.connect(uri2), Warden.connect(uri3));
      DistributedLock lock =
          Warden.quorumLock(
              wardens.stream().map(w -> w.lock("ledger")).toArray(DistributedLock[]::new));
      try (LockHandle hold = lock.acquire(Duration.ofSeconds(5))) {
        ledger.append(entry, hold.fencingToken()); // the resource checks the token
      }
      // example quorum: end
      try {
        assertThat(ledger.entries).hasSize(1);
        assertThat(ledger.entries.get(0)).startsWith("entry-1 ");
        for (Warden warden : wardens) {
          assertThat(warden.lock("ledger").isLocked()).isFalse();
        }
      } finally {
        wardens.forEach(Warden::close);
      }
    }
  }
}
