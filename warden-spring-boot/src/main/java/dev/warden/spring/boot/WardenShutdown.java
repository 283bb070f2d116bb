package dev.warden.spring.boot;

import dev.warden.Warden;
import java.time.Duration;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.context.SmartLifecycle;

/**
 * Closes the auto-configured {@link Warden} gracefully ({@link Warden#close(Duration)} with {@code
 * warden.shutdown.grace}) when the context stops, in phase {@link #PHASE}: after the web server's
 * graceful shutdown let requests in flight finish and after it stopped, so that locks those
 * requests hold are released by them first; before the beans are destroyed.
 */
final class WardenShutdown implements SmartLifecycle {
  /** Below the web server's graceful shutdown ({@code DEFAULT_PHASE - 1024}) and stop (- 2048). */
  static final int PHASE = SmartLifecycle.DEFAULT_PHASE - 4096;

  private final ConfigurableListableBeanFactory beans;
  private final String wardenBean;
  private final Duration grace;
  private volatile boolean running;

  /**
   * A lifecycle for the Warden bean of that name; it does not create the bean (which stays lazy
   * where the application's beans are), and closes it only if it was created.
   */
  WardenShutdown(ConfigurableListableBeanFactory beans, String wardenBean, Duration grace) {
    this.beans = beans;
    this.wardenBean = wardenBean;
    this.grace = grace;
  }

  @Override
  public void start() {
    running = true;
  }

  /** Blocks for up to the grace plus a command timeout (see {@link Warden#close(Duration)}). */
  @Override
  public void stop() {
    running = false;
    if (beans.containsSingleton(wardenBean)) {
      beans.getBean(wardenBean, Warden.class).close(grace);
    }
  }

  @Override
  public boolean isRunning() {
    return running;
  }

  @Override
  public int getPhase() {
    return PHASE;
  }
}
