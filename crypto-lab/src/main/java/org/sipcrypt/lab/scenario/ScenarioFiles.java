package org.sipcrypt.lab.scenario;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.sipcrypt.server.transport.ConnectionPattern;
import org.sipcrypt.server.transport.Transport;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;
import org.yaml.snakeyaml.error.YAMLException;

/**
 * Reads scenario files (YAML, format in {@code scenarios/README.md}) and writes a scenario back as
 * YAML, the form stored with every study. A name without a path is a preset: a file of that name
 * under {@code scenarios/lab/} of the working directory, else the copy bundled in the lab's jar.
 * Unknown keys and bad values are refused with the key's full name.
 * Threading: thread-safe (stateless).
 */
public final class ScenarioFiles {

    /** The presets bundled in the jar, in the order {@code list} shows them. */
    public static final List<String> PRESETS = List.of("chain", "outbound", "inbound", "local", "multi-to-one",
            "tls-left", "tls-right", "outbound-mutual", "outbound-no-reuse", "chain-auth", "register", "register-auth",
            "refresh", "unregister", "invite-not-found", "redirect", "handshakes");

    private static final Set<String> TOP = Set.of("name", "description", "workload", "auth", "users", "left", "right",
            "load", "repeat", "generators", "ciphers", "server", "serverJvm", "handshakes", "idleConnections");
    private static final Set<String> LEG = Set.of("transport", "connection", "sessionReuse", "clientCertificates");
    private static final Set<String> LOAD = Set.of("rate", "duration", "warmup", "hold", "callTimeout", "maxFailedPct",
            "ramp");
    private static final Set<String> RAMP = Set.of("start", "step", "stepLength", "max", "refine", "budget");
    private static final List<String> ALL_CIPHERS = List.of("udp", "tcp", "aes", "3des", "camellia", "seed", "rc4");

    private ScenarioFiles() {
    }

    /**
     * A scenario by preset name or file path.
     *
     * @throws IOException              the file cannot be read, or no such preset
     * @throws IllegalArgumentException the content is not a valid scenario (the message names the key)
     */
    public static Scenario load(String nameOrPath) throws IOException {
        Path p = Path.of(nameOrPath);
        if (Files.isRegularFile(p)) {
            return parse(Files.readString(p, StandardCharsets.UTF_8), stem(p));
        }
        Path local = Path.of("scenarios", "lab", nameOrPath + ".yaml");
        if (!nameOrPath.contains("/") && Files.isRegularFile(local)) {
            return parse(Files.readString(local, StandardCharsets.UTF_8), nameOrPath);
        }
        try (InputStream in = ScenarioFiles.class.getResourceAsStream("/scenarios/" + nameOrPath + ".yaml")) {
            if (in == null || nameOrPath.contains("/")) {
                throw new IOException("no scenario \"" + nameOrPath + "\": not a file, and not a preset ("
                        + String.join(", ", PRESETS) + ")");
            }
            return parse(new String(in.readAllBytes(), StandardCharsets.UTF_8), nameOrPath);
        }
    }

    private static String stem(Path p) {
        String f = p.getFileName().toString();
        int dot = f.lastIndexOf('.');
        return dot > 0 ? f.substring(0, dot) : f;
    }

