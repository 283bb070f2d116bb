package dev.warden.reactor.blockhound;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.reflect.Method;
import java.util.Arrays;
import java.util.List;
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
    for (List<String> allowed : WardenBlockHoundIntegration.ALLOWED) {
      Class<?> type = Class.forName(allowed.get(0));
      assertThat(Arrays.stream(type.getDeclaredMethods()).map(Method::getName))
          .as("%s declares %s", allowed.get(0), allowed.get(1))
          .contains(allowed.get(1));
    }
  }

  @Test
  void blockHoundFindsItThroughTheServiceLoader() {
    assertThat(ServiceLoader.load(BlockHoundIntegration.class).stream())
        .anyMatch(provider -> provider.type() == WardenBlockHoundIntegration.class);
  }
}
