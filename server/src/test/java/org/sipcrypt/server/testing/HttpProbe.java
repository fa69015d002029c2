package org.sipcrypt.server.testing;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;
import org.hawkular.agent.prometheus.text.TextPrometheusMetricDataParser;
import org.hawkular.agent.prometheus.types.Counter;
import org.hawkular.agent.prometheus.types.Gauge;
import org.hawkular.agent.prometheus.types.Metric;
import org.hawkular.agent.prometheus.types.MetricFamily;
import org.hawkular.agent.prometheus.types.MetricType;

/**
 * Reads the HTTP endpoints as an operator's tools do: plain HTTP/1.1 GETs over a socket, the
 * {@code /metrics} text parsed by a Prometheus text-format parser (Hawkular's), the {@code /health}
 * body by a JSON parser.
 * Threading: one test thread.
 */
public final class HttpProbe {

    private static final ObjectMapper JSON = new ObjectMapper();

    private HttpProbe() {
    }

    /** One HTTP answer: status, headers (lower-case names) and body. Threading: immutable. */
    public record Answer(int status, Map<String, String> headers, String body) {

        /** The body read as JSON. */
        public JsonNode json() throws IOException {
            return JSON.readTree(body);
        }
    }

    /** {@code GET url}. */
    public static Answer get(URI url) throws IOException {
        return request(url, "GET", Map.of());
    }

    /**
     * One request with {@code Connection: close}, its answer read to the end (the server closes
     * after answering). Reads time out after 30 s.
     */
    public static Answer request(URI url, String method, Map<String, String> headers) throws IOException {
        try (Socket s = new Socket(url.getHost(), url.getPort())) {
            s.setSoTimeout((int) Duration.ofSeconds(30).toMillis());
            StringBuilder req = new StringBuilder();
            req.append(method).append(' ').append(url.getRawPath())
                    .append(url.getRawQuery() != null ? "?" + url.getRawQuery() : "").append(" HTTP/1.1\r\n")
                    .append("Host: ").append(url.getHost()).append(':').append(url.getPort()).append("\r\n")
                    .append("Connection: close\r\n");
            headers.forEach((k, v) -> req.append(k).append(": ").append(v).append("\r\n"));
            req.append("\r\n");
            OutputStream out = s.getOutputStream();
            out.write(req.toString().getBytes(StandardCharsets.ISO_8859_1));
            out.flush();
            InputStream in = s.getInputStream();
            String all = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            int end = all.indexOf("\r\n\r\n");
            if (end < 0) {
                throw new IOException("no whole HTTP answer: " + all);
            }
            String[] lines = all.substring(0, end).split("\r\n");
            int status = Integer.parseInt(lines[0].split(" ")[1]);
            Map<String, String> h = new TreeMap<>();
            for (int i = 1; i < lines.length; i++) {
                int colon = lines[i].indexOf(':');
                h.put(lines[i].substring(0, colon).trim().toLowerCase(java.util.Locale.ROOT),
                        lines[i].substring(colon + 1).trim());
            }
            String body = all.substring(end + 4);
            if (h.containsKey("transfer-encoding")) {
                body = unchunk(body);
            }
            return new Answer(status, h, body);
        }
    }

    private static String unchunk(String chunked) {
        StringBuilder sb = new StringBuilder();
        int at = 0;
        while (true) {
            int eol = chunked.indexOf("\r\n", at);
            int size = Integer.parseInt(chunked.substring(at, eol).split(";")[0].trim(), 16);
            if (size == 0) {
                return sb.toString();
            }
            // sizes count bytes; the bodies here are ASCII
            sb.append(chunked, eol + 2, eol + 2 + size);
            at = eol + 2 + size + 2;
        }
    }

    /**
     * The samples of a Prometheus text exposition, parsed by the parser library: counters and gauges
     * by {@code name{label=value,...}} (labels sorted), summaries and histograms by their name's
     * {@code _count}. The families' types are put under {@code types}. The library skips lines it
     * cannot read (it logs them at debug level), so every sample line of the text is checked to
     * have become part of a parsed sample: a count of lines against the parsed samples, quantiles
     * and buckets, no pattern matching of the text.
     *
     * @throws IOException when the text is not in the exposition format
     */
    public static Map<String, Double> samples(String exposition, Map<String, MetricType> types) throws IOException {
        Map<String, Double> out = new TreeMap<>();
        TextPrometheusMetricDataParser parser = new TextPrometheusMetricDataParser(
                new ByteArrayInputStream(exposition.getBytes(StandardCharsets.UTF_8)));
        long parsedLines = 0;
        MetricFamily family;
        while ((family = parser.parse()) != null) {
            types.put(family.getName(), family.getType());
            for (Metric m : family.getMetrics()) {
                double value;
                String name = m.getName();
                if (m instanceof Counter c) {
                    value = c.getValue();
                    parsedLines++;
                } else if (m instanceof Gauge g) {
                    value = g.getValue();
                    parsedLines++;
                } else if (m instanceof org.hawkular.agent.prometheus.types.Summary s) {
                    value = s.getSampleCount();
                    name = name + "_count";
                    parsedLines += s.getQuantiles().size() + 2;
                } else if (m instanceof org.hawkular.agent.prometheus.types.Histogram hi) {
                    value = hi.getSampleCount();
                    name = name + "_count";
                    parsedLines += hi.getBuckets().size() + 2;
                } else {
                    throw new IOException("unexpected metric " + m);
                }
                String series = name + new TreeMap<>(m.getLabels()).toString().replace(", ", ",");
                if (out.put(series, value) != null) {
                    throw new IOException("series given twice: " + series);
                }
            }
        }
        long sampleLines = exposition.lines().map(String::trim).filter(l -> !l.isEmpty() && !l.startsWith("#"))
                .count();
        if (sampleLines != parsedLines) {
            throw new IOException(sampleLines + " sample lines but " + parsedLines + " parsed: the parser skipped"
                    + " some as not in the exposition format");
        }
        return out;
    }
}
