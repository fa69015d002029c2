/**
 * The registrar of RFC 3261 §10.3: REGISTER rules and lifetimes, and the Path of RFC 3327
 * ({@code PathTrust}, {@code PathVector}); bindings are stored through the location service.
 * Depends on JAIN-SIP's message API, {@code org.sipcrypt.server.location} and the settings and
 * transport records it reads; never on Netty or JDBC.
 */
package org.sipcrypt.server.sip.registrar;
