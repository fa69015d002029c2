/**
 * The load generator: the UAC role (open-loop arrivals of calls, registrations and INVITEs answered
 * 404 or 302, digest authentication as the users of a users file, RFC 3261 timers on UDP), the UAS
 * role, and the transports of one leg (UDP over a socket and its receiver thread; TCP and TLS, on the
 * server's bc engine or the JDK's SunJSSE in Netty's {@code SslHandler}, and WS and WSS as Netty's
 * WebSocket client on top of them (RFC 7118), on Netty event loops of
 * each role's own, so that the two roles' CPU time can be told apart in one process). Depends on the server's TLS classes only, never on its SIP stack, Netty
 * transport or digest code (it uses Netty itself, not the server's pipeline).
 */
package org.sipcrypt.lab.loadgen;
