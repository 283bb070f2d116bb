package dev.warden.testkit;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Chooses the Redis deployment that {@link WardenExtension} starts for a test class and connects
 * its {@link dev.warden.Warden} instances to: one {@link RedisServer} (the default, also without
 * this annotation), a {@link RedisCluster} of 3 masters and 3 replicas, or a {@link RedisSentinels}
 * set. The same tests then run on each, e.g. a contract suite subclassed once per deployment:
 *
 * <pre>{@code
 * @WardenDeployment(WardenDeployment.Kind.CLUSTER)
 * class ClusterLockContractIT extends LockContractIT {}
 * }</pre>
 *
 * <p>A test may also take the deployment itself as a parameter: {@link RedisServer}, {@link
 * RedisCluster} or {@link RedisSentinels}, whichever the class runs on. It is inherited by
 * subclasses and applies to {@code @Nested} classes.
 *
 * @since 0.2
 */
@Documented
@Inherited
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.TYPE)
public @interface WardenDeployment {
  /** The kinds of deployment. */
  enum Kind {
    /** One redis-server: {@link RedisServer}. */
    SINGLE,
    /** Redis Cluster, 3 masters with a replica each: {@link RedisCluster}. */
    CLUSTER,
    /** A master, 2 replicas and 3 sentinels, reached by a {@code redis-sentinel://} URI. */
    SENTINEL,
    /**
     * One redis-server ({@link RedisServer}), which every {@link dev.warden.Warden} reaches as a
     * user with exactly the rule {@link WardenAcl#SINGLE_SERVER}: the contract suites run under it
     * to prove the rule is enough.
     *
     * @since 0.2
     */
    SINGLE_ACL
  }

  /**
   * Returns the kind of deployment the class runs on.
   *
   * @return the kind
   */
  Kind value();

  /**
   * Returns whether the class shares its deployment with every other class of the test run (the
   * JVM's JUnit run) that asks for a shared deployment of the same kind: it starts for the first
   * such class and stops when the run ends, which spares a cluster's or a Sentinel set's start-up
   * (2 to 3 s each) per class. Each test still gets it clean ({@link WardenExtension}: keys
   * flushed, command statistics reset). Only for classes that leave nothing else behind: no fault
   * that outlasts a test (a failover, a killed sentinel), no configuration, no ACL user; a class
   * that does any of that keeps a deployment of its own (the default).
   *
   * @return {@code true} to share; {@code false} (the default) for a deployment of the class's own
   * @since 0.2
   */
  boolean shared() default false;

  /**
   * Returns who publishes the wake-ups of the class's {@link dev.warden.Warden} instances ({@link
   * dev.warden.Warden.Builder#wakeUps}): {@link dev.warden.WakeUps#AUTO} (the default) lets the
   * capability check choose; {@link dev.warden.WakeUps#FROM_CLIENT} runs the class's tests with the
   * client publishing every wake-up after its script, as on a server that refuses {@code PUBLISH}
   * in scripts. A {@link WardenFactory#create(java.util.function.Consumer) customizer} may set
   * another.
   *
   * @return who publishes wake-ups
   * @since 0.2
   */
  dev.warden.WakeUps wakeUps() default dev.warden.WakeUps.AUTO;
}
