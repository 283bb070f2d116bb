package dev.warden.reactor.blockhound;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.reflect.Method;
import java.util.Arrays;
import java.util.ServiceLoader;
import org.junit.jupiter.api.Test;
import reactor.blockhound.integration.BlockHoundIntegration;

/**
 * The integration names methods by string: a rename in Lettuce or in Warden's timer would silently
 * stop allowing the wait (and bring back the JDK 17 hang), so each name is checked here.
 */
class WardenBlockHoundIntegrationTest {
  @Test
  void everyAllowedMethodExists() throws Exception {
    for (WardenBlockHoundIntegration.Allowed allowed : WardenBlockHoundIntegration.ALLOWED) {
      Class<?> type = Class.forName(allowed.type());
      assertThat(Arrays.stream(type.getDeclaredMethods()).map(Method::getName))
          .as("%s declares %s", allowed.type(), allowed.method())
          .contains(allowed.method());
    }
  }

  @Test
  void blockHoundFindsItThroughTheServiceLoader() {
    assertThat(ServiceLoader.load(BlockHoundIntegration.class).stream())
        .anyMatch(provider -> provider.type() == WardenBlockHoundIntegration.class);
  }
}
