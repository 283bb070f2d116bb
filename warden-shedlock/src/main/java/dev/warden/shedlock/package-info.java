/**
 * A ShedLock {@link net.javacrumbs.shedlock.core.LockProvider} on Warden: {@link
 * dev.warden.shedlock.WardenLockProvider}.
 */
package dev.warden.shedlock;
