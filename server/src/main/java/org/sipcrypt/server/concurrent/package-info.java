/**
 * The one place threads and executors are made: named daemon threads, and executors with a bounded
 * queue and a stated rejection. Depends on the JDK only, so the transport, the SIP layer, the
 * database code and the lab all use it.
 */
package org.sipcrypt.server.concurrent;
