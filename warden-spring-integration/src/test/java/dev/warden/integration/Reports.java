package dev.warden.integration;

import org.springframework.context.event.EventListener;
import org.springframework.integration.leader.event.OnGrantedEvent;
import org.springframework.integration.leader.event.OnRevokedEvent;
import org.springframework.stereotype.Component;

// The Spring Integration guide's leader, as shown there (ReadmeExampleIT runs it; DocSnippetsTest
// compares the two).
// example spring-integration-leader: begin
@Component
class Reports {
  volatile boolean leading;

  @EventListener
  void granted(OnGrantedEvent event) {
    leading = true; // start the work only the leader does
  }

  @EventListener
  void revoked(OnRevokedEvent event) {
    leading = false; // stop it
  }
}
// example spring-integration-leader: end