    /** Parses YAML text; {@code defaultName} names a scenario without a {@code name} key. */
    public static Scenario parse(String yaml, String defaultName) {
        Object root;
        try {
            root = new Yaml(new SafeConstructor(new LoaderOptions())).load(yaml);
        } catch (YAMLException e) {
            throw new IllegalArgumentException("not YAML: " + e.getMessage(), e);
        }
        Map<String, Object> m = map("(top level)", root == null ? Map.of() : root, TOP);
        String name = str(m, "name", defaultName);
        Leg left = leg("left", m.get("left"));
        Leg right = leg("right", m.get("right"));
        Map<String, Object> load = map("load", m.getOrDefault("load", Map.of()), LOAD);
        Map<String, Object> ramp = map("load.ramp", load.getOrDefault("ramp", Map.of()), RAMP);
        LoadProfile.Ramp r = new LoadProfile.Ramp(num(ramp, "load.ramp.start", "start", 100),
                num(ramp, "load.ramp.step", "step", 100), secs(ramp, "load.ramp.stepLength", "stepLength", 10),
                num(ramp, "load.ramp.max", "max", 20_000), (int) num(ramp, "load.ramp.refine", "refine", 2),
                secs(ramp, "load.ramp.budget", "budget", 900));
        LoadProfile lp = new LoadProfile(num(load, "load.rate", "rate", 100), secs(load, "load.duration", "duration", 20),
                secs(load, "load.warmup", "warmup", 10), secs(load, "load.hold", "hold", 0),
                secs(load, "load.callTimeout", "callTimeout", 5), num(load, "load.maxFailedPct", "maxFailedPct", 1), r);
        Map<String, String> server = new LinkedHashMap<>();
        Object s = m.getOrDefault("server", Map.of());
        if (!(s instanceof Map<?, ?> sm)) {
            throw new IllegalArgumentException("server: expected a map of server settings");
        }
        sm.forEach((k, v) -> server.put(String.valueOf(k), String.valueOf(v)));
        return new Scenario(name, str(m, "description", ""), str(m, "workload", "call"), bool(m, "auth", "auth", false),
                (int) num(m, "users", "users", 100), left, right, lp, (int) num(m, "repeat", "repeat", 3),
                (int) num(m, "generators", "generators", 1), list(m, "ciphers", ALL_CIPHERS), server,
                list(m, "serverJvm", Scenario.LAB_SERVER_JVM), list(m, "handshakes", List.of()),
                (int) num(m, "idleConnections", "idleConnections", 0));
    }

