/**
 * The fast path: what a received message settles from its bytes, before (and instead of)
 * JAIN-SIP's parse and transaction layer, in one ordered list of steps ({@link
 * org.sipcrypt.server.transport.fastpath.FastPath}): a kept transaction answers or absorbs a
 * retransmission, an early answer challenges an INVITE, a relay sends on an in-dialog ACK or BYE,
 * or a response coming back. It reads the message through its {@link
 * org.sipcrypt.server.transport.SipHead} only, talks to the transport through {@link
 * org.sipcrypt.server.transport.fastpath.FastPath.Channel}, and holds no Netty or JAIN-SIP type
 * beyond the public {@code javax.sip} interfaces.
 */
package org.sipcrypt.server.transport.fastpath;
