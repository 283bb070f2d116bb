/**
 * Warden for Project Reactor: {@link dev.warden.reactor.ReactiveLocks} acquires a lock as a {@code
 * Mono} of a {@link dev.warden.LockHandle} and runs a publisher while holding it, releasing on
 * completion, error and cancellation, without blocking any thread.
 */
package dev.warden.reactor;
