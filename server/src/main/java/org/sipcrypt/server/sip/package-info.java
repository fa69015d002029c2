/**
 * The SIP layer on top of JAIN-SIP: the stack's construction and logging adapters, the listener
 * that dispatches each request, the interfaces the SIP functions implement ({@code SipFunction},
 * {@code ProxyFunction}, {@code RegistrarFunction}) and what they share ({@link org.sipcrypt.server.sip.SipContext}).
 * The functions live in the subpackages {@code proxy}, {@code redirect} and {@code registrar}, which
 * depend on this package; nothing here imports them (the server wires them in).
 * Nothing here imports Netty; the transport is reached only through JAIN-SIP and
 * {@code org.sipcrypt.server.transport}.
 */
package org.sipcrypt.server.sip;
