/**
 * The stateful proxy of RFC 3261 §16, one class per step: request checks, response context, Timer C,
 * CANCEL and ACK ({@code StatefulProxy}), target selection ({@code TargetSelector}, §16.5), the
 * rewriting of each branch ({@code BranchRewriter}, §16.6), loop detection, static routes, and the
 * established calls a shutdown drain waits for. Depends on JAIN-SIP's API, the location service and
 * {@link org.sipcrypt.server.auth.DialogRouteSigner} (to sign its Record-Route); never on
 * Netty or JDBC.
 */
package org.sipcrypt.server.sip.proxy;
