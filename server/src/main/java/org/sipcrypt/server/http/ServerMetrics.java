package org.sipcrypt.server.http;

import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.config.NamingConvention;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.micrometer.prometheusmetrics.PrometheusNamingConvention;
import java.util.Objects;

/**
 * The server's metrics registry: Micrometer's Prometheus registry, whose meters keep the dotted
 * names of STYLE.md ({@code sip.requests.received{method}}) inside the server and are exported with
 * Prometheus's conventions and a {@code sipcrypt_} prefix ({@code sipcrypt_sip_requests_received_total},
 * timers in seconds, sizes in bytes), plus the JVM's heap, GC pause and thread meters
 * ({@code sipcrypt_jvm_memory_used_bytes}, {@code sipcrypt_jvm_gc_pause_seconds}).
 * Threading: thread-safe; {@link #scrape} never blocks (it reads counters and calls gauges, none of
 * which wait).
 */
public final class ServerMetrics implements AutoCloseable {

    /** The content type of the Prometheus text exposition format, version 0.0.4. */
    public static final String CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

    /** Prefix of every exported metric name. */
    public static final String PREFIX = "sipcrypt_";

    private final PrometheusMeterRegistry registry;
    private final JvmGcMetrics gc;

    public ServerMetrics() {
        registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        registry.config().namingConvention(new Prefixed(new PrometheusNamingConvention()));
        new JvmMemoryMetrics().bindTo(registry);
        new JvmThreadMetrics().bindTo(registry);
        gc = new JvmGcMetrics();
        gc.bindTo(registry);
    }

    /** The registry the server's counters, timers and gauges are registered in. */
    public MeterRegistry registry() {
        return registry;
    }

    /** Every meter in the Prometheus text exposition format (version 0.0.4). */
    public String scrape() {
        return registry.scrape();
    }

    /** Whether a meter is the JVM's rather than the server's (left out of the stats line). */
    public static boolean isJvmMeter(Meter m) {
        return m.getId().getName().startsWith("jvm.");
    }

    /** Detaches the GC listeners from the JVM's collectors and closes the registry. */
    @Override
    public void close() {
        gc.close();
        registry.close();
    }

    /** Prometheus's names with the {@code sipcrypt_} prefix. Threading: immutable. */
    private record Prefixed(NamingConvention prometheus) implements NamingConvention {

        Prefixed {
            Objects.requireNonNull(prometheus, "prometheus");
        }

        @Override
        public String name(String name, Meter.Type type, String baseUnit) {
            return PREFIX + prometheus.name(name, type, baseUnit);
        }

        @Override
        public String tagKey(String key) {
            return prometheus.tagKey(key);
        }

        @Override
        public String tagValue(String value) {
            return prometheus.tagValue(value);
        }
    }
}
