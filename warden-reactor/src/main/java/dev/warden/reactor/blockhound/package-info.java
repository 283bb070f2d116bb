/**
 * Warden's <a href="https://github.com/reactor/BlockHound">BlockHound</a> integration: loaded by
 * {@code BlockHound.install()} in your tests, so that the short lock waits on Warden's way to Redis
 * (Lettuce's lock around a command write, Warden's timer queue) are not reported, nor, on JDK 17,
 * turned into a connection or a timer that never moves again.
 */
package dev.warden.reactor.blockhound;
