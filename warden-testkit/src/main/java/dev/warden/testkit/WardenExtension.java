package dev.warden.testkit;

import dev.warden.WakeUps;
import dev.warden.Warden;
import java.util.Optional;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolutionException;
import org.junit.jupiter.api.extension.ParameterResolver;
import org.junit.platform.commons.support.AnnotationSupport;

/**
 * Injects the test class's Redis deployment, {@link Warden} instances and a {@link WardenFactory}
 * into test methods, lifecycle methods and constructors, and gives each test a clean deployment.
 *
 * <pre>{@code
 * @ExtendWith(WardenExtension.class)
 * class FooIT {
 *   @Test
 *   void secondOwnerCannotTakeTheLock(RedisServer redis, Warden warden, WardenFactory wardens) {
 *     ...
 *   }
 * }
 * }</pre>
 *
 * <p><b>Deployment.</b> One {@link RedisServer}, unless the class carries {@link WardenDeployment}:
 * then a {@link RedisCluster} (3 masters, 3 replicas) or a {@link RedisSentinels} set, injected by
 * its own type. It serves the whole test class, its {@code @Nested} classes included: it starts
 * when first injected and stops after the class; a {@linkplain WardenDeployment#shared() shared}
 * one serves every class of the run that asks for a shared one of its kind, and stops when the run
 * ends. Before each test the extension ends a {@linkplain RedisServer#pause pause} and restarts a
 * {@linkplain RedisServer#kill killed} single server (on a cluster it waits until the cluster is
 * healthy), deletes all keys ({@code FLUSHALL} on every master) and resets the command statistics
 * ({@code CONFIG RESETSTAT}), so a test sees neither the data nor the faults nor the {@link
 * RedisServer#commandCalls() command counts} of the one before. Loaded scripts are kept.
 *
 * <p>Each {@link Warden} parameter is a new instance, connected to the deployment ({@code
 * Warden.builder().uri(...)} or {@code .cluster(...)}) with the test's {@link WardenOptions} (on
 * the method, else on the class); a {@link WardenFactory} parameter creates more. All of them are
 * closed after the test (after the class, when injected into {@code @BeforeAll}).
 *
 * <p><b>Thread-safety.</b> The extension is stateless and may be shared; state lives in the {@link
 * ExtensionContext.Store}. Test methods of one class that run concurrently share one deployment and
 * flush each other's data: run them in the same thread.
 *
 * @since 0.2
 */
