/**
 * Test support for Warden and for applications that use it: a real {@link
 * dev.warden.testkit.RedisServer} per test class with fault injection (restart, kill, pause), a
 * real Redis Cluster with failovers, lost writes and slot migration ({@link
 * dev.warden.testkit.RedisCluster}), a JUnit 5 extension that injects it and {@link
 * dev.warden.Warden} instances ({@link dev.warden.testkit.WardenExtension}), child JVMs for owners
 * that must die for real ({@link dev.warden.testkit.JvmProcess}), and a harness for checking
 * exclusion as an invariant: contenders released together ({@link dev.warden.testkit.StartGate}), a
 * section that counts who is inside ({@link dev.warden.testkit.CriticalSection}) and blocking calls
 * as futures ({@link dev.warden.testkit.Blocking}).
 *
 * <p>Needs {@code redis-server} on the {@code PATH}, or the server {@code -Dwarden.server} names
 * ({@link dev.warden.testkit.ServerBinary}). JUnit is an optional dependency: only {@link
 * dev.warden.testkit.WardenExtension} uses it; the other classes need no test library and report
 * failures as {@link java.lang.AssertionError}.
 */
package dev.warden.testkit;
