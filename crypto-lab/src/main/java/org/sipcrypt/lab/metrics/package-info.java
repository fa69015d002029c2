/**
 * What a generator run measures: response times in HdrHistogram, the CRT buckets, per-interval
 * samples, the generator's own CPU from {@code /proc} and the CPU of the threads of one role (the
 * UAS's) from the JVM, the sizes of a TLS handshake's first two flights and the handshakes'
 * latencies, and run summaries that are written as JSON, read back and merged across generator
 * processes. Knows nothing of SIP or sockets.
 */
package org.sipcrypt.lab.metrics;
