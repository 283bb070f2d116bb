package dev.warden.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.warden.DistributedLock;
import dev.warden.Warden;
import dev.warden.spring.WardenLocked.NotAcquired;
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
import org.springframework.transaction.annotation.Transactional;

/** The README's Spring Boot example, as written there. */
@ExtendWith(WardenExtension.class)
class ReadmeExampleIT {
  record Invoice(String id) {}

  /** What the example's methods did, and under which lock. */
  static final List<String> WORK = new CopyOnWriteArrayList<>();

  static Warden warden;

  // --- as in the README ---
  /** The README's service. */
  public static class Billing {
    @WardenLocked(name = "invoice", key = "#invoice.id", waitTime = "5s")
    @Transactional
    public void charge(Invoice invoice) { // lock "invoice:<id>": taken before the transaction
      WORK.add("charge held=" + warden.lock("invoice:" + invoice.id()).isHeldByCurrentThread());
    }

    @WardenLocked(name = "nightly-report", waitTime = "0", onNotAcquired = NotAcquired.SKIP)
    public void nightlyReport() { // skipped while another instance runs it
      WORK.add("report");
    }
  }

  // --- end of the README's example ---

  @Configuration(proxyBeanMethods = false)
  @EnableTransactionManagement
  static class Application {
    @Bean
    RecordingTransactionManager transactionManager() {
      return new RecordingTransactionManager();
    }

    @Bean
    Billing billing() {
      return new Billing();
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
