package dev.warden.examples.boot;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;

/**
 * A small invoicing service: {@code POST /invoices/{id}/charge} charges an invoice once, however
 * many instances of the service are asked at the same time, through {@code @WardenLocked}.
 *
 * <p>Without {@code spring.data.redis.*} or {@code warden.uri}, it starts a throwaway redis-server
 * of its own (see {@link ThrowawayRedis} and README.md).
 */
@SpringBootApplication
public class InvoiceApplication {
  /**
   * Starts the application.
   *
   * @param args Spring Boot arguments, e.g. {@code --spring.data.redis.url=redis://host:6379}
   */
  public static void main(String[] args) {
    SpringApplication application = new SpringApplication(InvoiceApplication.class);
    application.addListeners(new ThrowawayRedis());
    application.run(args);
  }
}
