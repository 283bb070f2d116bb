/** Warden: distributed locks and synchronizers on Redis. Only {@code dev.warden} is API. */
// lettuce-core ships no module-info, only an Automatic-Module-Name: requiring it is unavoidable.
@SuppressWarnings("requires-automatic")
module dev.warden {
  requires lettuce.core;
  requires reactor.core;
  requires org.slf4j;

  exports dev.warden;
}
