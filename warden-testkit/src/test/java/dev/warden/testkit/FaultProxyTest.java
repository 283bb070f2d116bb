package dev.warden.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class FaultProxyTest {
  private static final Duration WAIT = Duration.ofSeconds(20);
  private static final int READ_TIMEOUT_MILLIS = 20_000;

  @Test
  void startRejectsAPortOutOfRange() {
    assertThatThrownBy(() -> FaultProxy.start("127.0.0.1", 0))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> FaultProxy.start("127.0.0.1", 65_536))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void delayRejectsANegativeDuration() {
    try (FaultProxy proxy = FaultProxy.start("127.0.0.1", 1)) {
      assertThatThrownBy(() -> proxy.delay(Duration.ofMillis(-1)))
          .isInstanceOf(IllegalArgumentException.class);
    }
  }

  @Test
  void uriNamesTheProxyPortOnLoopback() {
    try (FaultProxy proxy = FaultProxy.start("127.0.0.1", 1)) {
      assertThat(proxy.host()).isEqualTo("127.0.0.1");
      assertThat(proxy.uri()).isEqualTo("redis://127.0.0.1:" + proxy.port());
      assertThat(proxy.toString()).contains("-> 127.0.0.1:1");
    }
  }

  @Test
  void aConnectionToADownTargetIsClosedAtOnce() throws IOException {
    int downPort;
    try (ServerSocket unused = new ServerSocket(0, 1, loopback())) {
      downPort = unused.getLocalPort();
    }
    try (FaultProxy proxy = FaultProxy.start("127.0.0.1", downPort)) {
      assertThat(closedByThePeer(proxy)).isTrue();
      assertThat(proxy.connections()).isZero();
    }
  }

  @Test
  void bytesPassBothWaysAndCloseEndsEveryThread() throws IOException {
    FaultProxy proxy = null;
    try (ServerSocket target = new ServerSocket(0, 1, loopback())) {
      proxy = FaultProxy.start("127.0.0.1", target.getLocalPort());
      target.setSoTimeout(READ_TIMEOUT_MILLIS);
      try (Socket client = connect(proxy);
          Socket accepted = target.accept()) {
        accepted.setSoTimeout(READ_TIMEOUT_MILLIS);
        write(client, "ping");
        assertThat(read(accepted, 4)).isEqualTo("ping");
        write(accepted, "pong");
        assertThat(read(client, 4)).isEqualTo("pong");
        assertThat(proxy.connections()).isEqualTo(1);
        assertThat(proxyThreads(proxy)).isNotZero();

        proxy.close();

        assertThat(proxyThreads(proxy)).isZero();
        assertThat(proxy.connections()).isZero();
        assertThat(endOfStreamOrReset(client)).isTrue();
        FaultProxy closed = proxy;
        assertThatThrownBy(() -> connect(closed)).isInstanceOf(IOException.class);
      }
    } finally {
      if (proxy != null) {
        proxy.close();
      }
    }
  }

  @Test
  void refuseClosesNewConnectionsUntilHealed() throws IOException {
    try (ServerSocket target = new ServerSocket(0, 10, loopback());
        FaultProxy proxy = FaultProxy.start("127.0.0.1", target.getLocalPort())) {
      proxy.refuse();
      assertThat(closedByThePeer(proxy)).isTrue();
      proxy.heal();
      try (Socket accepted = connect(proxy)) {
        assertThat(accepted.isConnected()).isTrue();
        await().atMost(WAIT).until(() -> proxy.connections() == 1);
      }
    }
  }

  @Test
  void blackholeFromHoldsOnlyTheConnectionsOfThatClientAddressUntilHealed() throws IOException {
    try (ServerSocket target = new ServerSocket(0, 10, loopback());
        FaultProxy proxy = FaultProxy.start("127.0.0.1", target.getLocalPort())) {
      target.setSoTimeout(READ_TIMEOUT_MILLIS);
      try (Socket other = connectFrom(proxy, "127.0.0.2");
          Socket otherAccepted = target.accept();
          Socket local = connect(proxy);
          Socket localAccepted = target.accept()) {
        proxy.blackholeFrom("127.0.0.2");

        write(other, "held");
        write(local, "pass");
        assertThat(read(localAccepted, 4)).isEqualTo("pass");
        otherAccepted.setSoTimeout(300); // absence: nothing arrives within a while
        assertThatThrownBy(() -> otherAccepted.getInputStream().read())
            .isInstanceOf(SocketTimeoutException.class);
        assertThat(proxy.connections()).isEqualTo(2);

        proxy.healFrom("127.0.0.2");

        otherAccepted.setSoTimeout(READ_TIMEOUT_MILLIS);
        assertThat(read(otherAccepted, 4)).isEqualTo("held");
      }
      assertThatThrownBy(() -> proxy.blackholeFrom(""))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessage("sourceAddress must not be null or empty: ");
    }
  }

  /**
   * A delay is latency, not a queue: a chunk read while an earlier one is held is held alongside
   * it, for the delay from its own read, so a connection with requests in flight (a multiplexing
   * client) is not slowed to one chunk per delay.
   */
  @Test
  void aDelayHoldsChunksSideBySideNotOneBehindAnother() throws IOException {
    Duration delay = Duration.ofSeconds(1);
    try (ServerSocket target = new ServerSocket(0, 1, loopback());
        FaultProxy proxy = FaultProxy.start("127.0.0.1", target.getLocalPort())) {
      target.setSoTimeout(READ_TIMEOUT_MILLIS);
      try (Socket client = connect(proxy);
          Socket accepted = target.accept()) {
        accepted.setSoTimeout(READ_TIMEOUT_MILLIS);
        proxy.delay(delay);
        write(client, "a");
        await().atMost(WAIT).until(() -> proxy.chunksRead() == 1); // held now
        write(client, "b");

        assertThat(read(accepted, 1)).isEqualTo("a");
        long first = System.nanoTime();
        assertThat(read(accepted, 1)).isEqualTo("b");
        Duration gap = Duration.ofNanos(System.nanoTime() - first);

        // one behind another, "b" would come a whole delay after "a"
        assertThat(gap).isLessThan(delay.dividedBy(2));
      }
    }
  }

  private static Socket connectFrom(FaultProxy proxy, String sourceAddress) throws IOException {
    Socket socket = new Socket();
    try {
      socket.bind(new InetSocketAddress(sourceAddress, 0));
      socket.connect(address(proxy), READ_TIMEOUT_MILLIS);
      socket.setSoTimeout(READ_TIMEOUT_MILLIS);
    } catch (IOException e) {
      socket.close();
      throw e;
    }
    return socket;
  }

  private static int proxyThreads(FaultProxy proxy) {
    String prefix = "warden-fault-proxy-" + proxy.port() + "-";
    return (int)
        Thread.getAllStackTraces().keySet().stream()
            .filter(thread -> thread.getName().startsWith(prefix) && thread.isAlive())
            .peek(thread -> assertThat(thread.isDaemon()).isTrue())
            .count();
  }

  private static InetSocketAddress address(FaultProxy proxy) {
    return new InetSocketAddress(loopback(), proxy.port());
  }

  private static java.net.InetAddress loopback() {
    return java.net.InetAddress.getLoopbackAddress();
  }

  private static Socket connect(FaultProxy proxy) throws IOException {
    Socket socket = new Socket();
    try {
      socket.connect(address(proxy), READ_TIMEOUT_MILLIS);
      socket.setSoTimeout(READ_TIMEOUT_MILLIS);
    } catch (IOException e) {
      socket.close();
      throw e;
    }
    return socket;
  }

  private static void write(Socket socket, String text) throws IOException {
    OutputStream out = socket.getOutputStream();
    out.write(text.getBytes(StandardCharsets.US_ASCII));
    out.flush();
  }

  private static String read(Socket socket, int length) throws IOException {
    InputStream in = socket.getInputStream();
    return new String(in.readNBytes(length), StandardCharsets.US_ASCII);
  }

  /**
   * Connects and reads until the proxy closes or resets the connection (at once or while set up).
   */
  private static boolean closedByThePeer(FaultProxy proxy) throws IOException {
    try (Socket socket = connect(proxy)) {
      return endOfStreamOrReset(socket);
    } catch (SocketException e) {
      return true; // reset before connect() returned
    }
  }

  /** Reads until the peer closes or resets; a read timeout (20 s) fails the test. */
  private static boolean endOfStreamOrReset(Socket socket) throws IOException {
    try {
      return socket.getInputStream().read() < 0;
    } catch (SocketException e) {
      return true; // connection reset
    }
  }
}
