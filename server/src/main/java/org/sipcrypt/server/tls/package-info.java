/**
 * TLS material for SIP over TLS: reading and writing PEM certificates and keys, the lab
 * certificate authority behind the {@code certs} command, and the revocation checks of peers'
 * certificates (CRLs, and OCSP with its cache and the stapled response of the server's own).
 * Depends on the JDK, Bouncy Castle, Caffeine and the server's named threads only; never on Netty
 * or JAIN-SIP.
 */
package org.sipcrypt.server.tls;
