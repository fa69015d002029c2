/**
 * Operator commands on the server jar besides running the server: {@code users} (subscriber
 * provisioning) and {@code certs} (a lab CA with server and client certificates). They read the same configuration file and options as the server, so they act on
 * the database the server uses. Depends on picocli, the configuration and the stores; never on
 * Netty or the SIP stack.
 */
package org.sipcrypt.server.cli;
