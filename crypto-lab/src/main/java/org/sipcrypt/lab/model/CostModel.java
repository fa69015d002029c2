package org.sipcrypt.lab.model;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.StringJoiner;
import org.sipcrypt.lab.model.ComponentCost.Kind;
import org.sipcrypt.lab.runner.PeakSearch;
import org.sipcrypt.lab.runner.PointRun;
import org.sipcrypt.lab.runner.Study;

/**
 * The component cost model: fits what each component of SIP over TLS costs the server in CPU per
 * call from differences between the presets (chain: bulk encryption only; outbound: plus a server
 * handshake per call; inbound: plus a client handshake per call; optional outbound-mutual,
 * outbound-no-reuse and chain-auth), then predicts the CPU per call of every study it has a model
 * for as the sum of its components (local = chain + server side + client side), and its peak
 * throughput as K / CPU per call, where K, the CPU time the machine spends per second at peak, is
 * calibrated as the median of peak × CPU per call over the fitted chain, outbound and inbound points.
 *
 * <p>CPU per call of a point is the mean over valid repetitions of the fixed-rate runs that measured
 * the server's CPU; measured peaks are the mean over ramps not cut short by a saturated generator.
 * Several studies of one scenario are pooled: their repetitions and ramps average together (the
 * user chooses which studies to report together). A component or prediction whose
 * inputs are missing is absent and a note says which study or point is missing: nothing is estimated
 * in its place.
 * Threading: thread-safe: each {@link #fit} works on state of its own.
 */
public final class CostModel {

    /** Persistent connections on both legs: bulk encryption only. */
    public static final String CHAIN = "chain";
    /** Per-call connections on the left leg, where the proxy is the TLS server. */
    public static final String OUTBOUND = "outbound";
    /** Per-call connections on the right leg, where the proxy is the TLS client. */
    public static final String INBOUND = "inbound";
    /** Per-call connections on both legs. */
    public static final String LOCAL = "local";
    /** Several generators at once; costs as chain per call. */
    public static final String MULTI_TO_ONE = "multi-to-one";
    /** Outbound with client certificates. */
    public static final String OUTBOUND_MUTUAL = "outbound-mutual";
    /** Outbound without session resumption. */
    public static final String OUTBOUND_NO_REUSE = "outbound-no-reuse";
    /** Chain with digest authentication of each call. */
    public static final String CHAIN_AUTH = "chain-auth";

    private static final String UDP = "udp";
    private static final String TCP = "tcp";
    private static final String SATURATED_GENERATOR = "saturated generator";
    private static final List<String> CALIBRATION = List.of(CHAIN, OUTBOUND, INBOUND);

    private final Map<String, Study> studies = new LinkedHashMap<>();
    private final Map<String, ComponentCost> components = new LinkedHashMap<>();
    private final Set<String> fitted = new LinkedHashSet<>();
    private final Set<String> notes = new LinkedHashSet<>();

    private CostModel(List<Study> input) {
        Map<String, List<Study>> byScenario = new LinkedHashMap<>();
        for (Study s : input) {
            byScenario.computeIfAbsent(s.scenario(), k -> new ArrayList<>()).add(s);
        }
        byScenario.forEach((scenario, list) -> {
            if (list.size() > 1) {
                notes.add(list.size() + " studies of '" + scenario + "' pooled (#" + String.join(", #",
                        list.stream().map(s -> Long.toString(s.id())).toList())
                        + "): their repetitions and ramps are averaged together");
            }
            studies.put(scenario, pooled(list));
        });
    }

    /** One study holding the points and ramps of several of the same scenario (the first's settings). */
    private static Study pooled(List<Study> list) {
        if (list.size() == 1) {
            return list.get(0);
        }
        Study first = list.get(0);
        Set<String> ciphers = new LinkedHashSet<>();
        List<PointRun> fixed = new ArrayList<>();
        List<PeakSearch> peaks = new ArrayList<>();
        for (Study s : list) {
            ciphers.addAll(s.ciphers());
            fixed.addAll(s.fixed());
            peaks.addAll(s.peaks());
        }
        return new Study(first.id(), first.scenario(), first.scenarioText(), List.copyOf(ciphers), first.started(),
                first.environment(), fixed, peaks);
    }

    /** Fits the components from the studies given and predicts what it can. */
    public static Result fit(List<Study> studies) {
        CostModel m = new CostModel(Objects.requireNonNull(studies, "studies"));
        m.fitComponents();
        double k = m.calibrate();
        List<ComponentCost> components = new ArrayList<>(m.components.values());
        components.sort(Comparator.comparing(ComponentCost::kind));
        return new Result(components, k, m.predict(k), List.copyOf(m.fitted), List.copyOf(m.notes));
    }

