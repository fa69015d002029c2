/**
 * Locating SIP servers by DNS (RFC 3263): NAPTR, SRV (ordered by RFC 2782) and A/AAAA lookups on
 * Netty's asynchronous resolver, on a DNS event loop of its own, with a TTL-bounded cache. Takes
 * plain host, port and transport values and answers with {@link org.sipcrypt.server.dns.Destination}s;
 * depends on Netty's DNS codec and resolver, never on JAIN-SIP or the SIP functions.
 */
package org.sipcrypt.server.dns;
