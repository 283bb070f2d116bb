/**
 * Test support for Warden and for applications that use it: a real {@link
 * dev.warden.testkit.RedisServer} per test class with fault injection (restart, kill, pause), a
 * JUnit 5 extension that injects it and {@link dev.warden.Warden} instances ({@link
 * dev.warden.testkit.WardenExtension}), and child JVMs for owners that must die for real ({@link
 * dev.warden.testkit.JvmProcess}).
 *
 * <p>Needs {@code redis-server} on the {@code PATH}.
 */
package dev.warden.testkit;
