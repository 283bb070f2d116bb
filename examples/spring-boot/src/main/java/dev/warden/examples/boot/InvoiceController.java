package dev.warden.examples.boot;

import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RestController;

/** {@code POST /invoices/{id}/charge}. */
@RestController
class InvoiceController {
  private final Invoices invoices;

  InvoiceController(Invoices invoices) {
    this.invoices = invoices;
  }

  @PostMapping("/invoices/{id}/charge")
  Invoices.Charge charge(@PathVariable String id) {
    return invoices.charge(id);
  }
}
