/**
 * The quorum lock (Redlock): one lock name on several independent deployments, held while a
 * majority holds it, with one fencing token across them.
 */
package dev.warden.internal.quorum;
