/**
 * Transport-level notions shared by every transport implementation: transports, connection
 * patterns and keys, the SIP worker lanes and the overload guard (with the per-source limits) in front
 * of them, bad-input counters
 * and raw-byte helpers.
 * Nothing here depends on Netty or decides routing; Netty adapters live in {@code transport.netty}.
 */
package org.sipcrypt.server.transport;
