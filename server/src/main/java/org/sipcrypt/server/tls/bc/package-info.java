/**
 * TLS on Bouncy Castle's non-blocking protocol objects, for the {@code bc} engine:
 * {@link org.sipcrypt.server.tls.bc.BcTlsSetup} holds what every connection shares (credentials,
 * suites, session cache and TLS 1.2 ticket key, trust) and makes a {@link org.sipcrypt.server.tls.bc.BcTlsConnection} per
 * connection, which takes network bytes and gives back plain ones without doing any I/O itself; the
 * record layer's bulk cipher comes from the provider and crypto engine configured. The server's Netty
 * TLS stage, the crypto lab's load generator and the JMH benchmarks all drive these same classes.
 * Depends on the JDK, Bouncy Castle, Caffeine and the other {@code tls} packages only; never on
 * Netty, JAIN-SIP or the settings records.
 */
package org.sipcrypt.server.tls.bc;
