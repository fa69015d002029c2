package org.sipcrypt.lab.runner;

import java.io.IOException;
import java.util.Collection;
import java.util.List;
import java.util.TreeSet;
import org.sipcrypt.server.http.ServerMetrics;

/**
 * The TLS engines the server under test made its handshakes on: for sipcrypt, those its counter
 * {@code tls.handshakes{engine}} holds (read from its {@code /metrics} as
 * {@code sipcrypt_tls_handshakes_total{engine="openssl",...} 12}), for Kamailio its tls module on
 * OpenSSL ({@link #KAMAILIO}). A point keeps them as a sorted list of names
 * ({@link ServerSample#tlsEngines()}); one name is one engine, more than one a mixed point.
 * Threading: immutable (static functions only).
 */
public final class ServerTlsEngines {

    /** The name of Kamailio's TLS (its tls module on OpenSSL 3, {@link KamailioTls}) among the engines. */
    public static final String KAMAILIO = "kamailio-openssl";

    /** The family of {@code tls.handshakes} in the Prometheus text format. */
    static final String FAMILY = ServerMetrics.PREFIX + "tls_handshakes_total";

    private ServerTlsEngines() {
    }

    /**
     * The engines of every {@value #FAMILY} sample above 0 in a Prometheus text exposition (format
     * 0.0.4), sorted; empty when the server counted no handshake. Reads that family's lines exactly
     * and declines the text otherwise.
     *
     * @throws IOException a line of the family that is not {@code NAME{LABELS} VALUE [TIMESTAMP]}, or
     *                     a sample without an {@code engine} label (a server that does not count it)
     */
    public static List<String> fromMetrics(String exposition) throws IOException {
        TreeSet<String> engines = new TreeSet<>();
        for (String line : exposition.split("\n", -1)) {
            if (!line.startsWith(FAMILY + "{") && !line.startsWith(FAMILY + " ")) {
                continue;
            }
            Sample s = sample(line);
            if (s.engine() == null) {
                throw new IOException("no engine label on " + FAMILY + " (a server that does not count it): " + line);
            }
            if (s.value() > 0) {
                engines.add(s.engine());
            }
        }
        return List.copyOf(engines);
    }

    /** The engines of several points taken together: every name once, sorted. */
    public static List<String> union(Collection<List<String>> engines) {
        TreeSet<String> all = new TreeSet<>();
        engines.forEach(all::addAll);
        return List.copyOf(all);
    }

    /** The names joined by {@code +} ({@code bc+jsse}), as {@code results.csv} writes them; empty for none. */
    public static String joined(List<String> engines) {
        return String.join("+", new TreeSet<>(engines));
    }

    /** One sample line of the family: its {@code engine} label (null without one) and its value. */
    private record Sample(String engine, double value) {
    }

    /**
     * {@code NAME{k="v",...} VALUE [TIMESTAMP]}, label values with {@code \\}, {@code \"} and
     * {@code \n} escaped, a trailing comma allowed (the text format 0.0.4).
     */
    private static Sample sample(String line) throws IOException {
        int i = FAMILY.length();
        String engine = null;
        if (line.charAt(i) == '{') {
            i++;
            while (true) {
                if (i < line.length() && line.charAt(i) == '}') {
                    i++;
                    break;
                }
                int eq = line.indexOf('=', i);
                if (eq < 0 || eq + 1 >= line.length() || line.charAt(eq + 1) != '"') {
                    throw new IOException("not a label at " + i + ": " + line);
                }
                String key = line.substring(i, eq).strip();
                StringBuilder value = new StringBuilder();
                int j = eq + 2;
                for (; j < line.length() && line.charAt(j) != '"'; j++) {
                    char c = line.charAt(j);
                    if (c == '\\') {
                        if (++j >= line.length()) {
                            break;
                        }
                        char e = line.charAt(j);
                        if (e != '\\' && e != '"' && e != 'n') {
                            throw new IOException("bad escape \\" + e + " at " + j + ": " + line);
                        }
                        value.append(e == 'n' ? '\n' : e);
                    } else {
                        value.append(c);
                    }
                }
                if (j >= line.length()) {
                    throw new IOException("unterminated label value: " + line);
                }
                if (key.equals("engine")) {
                    engine = value.toString();
                }
                i = j + 1;
                if (i < line.length() && line.charAt(i) == ',') {
                    i++;
                } else if (i >= line.length() || line.charAt(i) != '}') {
                    throw new IOException("no ',' or '}' after a label at " + i + ": " + line);
                }
            }
        }
        String[] rest = line.substring(i).strip().split(" +");
        if (rest.length < 1 || rest.length > 2 || rest[0].isEmpty()) {
            throw new IOException("not VALUE [TIMESTAMP]: " + line);
        }
        try {
            return new Sample(engine, Double.parseDouble(rest[0]));
        } catch (NumberFormatException e) {
            throw new IOException("not a number: " + rest[0] + " in " + line, e);
        }
    }
}
