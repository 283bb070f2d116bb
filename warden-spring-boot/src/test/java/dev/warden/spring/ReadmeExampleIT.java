package dev.warden.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.warden.DistributedLock;
import dev.warden.Warden;
import dev.warden.spring.boot.WardenAutoConfiguration;
import dev.warden.testkit.RedisServer;
import dev.warden.testkit.WardenExtension;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.transaction.annotation.EnableTransactionManagement;

/** The Spring Boot guide's example ({@link Billing}), run as written there. */
@ExtendWith(WardenExtension.class)
class ReadmeExampleIT {
  record Invoice(String id) {}

  /** What the example's methods did, and under which lock. */
  static final List<String> WORK = new CopyOnWriteArrayList<>();

  static Warden warden;

  /** What the example's service calls: records what it did, and whether it held the lock. */
  interface Payments {
    void charge(Invoice invoice);

    void sendReport();
  }

  static final class RecordingPayments implements Payments {
    @Override
    public void charge(Invoice invoice) {
      WORK.add("charge held=" + warden.lock("invoice:" + invoice.id()).isHeldByCurrentThread());
    }

    @Override
    public void sendReport() {
      WORK.add("report");
    }
  }

  @Configuration(proxyBeanMethods = false)
  @EnableTransactionManagement
  static class Application {
    @Bean
    RecordingTransactionManager transactionManager() {
      return new RecordingTransactionManager();
    }

    @Bean
    Billing billing() {
      return new Billing(new RecordingPayments());
    }
  }

  @Test
  void theReadmeExampleChargesUnderTheInvoicesLockAndSkipsAReportRunningElsewhere(
      RedisServer redis, Warden otherInstance) {
    WORK.clear();
    new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(WardenAutoConfiguration.class))
        .withUserConfiguration(Application.class)
        .withPropertyValues("warden.uri=" + redis.uri())
        .run(
            context -> {
              warden = context.getBean(Warden.class);
              Billing billing = context.getBean(Billing.class);
              RecordingTransactionManager transactions =
                  context.getBean(RecordingTransactionManager.class);
              transactions.held = () -> warden.lock("invoice:42").isHeldByCurrentThread();

              billing.charge(new Invoice("42"));
              billing.nightlyReport();
              DistributedLock elsewhere = otherInstance.lock("nightly-report");
              elsewhere.lock();
              billing.nightlyReport();
              elsewhere.unlock();

              assertThat(WORK).containsExactly("charge held=true", "report");
              assertThat(transactions.events)
                  .containsExactly("begin held=true", "commit held=true");
              assertThat(warden.lock("invoice:42").isLocked()).isFalse();
            });
  }
}
