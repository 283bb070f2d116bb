/**
 * Spring Boot auto-configuration of Warden: the {@link dev.warden.Warden} bean, its {@code
 * warden.*} properties, the {@code warden} health indicator and Actuator endpoint.
 */
package dev.warden.spring.boot;
