package dev.warden.spring;

import dev.warden.spring.ReadmeExampleIT.Invoice;
import dev.warden.spring.ReadmeExampleIT.Payments;
import dev.warden.spring.WardenLocked.NotAcquired;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

// The Spring Boot guide's service, as shown there (ReadmeExampleIT runs it; DocSnippetsTest
// compares the two).
// example spring-boot: begin
@Service
public class Billing {
  private final Payments payments;

  public Billing(Payments payments) {
    this.payments = payments;
  }

  @WardenLocked(name = "invoice", key = "#invoice.id", waitTime = "5s")
  @Transactional
  public void charge(Invoice invoice) { // lock "invoice:<id>": taken before the transaction
    payments.charge(invoice); // begins, released after it commits
  }

  @WardenLocked(name = "nightly-report", waitTime = "0", onNotAcquired = NotAcquired.SKIP)
  public void nightlyReport() { // skipped while another instance runs it
    payments.sendReport();
  }
}
// example spring-boot: end
