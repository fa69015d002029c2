/**
 * The load generator: the UAC role (open-loop arrivals of calls, registrations and INVITEs answered
 * 404 or 302, digest authentication as the users of a users file, RFC 3261 timers on UDP), the UAS
 * role, and the transports of one leg (UDP, TCP, TLS on the server's bc engine or the JDK's SunJSSE)
 * over blocking sockets. Depends on the server's TLS classes only, never on its SIP stack, Netty
 * transport or digest code.
 */
package org.sipcrypt.lab.loadgen;
