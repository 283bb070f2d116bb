/**
 * The synchronizers: the semaphore, the leased semaphore and the count-down latch, with their
 * scripts beside this package's resources. {@link dev.warden.internal.sync.Synchronizers} is the
 * way in. Imports {@code base}, {@code redis} and {@code wait}.
 */
package dev.warden.internal.sync;
