/**
 * Waiting, for every primitive: the {@link dev.warden.internal.wait.Acquisition} state machine over
 * a {@link dev.warden.internal.wait.Claim}, the subscriptions and topics that wake parked waiters,
 * the wake-message vocabulary ({@link dev.warden.internal.wait.WakeMessage}), and the hand-off
 * target a parked waiter offers ({@link dev.warden.internal.wait.Successor}). Imports {@code base}
 * and {@code redis}.
 */
package dev.warden.internal.wait;
