/**
 * Leases: the {@link dev.warden.internal.lease.LeaseKeeper} (batched renewals and lost-lease
 * detection), what the client knows of one hold ({@link dev.warden.internal.lease.Hold}), the lease
 * it was taken with, and how its lock renews it. Imports {@code base} and {@code redis}.
 */
package dev.warden.internal.lease;
