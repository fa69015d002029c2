/**
 * Netty under JAIN-SIP: the message-processor factory, UDP and TCP message processors and
 * channels (TCP's also carry TLS, WebSocket and secure WebSocket connections), stream framing,
 * the WebSocket stages and keep-alives. Event-loop code here only frames bytes and hands
 * them to the SIP worker lanes; it never parses, routes or waits.
 */
package org.sipcrypt.server.transport.netty;
