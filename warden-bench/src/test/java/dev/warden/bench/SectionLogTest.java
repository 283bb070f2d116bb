package dev.warden.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.warden.bench.SectionLog.Section;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SectionLogTest {
  @TempDir Path dir;

  @Test
  void aLogReadsBackAsWritten() throws IOException {
    SectionLog written =
        new SectionLog(
            3,
            2,
            List.of(
                new Section(3, 0, Long.MIN_VALUE, -1, 0),
                new Section(3, 7, 123_456_789_012L, 123_456_790_000L, Long.MAX_VALUE)));
    Path file = dir.resolve("process-3.log");

    written.write(file);

    assertThat(SectionLog.read(file)).isEqualTo(written);
    assertThat(Files.size(file)).isEqualTo(4 + 4 + 8 + 4 + 2 * 28);
    assertThat(dir.resolve("process-3.log.partial")).doesNotExist();
  }

  @Test
  void anEmptyLogReadsBackEmpty() throws IOException {
    Path file = dir.resolve("empty.log");
    new SectionLog(0, 0, List.of()).write(file);

    assertThat(SectionLog.read(file).sections()).isEmpty();
  }

  @Test
  void aFileThatIsNotALogOrIsCutShortIsRefused() throws IOException {
    Path other = Files.writeString(dir.resolve("other.log"), "hello, world");
    assertThatThrownBy(() -> SectionLog.read(other)).hasMessageContaining("not a W7 section log");

    Path file = dir.resolve("cut.log");
    new SectionLog(0, 1, List.of(new Section(0, 0, 1, 2, 3))).write(file);
    byte[] bytes = Files.readAllBytes(file);
    Files.write(file, java.util.Arrays.copyOf(bytes, bytes.length - 1));
    assertThatThrownBy(() -> SectionLog.read(file)).isInstanceOf(IOException.class);
  }

  @Test
  void aSectionsWaitIsFromTheCallToTheReturnOfLock() {
    assertThat(new Section(0, 0, 100, 350, 400).waitNanos()).isEqualTo(250);
  }
}
