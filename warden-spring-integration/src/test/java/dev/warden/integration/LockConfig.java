package dev.warden.integration;

import dev.warden.Warden;
import java.util.UUID;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.integration.leader.DefaultCandidate;
import org.springframework.integration.support.leader.LockRegistryLeaderInitiator;

// The Spring Integration guide's configuration, as shown there (ReadmeExampleIT runs it;
// DocSnippetsTest compares the two).
// example spring-integration-config: begin
@Configuration
class LockConfig {
  @Bean(destroyMethod = "close")
  Warden warden(@Value("${redis.uri}") String redisUri) {
    return Warden.connect(redisUri);
  }

  @Bean
  WardenLockRegistry lockRegistry(Warden warden) {
    return new WardenLockRegistry(warden, "billing:"); // Warden locks "billing:<key>"
  }

  // one leader for the role "reports" among all instances of the application
  @Bean
  LockRegistryLeaderInitiator leaderInitiator(WardenLockRegistry lockRegistry) {
    return new LockRegistryLeaderInitiator(
        lockRegistry, new DefaultCandidate(UUID.randomUUID().toString(), "reports"));
  }
}
// example spring-integration-config: end
