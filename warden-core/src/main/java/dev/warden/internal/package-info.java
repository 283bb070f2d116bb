/**
 * Warden's mechanisms: not API, and not exported by {@code module-info}; anything here may change
 * without notice. This package holds only the composition root, {@link
 * dev.warden.internal.WardenRuntime}, which makes the parts of one {@code Warden} and closes them,
 * and the {@link dev.warden.internal.WardenOptions} it starts from. The parts live in one package
 * per concern, each importing only those listed before it: {@code base}, {@code redis}, {@code
 * redis.sentinel} and {@code redis.cluster}, {@code wait} and {@code lease}, {@code lock.driver},
 * {@code lock}, {@code quorum} and {@code sync} (see ARCHITECTURE.md and CONCURRENCY.md).
 */
package dev.warden.internal;
