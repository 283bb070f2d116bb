/**
 * Values everyone reads, with no Redis in them: {@link dev.warden.internal.base.Settings} (every
 * timeout and interval), the {@link dev.warden.internal.base.Clock} and {@link
 * dev.warden.internal.base.Timer} seams (virtual time in tests), owner ids, argument checks, and
 * interrupt handling. Imports no other Warden package.
 */
package dev.warden.internal.base;