    private void fitComponents() {
        fit(Kind.UDP_BASE, null, plus(CHAIN, UDP));
        fit(Kind.TCP_INCREMENT, null, plus(CHAIN, TCP), minus(CHAIN, UDP));
        fit(Kind.SERVER_CONNECT, null, plus(OUTBOUND, TCP), minus(CHAIN, TCP));
        fit(Kind.CLIENT_CONNECT, null, plus(INBOUND, TCP), minus(CHAIN, TCP));
        for (String c : tlsCiphers(CHAIN, OUTBOUND, INBOUND)) {
            fit(Kind.BULK, c, plus(CHAIN, c), minus(CHAIN, TCP));
            fit(Kind.SERVER_HANDSHAKE, c, plus(OUTBOUND, c), minus(CHAIN, c), minus(OUTBOUND, TCP), plus(CHAIN, TCP));
            fit(Kind.CLIENT_HANDSHAKE, c, plus(INBOUND, c), minus(CHAIN, c), minus(INBOUND, TCP), plus(CHAIN, TCP));
        }
        optional(OUTBOUND_MUTUAL, Kind.MUTUAL_INCREMENT);
        optional(OUTBOUND_NO_REUSE, Kind.REUSE_SAVING);
        fitDigestAuth();
    }

    private void optional(String scenario, Kind kind) {
        if (!studies.containsKey(scenario)) {
            notes.add(kind.label() + " not fitted: no study '" + scenario + "'");
            return;
        }
        for (String c : tlsCiphers(scenario)) {
            fit(kind, c, plus(scenario, c), minus(OUTBOUND, c));
        }
    }

    private void fitDigestAuth() {
        if (!studies.containsKey(CHAIN_AUTH)) {
            notes.add(Kind.DIGEST_AUTH.label() + " not fitted: no study '" + CHAIN_AUTH + "'");
            return;
        }
        double sum = 0;
        int n = 0;
        StringJoiner used = new StringJoiner(", ");
        for (String c : ciphers(studies.get(CHAIN_AUTH))) {
            double withAuth = cpu(CHAIN_AUTH, c);
            double without = cpu(CHAIN, c);
            if (!Double.isNaN(withAuth) && !Double.isNaN(without)) {
                sum += withAuth - without;
                n++;
                used.add(c);
            }
        }
        if (n == 0) {
            notes.add(Kind.DIGEST_AUTH.label() + " not fitted: '" + CHAIN_AUTH + "' and '" + CHAIN
                    + "' share no cipher with the server's CPU measured");
            return;
        }
        components.put(key(Kind.DIGEST_AUTH, null), new ComponentCost(Kind.DIGEST_AUTH, null, sum / n,
                "mean over " + used + " of cpu(chain-auth, x) − cpu(chain, x)"));
        fitted.add(CHAIN_AUTH);
        fitted.add(CHAIN);
    }

    private void fit(Kind kind, String cipher, Ref... refs) {
        double value = 0;
        StringBuilder derivation = new StringBuilder();
        for (Ref r : refs) {
            double v = cpu(r.scenario, r.cipher);
            if (Double.isNaN(v)) {
                notes.add(kind.label() + (cipher != null ? " (" + cipher + ")" : "") + " not fitted: "
                        + missing(r.scenario, r.cipher));
                return;
            }
            value += r.sign * v;
            derivation.append(derivation.length() == 0 ? (r.sign < 0 ? "−" : "") : (r.sign < 0 ? " − " : " + "))
                    .append("cpu(").append(r.scenario).append(", ").append(r.cipher).append(')');
        }
        components.put(key(kind, cipher), new ComponentCost(kind, cipher, value, derivation.toString()));
        for (Ref r : refs) {
            fitted.add(r.scenario);
        }
    }

    /** K: the median of measured peak × CPU per call over the calibration scenarios' points. */
    private double calibrate() {
        List<Double> products = new ArrayList<>();
        for (String s : CALIBRATION) {
            if (studies.containsKey(s)) {
                for (String c : ciphers(studies.get(s))) {
                    double product = peak(s, c) * cpu(s, c);
                    if (!Double.isNaN(product)) {
                        products.add(product);
                    }
                }
            }
        }
        if (products.isEmpty()) {
            notes.add("peak throughput not predicted: no point of chain, outbound or inbound has both a ramp and"
                    + " a fixed-rate run with the server's CPU measured");
            return Double.NaN;
        }
        products.sort(Comparator.naturalOrder());
        int n = products.size();
        return n % 2 == 1 ? products.get(n / 2) : (products.get(n / 2 - 1) + products.get(n / 2)) / 2;
    }

