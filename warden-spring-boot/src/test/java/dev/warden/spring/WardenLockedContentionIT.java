package dev.warden.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.warden.Warden;
import dev.warden.spring.boot.WardenAutoConfiguration;
import dev.warden.testkit.CriticalSection;
import dev.warden.testkit.RedisServer;
import dev.warden.testkit.StartGate;
import dev.warden.testkit.WardenExtension;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.Banner;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Two Spring Boot applications, each with its own auto-configured Warden on one redis-server,
 * calling one {@code @WardenLocked} method that does a non-atomic read-modify-write.
 */
@ExtendWith(WardenExtension.class)
class WardenLockedContentionIT {
  private static final int CONTENDERS = 8;
  private static final int ROUNDS = 50;

  /** The shared resource's guard: a plain counter plus a record of the fencing tokens. */
  public static class Counter {
    private final CriticalSection section;
    private final Warden warden;

    Counter(CriticalSection section, Warden warden) {
      this.section = section;
      this.warden = warden;
    }

    @WardenLocked(name = "counter")
    public void increment() {
      section.enterWithToken(warden.lock("counter").fencingToken());
    }
  }

  @Configuration(proxyBeanMethods = false)
  @ImportAutoConfiguration({AopAutoConfiguration.class, WardenAutoConfiguration.class})
  static class CounterApplication {
    @Bean
    Counter counter(CriticalSection section, Warden warden) {
      return new Counter(section, warden);
    }
  }

  private static ConfigurableApplicationContext start(RedisServer redis, CriticalSection section) {
    return new SpringApplicationBuilder(CounterApplication.class)
        .web(WebApplicationType.NONE)
        .bannerMode(Banner.Mode.OFF)
        .registerShutdownHook(false)
        .initializers(context -> context.getBeanFactory().registerSingleton("section", section))
        .properties("warden.uri=" + redis.uri())
        .run();
  }

  @Test
  void twoApplicationsNeverRunTheLockedMethodAtOnceAndTheCounterIsExact(RedisServer redis)
      throws InterruptedException {
    CriticalSection section = new CriticalSection();
    try (ConfigurableApplicationContext first = start(redis, section);
        ConfigurableApplicationContext second = start(redis, section)) {
      assertThat(first.getBean(Warden.class)).isNotSameAs(second.getBean(Warden.class));
      List<Counter> counters = List.of(first.getBean(Counter.class), second.getBean(Counter.class));

      StartGate.run(CONTENDERS, ROUNDS, contender -> counters.get(contender % 2).increment());

      section.assertMutualExclusion(CONTENDERS * ROUNDS);
      assertThat(section.counter()).isEqualTo(CONTENDERS * ROUNDS);
      assertThat(section.maxInside()).isEqualTo(1);
    }
  }
}
