package dev.warden.it;

/** The {@link dev.warden.DistributedSemaphore} contract on one server. */
class SemaphoreContractIT extends SemaphoreContract {}
