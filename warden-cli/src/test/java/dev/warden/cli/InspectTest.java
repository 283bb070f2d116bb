package dev.warden.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.warden.LockInfo;
import java.util.Map;
import org.junit.jupiter.api.Test;

class InspectTest {

  @Test
  void freeLockSaysFreeWithoutTimeToLiveOrCurrentToken() {
    LockInfo info = new LockInfo("orders", "warden:{orders}", Map.of(), -2, -1, 41, 0);

    assertThat(Inspect.format(info))
        .containsExactly(
            "  key              warden:{orders}",
            "  state            free",
            "  time to live     none (not locked)",
            "  fencing token    current none, last issued 41",
            "  waiting clients  0");
  }

  @Test
  void heldLockListsEachHolderWithItsHoldCount() {
    LockInfo info =
        new LockInfo(
            "orders", "warden:{orders}", Map.of("b1c2:7", 2, "a0:12", 1), 29_412, 42, 42, 3);

    assertThat(Inspect.format(info))
        .containsExactly(
            "  key              warden:{orders}",
            "  state            held by 2 owners",
            "  holder           a0:12   1 hold",
            "  holder           b1c2:7  2 holds",
            "  time to live     29.41 s",
            "  fencing token    current 42, last issued 42",
            "  waiting clients  3");
  }

  @Test
  void lockWithoutExpirySaysSo() {
    LockInfo info = new LockInfo("orders", "k", Map.of("a", 1), -1, 5, 5, 0);

    assertThat(Inspect.format(info)).contains("  time to live     no expiry");
  }
}