    private static Leg leg(String key, Object v) {
        Map<String, Object> m = map(key, v == null ? Map.of() : v, LEG);
        Transport t;
        ConnectionPattern c;
        try {
            t = Leg.labTransport(str(m, "transport", "tls").toLowerCase(Locale.ROOT));
            c = ConnectionPattern.parse(str(m, "connection", "persistent"));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(key + ": " + e.getMessage(), e);
        }
        return new Leg(t, c, bool(m, key + ".sessionReuse", "sessionReuse", true),
                bool(m, key + ".clientCertificates", "clientCertificates", false));
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> map(String key, Object v, Set<String> allowed) {
        if (!(v instanceof Map<?, ?> raw)) {
            throw new IllegalArgumentException(key + ": expected a map");
        }
        for (Object k : raw.keySet()) {
            if (!allowed.contains(String.valueOf(k))) {
                String where = key.equals("(top level)") ? "" : key + ".";
                throw new IllegalArgumentException(where + k + ": unknown key (expected one of "
                        + String.join(", ", allowed.stream().sorted().toList()) + ")");
            }
        }
        return (Map<String, Object>) raw;
    }

    private static String str(Map<String, Object> m, String key, String dflt) {
        Object v = m.get(key);
        return v == null ? dflt : String.valueOf(v).trim();
    }

    private static double num(Map<String, Object> m, String full, String key, double dflt) {
        Object v = m.get(key);
        if (v == null) {
            return dflt;
        }
        if (v instanceof Number n) {
            return n.doubleValue();
        }
        throw new IllegalArgumentException(full + ": \"" + v + "\" (expected a number)");
    }

    private static Duration secs(Map<String, Object> m, String full, String key, double dflt) {
        double s = num(m, full, key, dflt);
        if (Double.isNaN(s) || s < 0 || s > 86_400) {
            throw new IllegalArgumentException(full + ": " + s + " (expected 0 to 86400 seconds)");
        }
        return Duration.ofMillis(Math.round(s * 1000));
    }

    private static boolean bool(Map<String, Object> m, String full, String key, boolean dflt) {
        Object v = m.get(key);
        if (v == null) {
            return dflt;
        }
        if (v instanceof Boolean b) {
            return b;
        }
        throw new IllegalArgumentException(full + ": \"" + v + "\" (expected true or false)");
    }

    private static List<String> list(Map<String, Object> m, String key, List<String> dflt) {
        Object v = m.get(key);
        if (v == null) {
            return dflt;
        }
        List<String> out = new ArrayList<>();
        if (v instanceof List<?> l) {
            l.forEach(x -> out.add(String.valueOf(x).trim()));
        } else {
            for (String x : String.valueOf(v).split(",")) {
                out.add(x.trim());
            }
        }
        return out;
    }

    /** The scenario as YAML in this file format (what a study stores). */
    public static String toYaml(Scenario s) {
        StringBuilder b = new StringBuilder();
        b.append("name: ").append(quote(s.name())).append('\n');
        b.append("description: ").append(quote(s.description())).append('\n');
        b.append("workload: ").append(s.workload()).append('\n');
        b.append("auth: ").append(s.auth()).append('\n');
        b.append("users: ").append(s.users()).append('\n');
        leg(b, "left", s.left());
        leg(b, "right", s.right());
        LoadProfile l = s.load();
        b.append("load:\n");
        b.append("  rate: ").append(fmt(l.rate())).append('\n');
        b.append("  duration: ").append(fmt(l.duration())).append('\n');
        b.append("  warmup: ").append(fmt(l.warmup())).append('\n');
        b.append("  hold: ").append(fmt(l.hold())).append('\n');
        b.append("  callTimeout: ").append(fmt(l.callTimeout())).append('\n');
        b.append("  maxFailedPct: ").append(fmt(l.maxFailedPct())).append('\n');
        LoadProfile.Ramp r = l.ramp();
        b.append("  ramp: {start: ").append(fmt(r.start())).append(", step: ").append(fmt(r.step()))
                .append(", stepLength: ").append(fmt(r.stepLength())).append(", max: ").append(fmt(r.max()))
                .append(", refine: ").append(r.refine()).append(", budget: ").append(fmt(r.budget())).append("}\n");
        b.append("repeat: ").append(s.repeat()).append('\n');
        b.append("generators: ").append(s.generators()).append('\n');
        b.append("ciphers: [").append(String.join(", ", s.ciphers())).append("]\n");
        b.append("server:");
        if (s.server().isEmpty()) {
            b.append(" {}\n");
        } else {
            b.append('\n');
            new java.util.TreeMap<>(s.server()).forEach((k, v) -> b.append("  ").append(k).append(": ").append(quote(v))
                    .append('\n'));
        }
        if (!s.handshakes().isEmpty()) {
            b.append("handshakes: [").append(String.join(", ", s.handshakes())).append("]\n");
        }
        if (s.idleConnections() > 0) {
            b.append("idleConnections: ").append(s.idleConnections()).append('\n');
        }
        b.append("serverJvm: [");
        for (int i = 0; i < s.serverJvm().size(); i++) {
            b.append(i == 0 ? "" : ", ").append(quote(s.serverJvm().get(i)));
        }
        return b.append("]\n").toString();
    }

    private static void leg(StringBuilder b, String key, Leg leg) {
        b.append(key).append(": {transport: ").append(leg.transport().configName()).append(", connection: ")
                .append(leg.connection().configName()).append(", sessionReuse: ").append(leg.sessionReuse())
                .append(", clientCertificates: ").append(leg.clientCertificates()).append("}\n");
    }

    private static String fmt(Duration d) {
        return fmt(d.toMillis() / 1000.0);
    }

    private static String fmt(double v) {
        return v == Math.rint(v) ? Long.toString((long) v) : String.format(Locale.ROOT, "%s", v);
    }

    private static String quote(String v) {
        return "\"" + v.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
    }
}
