/**
 * The registrar of RFC 3261 §10.3: REGISTER rules and lifetimes; bindings are stored through the
 * location service. Depends on JAIN-SIP's message API and {@code org.sipcrypt.server.location}
 * only; never on Netty or JDBC.
 */
package org.sipcrypt.server.sip.registrar;