    private List<Prediction> predict(double k) {
        List<Prediction> out = new ArrayList<>();
        Map<String, List<String>> targets = new LinkedHashMap<>();
        studies.forEach((name, s) -> targets.put(name, ciphers(s)));
        if (!studies.containsKey(LOCAL) && studies.containsKey(CHAIN)) {
            notes.add("no study '" + LOCAL + "': local is predicted without a measurement to compare with");
            targets.put(LOCAL, ciphers(studies.get(CHAIN)));
        }
        for (Map.Entry<String, List<String>> t : targets.entrySet()) {
            String scenario = t.getKey();
            Optional<Shape> shape = Shape.of(scenario);
            if (shape.isEmpty()) {
                notes.add("no prediction for '" + scenario + "': the model has no components for it");
                continue;
            }
            for (String c : t.getValue()) {
                List<String> why = new ArrayList<>();
                double cpu = predictCpu(shape.get(), c, why);
                if (!why.isEmpty()) {
                    notes.add("no prediction for " + scenario + " " + c + ": " + why.get(0) + " unknown");
                    continue;
                }
                out.add(new Prediction(scenario, c, fitted.contains(scenario), cpu, cpu(scenario, c),
                        Double.isNaN(k) ? Double.NaN : k / cpu, peak(scenario, c)));
            }
        }
        return out;
    }
    private double predictCpu(Shape shape, String cipher, List<String> why) {
        boolean udp = UDP.equals(cipher);
        boolean tls = !udp && !TCP.equals(cipher);
        double sum = term(Kind.UDP_BASE, null, why);
        if (!udp) {
            sum += term(Kind.TCP_INCREMENT, null, why);
            sum += tls ? term(Kind.BULK, cipher, why) : 0;
            if (shape.server) {
                sum += term(Kind.SERVER_CONNECT, null, why) + (tls ? term(Kind.SERVER_HANDSHAKE, cipher, why) : 0);
            }
            if (shape.client) {
                sum += term(Kind.CLIENT_CONNECT, null, why) + (tls ? term(Kind.CLIENT_HANDSHAKE, cipher, why) : 0);
            }
            sum += shape.mutual && tls ? term(Kind.MUTUAL_INCREMENT, cipher, why) : 0;
            sum += shape.noReuse && tls ? term(Kind.REUSE_SAVING, cipher, why) : 0;
        }
        sum += shape.auth ? term(Kind.DIGEST_AUTH, null, why) : 0;
        return sum;
    }

    private double term(Kind kind, String cipher, List<String> why) {
        ComponentCost c = components.get(key(kind, cipher));
        if (c == null) {
            why.add(kind.label() + (cipher != null ? " (" + cipher + ")" : ""));
            return 0;
        }
        return c.cpuMicrosPerCall();
    }

    /** Mean CPU µs per call over valid fixed-rate repetitions that measured it, NaN without any. */
    private double cpu(String scenario, String cipher) {
        Study s = studies.get(scenario);
        return s == null ? Double.NaN : s.fixed().stream()
                .filter(p -> p.cipher().equals(cipher) && "fixed".equals(p.mode()) && p.invalid() == null
                        && p.server().cpuMicrosPerCall() >= 0)
                .mapToDouble(p -> p.server().cpuMicrosPerCall()).average().orElse(Double.NaN);
    }

    /** Mean peak over ramps not cut short by a saturated generator, NaN without any. */
    private double peak(String scenario, String cipher) {
        Study s = studies.get(scenario);
        return s == null ? Double.NaN : s.peaks().stream()
                .filter(r -> r.cipher().equals(cipher) && !SATURATED_GENERATOR.equals(r.stoppedBy()))
                .mapToDouble(PeakSearch::peakRate).average().orElse(Double.NaN);
    }

    private String missing(String scenario, String cipher) {
        return studies.containsKey(scenario) ? "study '" + scenario + "' has no valid " + cipher
                + " point with the server's CPU measured" : "no study '" + scenario + "'";
    }

    private List<String> tlsCiphers(String... scenarios) {
        Set<String> out = new LinkedHashSet<>();
        for (String s : scenarios) {
            if (studies.containsKey(s)) {
                for (String c : ciphers(studies.get(s))) {
                    if (!UDP.equals(c) && !TCP.equals(c)) {
                        out.add(c);
                    }
                }
            }
        }
        return List.copyOf(out);
    }

