/**
 * What a generator run measures: call response times in HdrHistogram, the CRT buckets, per-interval
 * samples and the generator's own CPU from {@code /proc}. Knows nothing of SIP or sockets.
 */
package org.sipcrypt.lab.metrics;
