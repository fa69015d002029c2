package org.sipcrypt.server;

import io.micrometer.core.instrument.Measurement;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.Collection;
import java.util.Map;
import java.util.TreeMap;
import org.sipcrypt.server.http.ServerMetrics;

/**
 * The server's counters and gauges on one line, for the periodic {@code stats:} log line
 * ({@code stats.interval}) and the last one at shutdown: every non-zero meter but the JVM's as
 * {@code name{tags}=value}, sorted, then the open transactions.
 * Threading: immutable (static methods only).
 */
final class StatsLine {

    private StatsLine() {
    }

    /** The line for {@code registry}, ending with {@code transactions=N}. */
    static String of(MeterRegistry registry, int openTransactions) {
        Map<String, Double> values = new TreeMap<>();
        for (Meter m : registry.getMeters()) {
            if (ServerMetrics.isJvmMeter(m)) {
                continue;
            }
            StringBuilder name = new StringBuilder(m.getId().getName());
            if (!m.getId().getTags().isEmpty()) {
                name.append('{');
                m.getId().getTags().forEach(t -> name.append(t.getKey()).append('=').append(t.getValue()).append(','));
                name.setCharAt(name.length() - 1, '}');
            }
            Iterable<Measurement> measurements = m.measure();
            boolean several = measurements instanceof Collection<?> c && c.size() > 1;
            for (Measurement measurement : measurements) {
                if (measurement.getValue() != 0 && !Double.isNaN(measurement.getValue())) {
                    String key = several
                            ? name + "." + measurement.getStatistic().getTagValueRepresentation() : name.toString();
                    values.put(key, measurement.getValue());
                }
            }
        }
        StringBuilder sb = new StringBuilder();
        values.forEach((k, v) -> sb.append(k).append('=').append(v == Math.rint(v) ? Long.toString(v.longValue()) : v)
                .append(' '));
        sb.append("transactions=").append(openTransactions);
        return sb.toString();
    }
}
