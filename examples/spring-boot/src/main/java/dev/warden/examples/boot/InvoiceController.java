package dev.warden.examples.boot;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RestController;
import reactor.core.publisher.Mono;

/**
 * {@code POST /invoices/{id}/charge}, {@code POST /invoices/{id}/charge-async}, {@code POST
 * /invoices/{id}/charge-reactive}, {@code GET /spans}.
 */
@RestController
class InvoiceController {
  private final Invoices invoices;
  private final RecentSpans spans;

  InvoiceController(Invoices invoices, RecentSpans spans) {
    this.invoices = invoices;
    this.spans = spans;
  }

  @PostMapping("/invoices/{id}/charge")
  Invoices.Charge charge(@PathVariable String id) {
    return invoices.charge(id);
  }

  /** The same charge without holding a request thread while the lock is awaited or held. */
  @PostMapping("/invoices/{id}/charge-async")
  CompletableFuture<Invoices.Charge> chargeAsync(@PathVariable String id) {
    return invoices.chargeAsync(id);
  }

  /** The same charge on Warden's reactive API: a Mono, which Spring MVC answers when it ends. */
  @PostMapping("/invoices/{id}/charge-reactive")
  Mono<Invoices.Charge> chargeReactive(@PathVariable String id) {
    return invoices.chargeReactive(id);
  }

  /** The last finished spans: HTTP requests, Warden's lock waits and holds, Redis commands. */
  @GetMapping("/spans")
  List<RecentSpans.Span> spans() {
    return spans.spans();
  }
}
