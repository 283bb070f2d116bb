package dev.warden.it;

/** The {@link dev.warden.DistributedCountDownLatch} contract on one server. */
class LatchContractIT extends LatchContract {}
