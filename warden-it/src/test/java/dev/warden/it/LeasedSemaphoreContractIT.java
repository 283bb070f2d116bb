package dev.warden.it;

/** The {@link dev.warden.LeasedSemaphore} contract on one server. */
class LeasedSemaphoreContractIT extends LeasedSemaphoreContract {}
