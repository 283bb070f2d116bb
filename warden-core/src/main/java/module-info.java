/** Warden: distributed locks and synchronizers on Redis. Only {@code dev.warden} is API. */
module dev.warden {
  requires lettuce.core;
  requires org.slf4j;

  exports dev.warden;
}
