/** Warden: distributed locks and synchronizers on Redis. Only {@code dev.warden} is API. */
// lettuce-core ships no module-info, only an Automatic-Module-Name: requiring it is unavoidable,
// and transitively, since the builder takes Lettuce's RedisCredentialsProvider and ClientResources.
@SuppressWarnings({"requires-automatic", "requires-transitive-automatic"})
module dev.warden {
  requires transitive lettuce.core;
  requires reactor.core;
  requires org.slf4j;

  exports dev.warden;
}
