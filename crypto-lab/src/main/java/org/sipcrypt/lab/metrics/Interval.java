package org.sipcrypt.lab.metrics;

/**
 * One per-interval sample of a generator run.
 * Threading: immutable.
 *
 * @param second          seconds since the run began at the interval's end
 * @param warmup          whether the interval ended within the warm-up
 * @param offered         operations (calls, registrations, ...) due in the interval
 * @param started         operations whose first request was sent
 * @param completed       operations that ended as expected (a call: its BYE answered 200)
 * @param failed          operations that failed
 * @param bytesSent       bytes sent on the wire (datagrams, or TCP payload including TLS records)
 * @param bytesReceived   bytes received on the wire
 * @param crtCount        response times recorded
 * @param crtP50Ms        median CRT in ms (0 without calls)
 * @param crtP90Ms        90th percentile
 * @param crtP99Ms        99th percentile
 * @param crtMaxMs        maximum
 * @param buckets         CRT counts per {@link CrtBuckets} bucket
 * @param handshakes      TLS handshakes completed
 * @param resumed         of them resumed
 * @param retransmissions SIP retransmissions sent
 * @param cpuPercent      generator CPU in % of one core over the interval, -1 unknown
 */
public record Interval(double second, boolean warmup, long offered, long started, long completed, long failed,
                       long bytesSent, long bytesReceived, long crtCount, double crtP50Ms, double crtP90Ms,
                       double crtP99Ms, double crtMaxMs, long[] buckets, long handshakes, long resumed,
                       long retransmissions, double cpuPercent) {

    public Interval {
        buckets = buckets.clone();
    }

    @Override
    public long[] buckets() {
        return buckets.clone();
    }

    /** The line printed per interval. */
    public String line() {
        return String.format(java.util.Locale.ROOT,
                "%6.1fs%s offered %d started %d completed %d failed %d | %.1f kbps out %.1f in | CRT ms p50 %.1f p90 %.1f"
                        + " p99 %.1f max %.1f | tls %d (resumed %d) | rexmit %d | cpu %.0f%%",
                second, warmup ? " (warm-up)" : "", offered, started, completed, failed, bytesSent * 8 / 1000.0,
                bytesReceived * 8 / 1000.0, crtP50Ms, crtP90Ms, crtP99Ms, crtMaxMs, handshakes, resumed,
                retransmissions, cpuPercent);
    }

    /** The sample as a JSON object. */
    public String json() {
        StringBuilder b = new StringBuilder();
        b.append(String.format(java.util.Locale.ROOT,
                "{\"second\":%.3f,\"warmup\":%b,\"offered\":%d,\"started\":%d,\"completed\":%d,\"failed\":%d,"
                        + "\"bytesSent\":%d,\"bytesReceived\":%d,\"crtCount\":%d,\"crtP50Ms\":%.3f,\"crtP90Ms\":%.3f,"
                        + "\"crtP99Ms\":%.3f,\"crtMaxMs\":%.3f,\"handshakes\":%d,\"resumed\":%d,"
                        + "\"retransmissions\":%d,\"cpuPercent\":%.1f,\"buckets\":{",
                second, warmup, offered, started, completed, failed, bytesSent, bytesReceived, crtCount, crtP50Ms,
                crtP90Ms, crtP99Ms, crtMaxMs, handshakes, resumed, retransmissions, cpuPercent));
        for (int i = 0; i < buckets.length; i++) {
            b.append(i == 0 ? "" : ",").append('"').append(CrtBuckets.NAMES[i]).append("\":").append(buckets[i]);
        }
        return b.append("}}").toString();
    }
}
