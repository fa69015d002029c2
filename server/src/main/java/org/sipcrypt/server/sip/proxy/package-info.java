/**
 * The stateful proxy of RFC 3261 §16: target selection, forwarding, response context, CANCEL,
 * loop detection and static routes, and the established calls a shutdown drain waits for. Depends on JAIN-SIP's API, the location service and
 * {@link org.sipcrypt.server.auth.DialogRouteSigner} (to sign its Record-Route); never on
 * Netty or JDBC.
 */
package org.sipcrypt.server.sip.proxy;
