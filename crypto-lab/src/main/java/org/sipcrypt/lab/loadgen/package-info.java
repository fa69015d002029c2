/**
 * The load generator: the UAC role (open-loop call arrivals, the INVITE/ACK/BYE flow, RFC 3261 timers
 * on UDP), the UAS role, and the transports of one leg (UDP, TCP, TLS on the server's bc engine or
 * the JDK's SunJSSE) over blocking sockets. Depends on the server's TLS classes only, never on its
 * SIP stack or Netty transport.
 */
package org.sipcrypt.lab.loadgen;
