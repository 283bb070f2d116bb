/**
 * Recipes on the public lock API: {@link dev.warden.internal.leader.LockLeadership}, leader
 * election on a lock's handle and its lost-lease signal. Imports {@code base} only (its timer); the
 * locks it uses are the public {@link dev.warden.DistributedLock}s.
 */
package dev.warden.internal.leader;
