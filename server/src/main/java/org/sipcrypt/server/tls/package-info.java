/**
 * TLS material for SIP over TLS: reading and writing PEM certificates and keys, and the lab
 * certificate authority behind the {@code certs} command. Depends on the JDK and Bouncy Castle
 * only; never on Netty or JAIN-SIP.
 */
package org.sipcrypt.server.tls;
