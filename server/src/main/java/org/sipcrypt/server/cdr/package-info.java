/**
 * Call detail records: one record per INVITE call through the proxy ({@link org.sipcrypt.server.cdr.CallRecords}),
 * handed to one writer thread through a bounded queue ({@link org.sipcrypt.server.cdr.CdrWriter}) and written
 * as JSON lines or to the {@code cdrs} table. Depends on the JDK, Jackson, JDBC and Micrometer only; never on
 * Netty or JAIN-SIP, and nothing here blocks the thread that reports a call's events.
 */
package org.sipcrypt.server.cdr;
