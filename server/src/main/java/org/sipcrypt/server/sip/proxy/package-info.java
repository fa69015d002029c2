/**
 * The stateful proxy of RFC 3261 §16, one class per step: request checks, response context, Timer C,
 * CANCEL and ACK ({@code StatefulProxy}), target selection ({@code TargetSelector}, §16.5), the
 * rewriting of each branch ({@code BranchRewriter}, §16.6), loop detection, static routes, destination
 * sets with their sequential failover ({@code Failover}) and OPTIONS probes ({@code DestinationProber}), the
 * established calls a shutdown drain waits for, and the relays from bytes the transport asks first
 * ({@code StatelessRelay}: in-dialog requests by {@code RequestRelay}, responses by
 * {@code ResponseRelay}). Depends on JAIN-SIP's API, the location service and
 * {@link org.sipcrypt.server.auth.DialogRouteSigner} (to sign its Record-Route); never on
 * Netty or JDBC.
 */
package org.sipcrypt.server.sip.proxy;
