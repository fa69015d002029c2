/**
 * The SIP layer on top of JAIN-SIP: the stack's construction and logging adapters, the listener
 * that dispatches each request, and what the SIP functions share ({@link org.sipcrypt.server.sip.SipContext}).
 * Nothing here imports Netty; the transport is reached only through JAIN-SIP and
 * {@code org.sipcrypt.server.transport}.
 */
package org.sipcrypt.server.sip;
