package dev.warden.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class JvmProcessIT {
  private static final Duration STARTUP = Duration.ofSeconds(20);

  @Test
  void awaitLineReturnsTheFirstLineWithThePrefix() {
    try (JvmProcess child = JvmProcess.start(PrintingMain.class, "one", "two")) {
      String ready = child.awaitLine("ready", STARTUP);

      assertThat(ready).isEqualTo("ready pid=" + child.pid());
      assertThat(child.awaitLine("arg", Duration.ZERO)).isEqualTo("arg one");
      assertThat(child.lines()).containsExactly("arg one", "arg two", ready);
      assertThat(child.isAlive()).isTrue();
    }
  }

  @Test
  void killEndsTheProcess() {
    try (JvmProcess child = JvmProcess.start(PrintingMain.class)) {
      child.awaitLine("ready", STARTUP);

      child.kill();

      assertThat(child.isAlive()).isFalse();
      assertThat(ProcessHandle.of(child.pid()).map(ProcessHandle::isAlive))
          .isNotEqualTo(java.util.Optional.of(true));
    }
  }

  @Test
  void awaitLineFailsWithWhatTheProcessPrintedWhenItExits() {
    try (JvmProcess child = JvmProcess.start(PrintingMain.class, "exit", "3")) {
      assertThatThrownBy(() -> child.awaitLine("ready", STARTUP))
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("exited before printing a line starting with 'ready'")
          .hasMessageContaining("exit code 3")
          .hasMessageContaining("arg exit")
          .hasMessageContaining("exiting on request");
      assertThat(child.waitFor(STARTUP)).isEqualTo(3);
    }
  }

  @Test
  void awaitLineFailsWhenTheTimeoutElapses() {
    try (JvmProcess child = JvmProcess.start(PrintingMain.class)) {
      child.awaitLine("ready", STARTUP);

      assertThatThrownBy(() -> child.awaitLine("never", Duration.ofMillis(50)))
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("printed no line starting with 'never' within PT0.05S")
          .hasMessageContaining("ready pid=");
    }
  }
}
