/**
 * The redirect server of RFC 3261 §8.3: 302 with a user's registered contacts. Depends on JAIN-SIP's
 * API and the location service; never on Netty or JDBC.
 */
package org.sipcrypt.server.sip.redirect;
