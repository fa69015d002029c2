/**
 * The built-in cipher-suite providers: AES (the suite RFC 3261 makes mandatory and its modern
 * variants), 3DES, Camellia, SEED and RC4, listed in
 * {@code META-INF/services/org.sipcrypt.server.tls.spi.CipherSuiteProvider}. Depends on the SPI
 * and Bouncy Castle's suite constants only.
 */
package org.sipcrypt.server.tls.provider;
