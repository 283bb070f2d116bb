package dev.warden.internal.wait;

/**
 * What a release script needs to give an object straight to a parked acquisition of the same
 * client: who it acquires for, with what lease, under which acquisition id.
 *
 * @param object the key of what it acquires (a lock's hold key): a release hands over its own
 * @param owner the owner the object would be held by
 * @param leaseMillis the lease it asked for
 * @param acquisitionId its acquisition id, which the script records with the hold
 * @param ticket its place in the object's queue ({@link Long#MAX_VALUE} when it has none)
 */
public record HandOffTerms(
    String object, String owner, long leaseMillis, String acquisitionId, long ticket) {}
