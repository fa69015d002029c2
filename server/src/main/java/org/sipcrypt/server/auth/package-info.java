/**
 * SIP digest authentication (RFC 3261 §22, RFC 7616 / RFC 8760): stateless HMAC nonces, replay
 * protection with bounded memory, and credential lookups that are batched and never run on a SIP
 * lane or an event loop. Depends on the JDK, JAIN-SIP's message API and the subscriber store;
 * never on Netty.
 */
package org.sipcrypt.server.auth;
