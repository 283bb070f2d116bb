package dev.warden.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.warden.Warden;
import dev.warden.testkit.RedisServer;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * New clients connect while earlier ones have just closed: 15 clients (3 on each of 5 servers),
 * each making a call, then all closed at once, round after round. Every connect must succeed within
 * the default command timeout, which also bounds the handshake (issue 22 saw "Connection
 * initialization timed out after 5 second(s)" on Valkey 8.0 in this sequence). It runs on both
 * servers of the matrix.
 */
class ConnectStormIT {
  private static final int SERVERS = 5;
  private static final int CLIENTS_PER_SERVER = 3;
  private static final int ROUNDS = 10;

  private static final List<RedisServer> servers = new ArrayList<>();

  @BeforeAll
  static void startServers() {
    for (int i = 0; i < SERVERS; i++) {
      servers.add(RedisServer.start());
    }
  }

  @AfterAll
  static void stopServers() {
    servers.forEach(RedisServer::close);
  }

  @Test
  void fifteenClientsConnectRightAfterFifteenOthersClosedRoundAfterRound() {
    for (int round = 0; round < ROUNDS; round++) {
      List<Warden> clients = new ArrayList<>();
      try {
        for (int c = 0; c < CLIENTS_PER_SERVER; c++) {
          for (RedisServer server : servers) {
            Warden warden = Warden.connect(server.uri());
            clients.add(warden);
            // one call on each connection: a read bounded by the command timeout
            assertThat(warden.lock("storm-" + clients.size()).isLocked()).isFalse();
          }
        }
      } finally {
        clients.forEach(Warden::close);
      }
      assertThat(clients).hasSize(SERVERS * CLIENTS_PER_SERVER);
    }
  }
}
