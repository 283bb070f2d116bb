/**
 * A Spring Integration {@link org.springframework.integration.support.locks.LockRegistry} on
 * Warden: {@link dev.warden.integration.WardenLockRegistry}.
 */
package dev.warden.integration;
