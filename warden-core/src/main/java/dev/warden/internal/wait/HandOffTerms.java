package dev.warden.internal.wait;

/**
 * What a release script needs to give an object straight to a parked acquisition of the same
 * client: who it acquires for, with what lease, under which acquisition id. Made once per claim.
 *
 * @param object the key of what it acquires (a lock's hold key): a release hands over its own
 * @param owner the owner the object would be held by
 * @param leaseMillis the lease it asked for
 * @param acquisitionId its acquisition id, which the script records with the hold
 */
public record HandOffTerms(String object, String owner, long leaseMillis, String acquisitionId) {}