    /** The study's ciphers in order, then any its points name that the list does not. */
    private static List<String> ciphers(Study s) {
        Set<String> out = new LinkedHashSet<>(s.ciphers());
        s.fixed().forEach(p -> out.add(p.cipher()));
        s.peaks().forEach(r -> out.add(r.cipher()));
        return List.copyOf(out);
    }

    private static String key(Kind kind, String cipher) {
        return kind + "/" + cipher;
    }

    private static Ref plus(String scenario, String cipher) {
        return new Ref(1, scenario, cipher);
    }

    private static Ref minus(String scenario, String cipher) {
        return new Ref(-1, scenario, cipher);
    }

    private record Ref(int sign, String scenario, String cipher) {
    }

    /** Which components a scenario's calls pay, read from its name: a preset and optional suffixes. */
    private record Shape(boolean server, boolean client, boolean mutual, boolean noReuse, boolean auth) {

        static Optional<Shape> of(String scenario) {
            String base = List.of(MULTI_TO_ONE, CHAIN, OUTBOUND, INBOUND, LOCAL).stream()
                    .filter(scenario::startsWith).findFirst().orElse(null);
            if (base == null) {
                return Optional.empty();
            }
            boolean mutual = false;
            boolean noReuse = false;
            boolean auth = false;
            String rest = scenario.substring(base.length());
            while (!rest.isEmpty()) {
                if (rest.startsWith("-mutual")) {
                    mutual = true;
                    rest = rest.substring("-mutual".length());
                } else if (rest.startsWith("-no-reuse")) {
                    noReuse = true;
                    rest = rest.substring("-no-reuse".length());
                } else if (rest.startsWith("-auth")) {
                    auth = true;
                    rest = rest.substring("-auth".length());
                } else {
                    return Optional.empty();
                }
            }
            boolean server = base.equals(OUTBOUND) || base.equals(LOCAL);
            // mutual authentication and reuse were fitted on the server side of outbound; the client
            // side's share of them is not measured, so only scenarios without it are modelled
            if ((mutual && !server) || (noReuse && !base.equals(OUTBOUND))) {
                return Optional.empty();
            }
            return Optional.of(new Shape(server, base.equals(INBOUND) || base.equals(LOCAL), mutual, noReuse, auth));
        }
    }

    /**
     * The fitted components, the calibration, the predictions and what could not be done.
     * Threading: immutable.
     *
     * @param components             the components fitted, by kind, ciphers in study order
     * @param peakCpuMicrosPerSecond K: server CPU µs spent per second at peak, NaN when uncalibrated
     * @param predictions            per scenario and cipher, in study order
     * @param fittedScenarios        the scenarios components were fitted from
     * @param notes                  each missing input and what it left out
     */
    public record Result(List<ComponentCost> components, double peakCpuMicrosPerSecond, List<Prediction> predictions,
                         List<String> fittedScenarios, List<String> notes) {

        public Result {
            components = List.copyOf(components);
            predictions = List.copyOf(predictions);
            fittedScenarios = List.copyOf(fittedScenarios);
            notes = List.copyOf(notes);
        }

        /** A component, if it was fitted ({@code cipher} null for those that do not depend on it). */
        public Optional<ComponentCost> component(Kind kind, String cipher) {
            return components.stream().filter(c -> c.kind() == kind && Objects.equals(c.cipher(), cipher)).findFirst();
        }

        /** The prediction of a scenario and cipher, if there is one. */
        public Optional<Prediction> prediction(String scenario, String cipher) {
            return predictions.stream().filter(p -> p.scenario().equals(scenario) && p.cipher().equals(cipher))
                    .findFirst();
        }

        /** Predictions of scenarios not used to fit (measured or not). */
        public List<Prediction> heldOut() {
            return predictions.stream().filter(p -> !p.fitted()).toList();
        }

        /** Mean absolute peak error in % over held-out predictions, NaN without any measured. */
        public double heldOutPeakErrorPct() {
            return meanAbs(heldOut().stream().mapToDouble(Prediction::peakErrorPct).toArray());
        }

        /** Mean absolute CPU-per-call error in % over held-out predictions, NaN without any measured. */
        public double heldOutCpuErrorPct() {
            return meanAbs(heldOut().stream().mapToDouble(Prediction::cpuErrorPct).toArray());
        }

        private static double meanAbs(double[] errors) {
            double sum = 0;
            int n = 0;
            for (double e : errors) {
                if (!Double.isNaN(e)) {
                    sum += Math.abs(e);
                    n++;
                }
            }
            return n == 0 ? Double.NaN : sum / n;
        }
    }
}
