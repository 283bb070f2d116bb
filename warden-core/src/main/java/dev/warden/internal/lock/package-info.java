/**
 * The lock engine and the lock primitives: {@link dev.warden.internal.lock.LockCore} (acquire,
 * adopt, release) with its claim, this client's record of holds, the hand-off, and the facades
 * users get (lock, read-write lock, multi-lock, conditions, handles). {@link
 * dev.warden.internal.lock.Locks} is the way in. Imports every package above it but {@code sync}.
 */
package dev.warden.internal.lock;
