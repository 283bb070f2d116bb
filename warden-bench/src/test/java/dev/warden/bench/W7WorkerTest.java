package dev.warden.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class W7WorkerTest {

  @Test
  void theWorkersCommandLineReadsBackAsWritten() {
    W7Worker.Args args =
        new W7Worker.Args(
            Library.REDISSON,
            true,
            "redis://127.0.0.1:6379",
            4,
            "warden-bench:x:w7",
            Path.of("/tmp/w7"),
            7,
            5,
            Duration.ofSeconds(30));

    assertThat(W7Worker.Args.parse(args.args())).isEqualTo(args);
    assertThatThrownBy(() -> W7Worker.Args.parse(List.of("warden"))).hasMessageContaining("usage");
    List<String> badKind = new ArrayList<>(args.args());
    badKind.set(1, "unfair");
    assertThatThrownBy(() -> W7Worker.Args.parse(badKind)).hasMessageContaining("unfair");
  }

  @Test
  void aProcessNumberMayBeZeroButAThreadCountMayNot() {
    List<String> args =
        new ArrayList<>(
            new W7Worker.Args(
                    Library.WARDEN,
                    false,
                    "redis://h:1",
                    1,
                    "lock",
                    Path.of("/tmp/w7"),
                    0,
                    5,
                    Duration.ofSeconds(1))
                .args());
    assertThat(W7Worker.Args.parse(args).process()).isZero();
    args.set(3, "0");
    assertThatThrownBy(() -> W7Worker.Args.parse(args)).hasMessageContaining("threads");
  }
}
