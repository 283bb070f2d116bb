/**
 * What differs between lock types: the reentrant, fair, read and write drivers, each with its keys,
 * its scripts (beside this package's resources) and its way of handing the lock to a waiter of the
 * same client. Imports {@code base}, {@code redis}, {@code wait} and {@code lease}.
 */
package dev.warden.internal.lock.driver;
