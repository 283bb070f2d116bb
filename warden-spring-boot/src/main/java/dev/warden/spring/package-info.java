/**
 * Method-level Warden locks for Spring: {@link dev.warden.spring.WardenLocked} and the advisor that
 * applies it.
 */
package dev.warden.spring;