public final class WardenExtension
    implements ParameterResolver, BeforeEachCallback, AfterEachCallback {
  private static final ExtensionContext.Namespace NAMESPACE =
      ExtensionContext.Namespace.create(WardenExtension.class);
  private static final String SERVER = "redis-deployment";
  private static final String FACTORY = "warden-factory";

  /** Creates the extension; JUnit calls this for {@code @ExtendWith(WardenExtension.class)}. */
  public WardenExtension() {}

  /**
   * Returns whether the parameter is a deployment ({@link RedisServer}, {@link RedisCluster},
   * {@link RedisSentinels}), a {@link Warden} or a {@link WardenFactory}.
   */
  @Override
  public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
    Class<?> type = parameter.getParameter().getType();
    return type == RedisServer.class
        || type == RedisCluster.class
        || type == RedisSentinels.class
        || type == Warden.class
        || type == WardenFactory.class;
  }

  /**
   * Returns the class's deployment (starting it on first use), a new {@link Warden}, or the test's
   * {@link WardenFactory}.
   *
   * @throws ParameterResolutionException if the server does not start or the {@code Warden} cannot
   *     be built
   */
  @Override
  public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
    Class<?> type = parameter.getParameter().getType();
    try {
      if (type == RedisServer.class || type == RedisCluster.class || type == RedisSentinels.class) {
        Object resource = target(context).resource();
        if (!type.isInstance(resource)) {
          throw new ParameterResolutionException(
              "the class runs on a "
                  + resource.getClass().getSimpleName()
                  + " (see @WardenDeployment), not a "
                  + type.getSimpleName()
                  + ": "
                  + parameter.getParameter());
        }
        return resource;
      }
      if (type == WardenFactory.class) {
        return factory(context);
      }
      return factory(context).create();
    } catch (RuntimeException e) {
      throw new ParameterResolutionException(
          "cannot provide " + type.getSimpleName() + " for " + parameter.getParameter(), e);
    }
  }

  /**
   * Gives the test a clean deployment, if the class has one yet: ends a pause, restarts a killed
   * server, then runs {@code FLUSHALL} and {@code CONFIG RESETSTAT} on every master.
   */
  @Override
  public void beforeEach(ExtensionContext context) {
    RedisDeployment target = StoredResource.get(deploymentStore(context), deploymentKey(context));
    if (target != null) {
      target.reset();
    }
  }

  /** Closes the {@link Warden} instances created for the test. */
  @Override
  public void afterEach(ExtensionContext context) {
    WardenFactory factory = StoredResource.get(context.getStore(NAMESPACE), FACTORY);
    if (factory != null) {
      // The store would close it too, but only after every after-each callback; closing here lets
      // an extension registered around this one (a connection-leak check, say) see them closed.
      factory.closeAll();
    }
  }

  private static RedisDeployment target(ExtensionContext context) {
    WardenDeployment.Kind kind = kind(context);
    return StoredResource.getOrCreate(
        deploymentStore(context),
        deploymentKey(context),
        () -> {
          RedisDeployment target = RedisDeployment.start(kind);
          return StoredResource.of(target, target::close);
        });
  }

  private static WardenFactory factory(ExtensionContext context) {
    RedisDeployment target = target(context);
    WardenOptions options = options(context).orElse(null);
    return StoredResource.getOrCreate(
        context.getStore(NAMESPACE),
        FACTORY,
        () -> {
          WardenFactory factory =
              new WardenFactory(
                  target,
                  options,
                  deployment(context).map(WardenDeployment::wakeUps).orElse(WakeUps.AUTO));
          return StoredResource.of(factory, factory::closeAll);
        });
  }

  private static WardenDeployment.Kind kind(ExtensionContext context) {
    return deployment(context).map(WardenDeployment::value).orElse(WardenDeployment.Kind.SINGLE);
  }

  private static boolean shared(ExtensionContext context) {
    return deployment(context).map(WardenDeployment::shared).orElse(false);
  }

  /**
   * Returns where the deployment lives: the store of the whole run for a {@linkplain
   * WardenDeployment#shared() shared} one (JUnit closes it when the run ends), else the outermost
   * test class's.
   */
  private static ExtensionContext.Store deploymentStore(ExtensionContext context) {
    return shared(context) ? context.getRoot().getStore(NAMESPACE) : classStore(context);
  }

  /** Returns the key of the deployment in its store: one shared deployment per kind. */
  private static String deploymentKey(ExtensionContext context) {
    return shared(context) ? SERVER + "-shared-" + kind(context) : SERVER;
  }

  /** Returns the {@link WardenDeployment} of the test's class or an enclosing one. */
  private static Optional<WardenDeployment> deployment(ExtensionContext context) {
    for (ExtensionContext current = context;
        current != null;
        current = current.getParent().orElse(null)) {
      Optional<WardenDeployment> found =
          current
              .getTestClass()
              .flatMap(c -> AnnotationSupport.findAnnotation(c, WardenDeployment.class));
      if (found.isPresent()) {
        return found;
      }
    }
    return Optional.empty();
  }

  /** Returns the store of the outermost test class, so that {@code @Nested} classes share it. */
  private static ExtensionContext.Store classStore(ExtensionContext context) {
    ExtensionContext outermost = context;
    while (outermost.getParent().flatMap(ExtensionContext::getParent).isPresent()) {
      outermost = outermost.getParent().orElseThrow();
    }
    return outermost.getStore(NAMESPACE);
  }

  /** Returns the nearest {@link WardenOptions}: on the method, else the class, else outer ones. */
  private static Optional<WardenOptions> options(ExtensionContext context) {
    for (ExtensionContext current = context;
        current != null;
        current = current.getParent().orElse(null)) {
      Optional<WardenOptions> found =
          AnnotationSupport.findAnnotation(current.getElement(), WardenOptions.class);
      if (found.isPresent()) {
        return found;
      }
    }
    return Optional.empty();
  }
}
