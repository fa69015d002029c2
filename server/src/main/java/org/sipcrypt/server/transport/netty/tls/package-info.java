/**
 * The TLS stage of the Netty stream transport, on any of the three engines: {@link
 * org.sipcrypt.server.transport.netty.tls.TlsStage}, made from the {@code tls.*} settings whole, gives
 * each connection its handler (Netty's {@code SslHandler} on jsse and openssl, {@code BcTlsHandler} on
 * bc), and {@code TlsEventsHandler} counts how handshakes end. Depends on Netty and netty-tcnative, the
 * TLS material and SPI ({@code tls}, {@code tls.bc}, {@code tls.spi}) and the settings records; never on
 * JAIN-SIP or routing.
 */
package org.sipcrypt.server.transport.netty.tls;
