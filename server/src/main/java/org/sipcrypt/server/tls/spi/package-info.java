/**
 * The cipher-suite provider SPI: each {@link org.sipcrypt.server.tls.spi.CipherSuiteProvider}
 * (found with {@link java.util.ServiceLoader}) offers the TLS cipher suites of one bulk-cipher
 * family and says which TLS engines and crypto engines can run them;
 * {@link org.sipcrypt.server.tls.spi.CipherSuiteRegistry} turns a configured list of provider or
 * suite names into suites, refusing insecure ones unless the lab switch is on. Depends on the JDK
 * and Bouncy Castle only.
 */
package org.sipcrypt.server.tls.spi;
