/**
 * Kept transactions: the answers of completed transactions kept as bytes over UDP (RFC 3261
 * §17.2.1, §17.2.2; RFC 6026 §7.1), so that a retransmission is answered or absorbed from its bytes
 * without the stack ({@link org.sipcrypt.server.transport.kept.CompletedTransactions} over the
 * bounded table {@link org.sipcrypt.server.transport.kept.KeptEntryTable}, each entry one byte array,
 * {@link org.sipcrypt.server.transport.kept.KeptEntry}). Depends on {@code transport} (the top Via's
 * reader) and the public {@code javax.sip} header interfaces only.
 */
package org.sipcrypt.server.transport.kept;
