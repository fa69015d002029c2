package org.sipcrypt.lab.runner;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import org.sipcrypt.lab.loadgen.Credential;
import org.sipcrypt.lab.loadgen.CredentialFiles;
import org.sipcrypt.lab.loadgen.LegConnector;
import org.sipcrypt.lab.loadgen.TlsOptions;
import org.sipcrypt.lab.loadgen.Uac;
import org.sipcrypt.lab.loadgen.UacOptions;
import org.sipcrypt.lab.loadgen.Workload;
import org.sipcrypt.lab.metrics.ListenOverflows;
import org.sipcrypt.lab.metrics.ProcessCpu;
import org.sipcrypt.lab.metrics.RunSummary;
import org.sipcrypt.lab.scenario.Leg;
import org.sipcrypt.lab.scenario.LoadProfile;
import org.sipcrypt.lab.scenario.Scenario;
import org.sipcrypt.lab.scenario.ScenarioFiles;
import org.sipcrypt.server.cli.CertsCommand;
import org.sipcrypt.server.tls.JdkInsecureSuites;
import org.sipcrypt.server.tls.bc.BcTlsSetup;
import org.sipcrypt.server.tls.spi.CipherSuiteId;
import org.sipcrypt.server.tls.spi.CipherSuiteRegistry;
import org.sipcrypt.server.transport.ConnectionPattern;
import org.sipcrypt.server.transport.Transport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine;

/**
 * Runs a scenario over a list of ciphers and baselines, with a server process and UAS per cipher
 * ({@link Bench}); the server's CPU is read from its process every interval.
 * <ul>
 * <li>Fixed-rate points: by default every cipher's server is started and warmed up once, and stays
 * up while the repetitions, short measured windows, go round the ciphers; with
 * {@link Options#freshServers()} (and against an external target) each repetition gets a fresh
 * server and its own warm-up instead.</li>
 * <li>Ramps ({@link PeakFinder}): a fresh server for each.</li>
 * <li>Under a {@link PeakFraction}: a ramp per cipher first, then the fixed-rate points as above,
 * each cipher's at the fraction of the peak its ramp found.</li>
 * </ul>
 * Repetitions are interleaved (every cipher once, then the next repetition, in a rotated order) so
 * that a drift of the machine does not fall on one cipher.
 * Threading: one caller thread; the generator's threads report back to it.
 */
public final class ScenarioRunner {

    private static final Logger log = LoggerFactory.getLogger(ScenarioRunner.class);

    /** How {@link PointRun#invalid()} begins for a point whose generator was saturated. */
    static final String GENERATOR_SATURATED = "generator saturated";

    /**
     * How {@link PointRun#invalid()} begins for a fixed-rate point that failed more calls than the
     * scenario allows: the server (or the path to it) did not keep up, so its CPU per call is not
     * the cost of a call.
     */
    static final String NOT_KEPT_UP = "calls failed";

    /**
     * How {@link PointRun#invalid()} begins for a point whose generator was asked to resume its TLS
     * sessions and resumed none: its figures are those of full handshakes.
     */
    static final String NOT_RESUMED = "no handshake resumed";

    /** A warm-up window of a fixed-rate point (see {@code settle}). */
    static final Duration SETTLE_WINDOW = Duration.ofSeconds(5);
    /**
     * The share of the rate of a settle's first windows, one per window, before the full rate: a cold
     * server runs interpreted code at several times a warm one's CPU per call, so the full rate from
     * the first second overloads it (the overload guard's 503s within a second of the start, at
     * 400-750 calls/s with a connection per call), and the calls it turns away or loses leave work
     * behind (the callee's 2xx retransmissions) that the measured windows inherit.
     */
    static final double[] RAMP_IN = {0.25, 0.5};
    /** The JIT compiler is quiet below this share of a core over a warm-up window. */
    static final double JIT_QUIET_PCT = 5;
    /** A warm-up waits for a quiet JIT compiler for at most this many times the scenario's warm-up. */
    static final int SETTLE_LIMIT = 3;
    /** The warm-up of a settled point's measured run: its connections and its rate set up again. */
    static final Duration SETTLED_WARMUP = Duration.ofSeconds(1);

    /**
     * How the runner runs.
     * Threading: immutable.
     *
     * @param workDir  server logs and databases, certificates, generator files
     * @param external a server the lab did not start, or null
     * @param progress receives one line per point and per interval
     * @param interval the sample interval
     * @param pinning  the CPUs of the server and of the lab
     * @param sut      the server the lab starts for each point
     * @param freshServers a fresh server and warm-up for every fixed-rate repetition, instead of one
     *                 warm server per cipher for all of them
     * @param oneWayDelay the lab delay stage's one-way delay in every generator and UAS, on each leg
     *                 the lab's processes end (zero for none); the server under test is not delayed
     * @param handshake the TLS version and key exchange of every TLS leg ({@link Handshake#DEFAULT}:
     *                 TLS 1.2 with RSA key exchange)
     */
    public record Options(Path workDir, ExternalTarget external, Consumer<String> progress, Duration interval,
                          CpuPinning pinning, ServerUnderTest sut, boolean freshServers, Duration oneWayDelay,
                          Handshake handshake) {
        public Options {
            handshake = handshake == null ? Handshake.DEFAULT : handshake;
            Objects.requireNonNull(workDir, "workDir");
            Objects.requireNonNull(progress, "progress");
            Objects.requireNonNull(pinning, "pinning");
            Objects.requireNonNull(sut, "sut");
            oneWayDelay = oneWayDelay == null ? Duration.ZERO : oneWayDelay;
            if (oneWayDelay.isNegative() || oneWayDelay.compareTo(UacOptions.MAX_ONE_WAY_DELAY) > 0) {
                throw new IllegalArgumentException("--one-way-delay: " + oneWayDelay + " (expected 0 to "
                        + UacOptions.MAX_ONE_WAY_DELAY.toSeconds() + "s)");
            }
        }

        /** Options with TLS 1.2 and RSA key exchange. */
        public Options(Path workDir, ExternalTarget external, Consumer<String> progress, Duration interval,
                       CpuPinning pinning, ServerUnderTest sut, boolean freshServers, Duration oneWayDelay) {
            this(workDir, external, progress, interval, pinning, sut, freshServers, oneWayDelay, Handshake.DEFAULT);
        }

        /** Options without delay. */
        public Options(Path workDir, ExternalTarget external, Consumer<String> progress, Duration interval,
                       CpuPinning pinning, ServerUnderTest sut, boolean freshServers) {
            this(workDir, external, progress, interval, pinning, sut, freshServers, Duration.ZERO);
        }

        /** Options with one warm server per cipher. */
        public Options(Path workDir, ExternalTarget external, Consumer<String> progress, Duration interval,
                       CpuPinning pinning, ServerUnderTest sut) {
            this(workDir, external, progress, interval, pinning, sut, false);
        }

        /** Options with nothing pinned, for sipcrypt. */
        public Options(Path workDir, ExternalTarget external, Consumer<String> progress, Duration interval) {
            this(workDir, external, progress, interval, CpuPinning.OFF, ServerUnderTest.SIPCRYPT);
        }

        /** The same options for another server under test. */
        public Options withSut(ServerUnderTest other) {
            return new Options(workDir, external, progress, interval, pinning, other, freshServers, oneWayDelay,
                    handshake);
        }

        /** The same options under another handshake ({@code compare --handshakes}: one per combination). */
        public Options withHandshake(Handshake other) {
            return new Options(workDir, external, progress, interval, pinning, sut, freshServers, oneWayDelay, other);
        }

        /** Whether fixed-rate repetitions run as windows on one warm server per cipher. */
        boolean warmServers() {
            return !freshServers && external == null;
        }

        /** How the servers of fixed-rate points were run, for the study's environment. */
        String serversDescribed() {
            return warmServers() ? "one warm server per cipher, repetitions as interleaved windows"
                    : "a fresh server per repetition";
        }
    }

    private final Scenario scenario;
    private final Options options;
    private final Generators generators;
    private Path certs;
    private int benchCount;
    /** Each cipher's fixed rate under a {@link PeakFraction}; the scenario's rate for a cipher not in it. */
    private Map<String, Double> fixedRates = Map.of();
    private Progress progress = new Progress(1);
    /** The heaps per idle connection measured so far in this comparison. */
    private final List<IdleHeap> idle = new ArrayList<>();

    /** A runner for one scenario. */
    public ScenarioRunner(Scenario scenario, Options options) {
        Duration warmup = scenario.load().warmup();
        Duration interval = options.interval();
        if (interval != null && !interval.isZero() && !interval.isNegative() && warmup.toNanos() % interval.toNanos() != 0) {
            // the server's CPU is read at sample boundaries: a warm-up ending between two would count
            // the calls from its end but the CPU only from the next sample, and give too low a figure
            throw new IllegalArgumentException("--warmup: " + seconds(warmup) + " s is not a whole number of sample"
                    + " intervals (" + seconds(interval) + " s)");
        }
        this.scenario = scenario;
        this.options = options;
        this.generators = new Generators(options.workDir().resolve("generators"));
    }

    private static String seconds(Duration d) {
        return java.math.BigDecimal.valueOf(d.toNanos(), 9).stripTrailingZeros().toPlainString();
    }

    /** Whether a list of ciphers holds one of the insecure suites the lab alone may run (3DES, RC4). */
    public static boolean comparesInsecureSuites(List<String> ciphers) {
        return ciphers.stream().anyMatch(Bench::insecure);
    }

    /**
     * Lifts the JDK's refusal of the static-RSA suites that {@code ciphers} run under {@code handshake}
     * (RSA key exchange, the lab's default), for the generator's and the UAS's SunJSSE legs: see
     * {@link LegConnector#allowStaticRsa}. Takes effect only before this JVM's first SunJSSE use.
     */
    public static void allowStaticRsa(List<String> ciphers, Handshake handshake) {
        CipherSuiteRegistry registry = CipherSuiteRegistry.load();
        List<CipherSuiteId> suites = new ArrayList<>();
        for (String c : ciphers) {
            String cipher = Leg.cipherOf(c);
            if (registry.provider(cipher).isPresent() || JdkInsecureSuites.staticRsa(cipher)) {
                String suite = handshake.suite(c);
                if (JdkInsecureSuites.staticRsa(suite)) {
                    suites.addAll(registry.resolve(List.of(suite), true));
                }
            }
        }
        LegConnector.allowStaticRsa(suites);
    }

    /**
     * Refuses compared names a scenario cannot run over SIP over WebSocket ({@code ws},
     * {@code wss:CIPHER}, {@link Leg#checkCompared}): against a server the lab did not start (its
     * WebSocket listener is not known to the lab), and where the right leg becomes WebSocket, a
     * connection per call to the UAS (the UAS is reached over the one connection it registered over,
     * RFC 7118 §5) or digest authentication (the UAS's REGISTER answers no challenge). Both are not built.
     *
     * @throws IllegalArgumentException naming the compared name, the scenario and why
     */
    public static void checkTransports(Scenario scenario, List<String> ciphers, Options options) {
        for (String c : ciphers) {
            Leg.checkCompared(c);
            if (!scenario.secured() || !Leg.comparedTransport(c).webSocket()) {
                continue;
            }
            if (options.external() != null) {
                throw new IllegalArgumentException("--ciphers " + c + " with --target: the lab compares SIP over"
                        + " WebSocket on the server it starts only (not built against a target)");
            }
            boolean rightWs = scenario.reachesUas() && scenario.right().secured();
            if (rightWs && scenario.right().connection() == ConnectionPattern.PER_CALL) {
                throw new IllegalArgumentException("--ciphers " + c + " on " + scenario.name() + ": its right leg opens"
                        + " a connection per call, and a UAS over WebSocket is reached over the one connection it"
                        + " registered over (RFC 7118 §5); not built");
            }
            if (rightWs && scenario.auth()) {
                throw new IllegalArgumentException("--ciphers " + c + " on " + scenario.name() + ": the UAS's"
                        + " registration over WebSocket with digest authentication is not built");
            }
        }
    }

    /**
     * Compares ciphers: fixed-rate points and/or ramps, each repeated as the scenario says.
     *
     * @param ciphers cipher providers and {@code udp} / {@code tcp}
     */
    public Study compare(List<String> ciphers, boolean fixed, boolean peak) throws Exception {
        return compare(ciphers, fixed, peak, null);
    }

    /**
     * Compares ciphers as {@link #compare(List, boolean, boolean)}, and with a {@code fraction} runs a
     * ramp per cipher first and that cipher's fixed-rate points at the fraction of the peak its ramp
     * found ({@link PeakFraction#rate}); a cipher whose rate comes to under ten calls per second runs
     * no fixed-rate point, and says so.
     *
     * @param fraction the share of each cipher's own peak its fixed-rate points run at, or null for
     *                 the scenario's rate; not with {@code peak} (whose ramps are repeated)
     */
    public Study compare(List<String> ciphers, boolean fixed, boolean peak, PeakFraction fraction) throws Exception {
        if (fraction != null && (!fixed || peak)) {
            throw new IllegalArgumentException(PeakFraction.OPTION + ": fixed-rate points only, not with --find-peak");
        }
        if (!fixed && !peak) {
            throw new IllegalArgumentException("nothing to run: neither a fixed rate nor a peak search");
        }
        options.handshake().check(ciphers, scenario.server());
        checkTransports(scenario, ciphers, options);
        if (options.sut() == ServerUnderTest.KAMAILIO && options.external() == null) {
            String why = KamailioServer.refusal(options.handshake());
            if (why != null) {
                throw new IllegalArgumentException("--sut kamailio: " + why);
            }
        }
        if (ciphers.stream().anyMatch(Bench::insecure)) {
            log.warn("insecure suites compared: {} (lab only; RC4 and 3DES are re-enabled in this JVM's SunJSSE)",
                    ciphers.stream().filter(Bench::insecure).toList());
            JdkInsecureSuites.allow();
        }
        allowStaticRsa(ciphers, options.handshake());
        if (options.sut() == ServerUnderTest.KAMAILIO && options.external() == null) {
            List<String> runnable = new ArrayList<>();
            for (String c : ciphers) {
                String why = KamailioServer.unsupported(scenario, c, options.handshake());
                if (why == null) {
                    runnable.add(c);
                } else {
                    options.progress().accept(scenario.name() + " " + c + " on kamailio: not run: " + why);
                }
            }
            ciphers = runnable;
            if (options.handshake().asksResumption()) {
                int workers = KamailioServer.workers(options.pinning());
                options.progress().accept(scenario.name() + " on kamailio: a TLS session resumes on the TCP worker"
                        + " process that made it only (an OpenSSL context per process; " + workers + " worker"
                        + (workers == 1 ? "" : "s") + "): the resumption % says how many did");
            }
        }
        Instant started = Instant.now();
        List<PointRun> points = new ArrayList<>();
        List<PeakSearch> ramps = new ArrayList<>();
        // a warm server's start and warm-up is a step of its own
        idle.clear();
        List<String> idleCiphers = fixed ? ciphers.stream().filter(this::idleMeasured).toList() : List.of();
        progress = new Progress(plan(ciphers.size(), fixed, peak, fraction != null, idleCiphers.size()));
        String where = options.pinning().describe() + (fixed ? "; " + options.serversDescribed() : "");
        options.progress().accept(scenario.name() + ": " + where);
        if (!options.handshake().isDefault()) {
            options.progress().accept(scenario.name() + ": handshake " + options.handshake().describe());
        }
        String noIdle = idleNotMeasured(scenario, options, fixed);
        if (noIdle != null) {
            options.progress().accept(scenario.name() + ": heap per idle connection not measured: " + noIdle);
        }
        if (!options.oneWayDelay().isZero()) {
            options.progress().accept(scenario.name() + ": network delay " + Environment.current().withDelay(
                    options.oneWayDelay()).delayDescribed());
        }
        try (AutoCloseable pinned = options.pinning().pinLab(); Generators kept = generators) {
            List<String> fixedCiphers = ciphers;
            if (fraction != null) {
                fixedCiphers = new ArrayList<>();
                Map<String, Double> rates = new LinkedHashMap<>();
                for (String cipher : ciphers) {
                    PeakSearch r = ramp(cipher, 1);
                    ramps.add(r);
                    double rate = fraction.rate(r.peakRate());
                    if (rate > 0) {
                        rates.put(cipher, rate);
                        fixedCiphers.add(cipher);
                        options.progress().accept(scenario.name() + " " + cipher + ": fixed-rate points at "
                                + fraction.describe(r.peakRate()));
                    } else {
                        options.progress().accept(scenario.name() + " " + cipher + ": no fixed-rate point: "
                                + fraction.describe(r.peakRate()) + " is under " + (int) PeakFraction.ROUND_TO + "/s");
                    }
                }
                fixedRates = Map.copyOf(rates);
                if (fixedCiphers.size() < ciphers.size()) {
                    // the steps of the ciphers left without a fixed-rate point are not to come
                    List<String> idleLeft = fixedCiphers.stream().filter(this::idleMeasured).toList();
                    progress.replan(plan(fixedCiphers.size(), fixed, peak, false, idleLeft.size()));
                }
            }
            if (fixed && options.warmServers() && !fixedCiphers.isEmpty()) {
                points.addAll(warmPoints(fixedCiphers));
            }
            for (int rep = 1; rep <= scenario.repeat(); rep++) {
                for (String cipher : interleaved(ciphers, rep)) {
                    if (fixed && !options.warmServers() && fixedCiphers.contains(cipher)) {
                        points.add(fixedPoint(cipher, rep));
                    }
                    if (peak) {
                        ramps.add(ramp(cipher, rep));
                    }
                }
            }
        }
        return new Study(0, studyName(), ScenarioFiles.toYaml(scenario), ciphers, started,
                environment(where), points, ramps, fraction == null ? 0 : fraction.fraction(), idle);
    }

    /**
     * Whether the heap per idle connection is measured for a cipher: asked for ({@code
     * idleConnections}), on a sipcrypt server the lab starts, over a stream transport on the left leg.
     */
    private boolean idleMeasured(String cipher) {
        return scenario.idleConnections() > 0 && idleNotMeasured(scenario, options, true) == null
                && scenario.left().transportFor(cipher) != Transport.UDP;
    }

    /**
     * Why a comparison that asks for the heap per idle connection cannot measure it, or null (also
     * when it does not ask).
     *
     * @param fixed whether it runs fixed-rate points
     */
    static String idleNotMeasured(Scenario scenario, Options options, boolean fixed) {
        if (scenario.idleConnections() == 0) {
            return null;
        }
        if (!fixed) {
            return "it is measured after a cipher's fixed-rate points, and this comparison runs ramps only";
        }
        if (options.external() != null) {
            return "a server the lab did not start (its heap is read with jcmd on a server the lab started)";
        }
        if (options.sut() != ServerUnderTest.SIPCRYPT) {
            return options.sut().configName() + " is not on a JVM (its memory is its own pools, not a heap the lab reads)";
        }
        return null;
    }

    /** Holds the scenario's idle connections on the bench's server, says what they cost, and keeps it. */
    private void measureIdle(Bench b) throws Exception {
        TlsOptions tls = null;
        if (b.leftTransport.secure()) {
            boolean mutual = scenario.left().clientCertificates();
            // no session offered: a full handshake each, as from as many clients
            tls = Bench.labTls(b.cipher, b.handshake, certs().resolve("ca.pem"),
                    mutual ? certs().resolve("client.pem") : null, mutual ? certs().resolve("client-key.pem") : null,
                    false, BcTlsSetup.ClientCertificates.NONE);
        }
        IdleHeap h = IdleHeapStep.run(b, scenario.idleConnections(), tls);
        options.progress().accept("  " + describe(h));
        idle.add(h);
    }

    /** One progress line for a heap per idle connection. */
    static String describe(IdleHeap h) {
        String engines = h.tlsEngines().isEmpty() ? "" : ", server engine " + ServerTlsEngines.joined(h.tlsEngines());
        String opened = String.format(Locale.ROOT, "%d of %d held (%s%s), opened in %.1f s, %d failed%s", h.held(),
                h.asked(), h.transport(), engines, h.openSeconds(), h.failed(),
                h.firstFailure() == null ? "" : " (first: " + h.firstFailure() + ")");
        if (!h.valid()) {
            return h.cipher() + ": heap per idle connection not measured: " + (h.invalid() != null ? h.invalid()
                    : "the server counted no connection open") + "; " + opened;
        }
        return String.format(Locale.ROOT, "%s: heap per idle connection %,.0f bytes (%.1f objects), %,.0f left after"
                        + " closing, resident set %,.0f bytes; the server counted %d open; %s", h.cipher(),
                h.bytesPerConnection(), h.objectsPerConnection(), h.leftAfterClosingBytesPerConnection(),
                h.rssBytesPerConnection(), h.connections(), opened);
    }

    /** This machine, where the processes ran, and how many CPUs the server under test had. */
    private Environment environment(String where) {
        Environment here = Environment.current();
        int serverCpus = options.external() != null ? 0
                : options.pinning().pinned() ? options.pinning().serverCpus().size() : here.cores();
        return here.withPinning(where, serverCpus).withDelay(options.oneWayDelay())
                .withHandshake(options.handshake());
    }

    /**
     * The scenario's name in the study and its points: {@code chain}, or {@code chain-kamailio} when
     * another server than sipcrypt was started for it, so the two never pool in reports or the model.
     */
    private String studyName() {
        return options.sut() == ServerUnderTest.SIPCRYPT || options.external() != null ? scenario.name()
                : scenario.name() + "-" + options.sut().configName();
    }

    /**
     * The order of the ciphers in repetition {@code rep}: every cipher once per repetition, the list
     * rotated by one per repetition, so that a drift of the machine (its clock, its neighbours, its
     * temperature) spreads over every cipher instead of landing on the ones measured last.
     */
    static List<String> interleaved(List<String> ciphers, int rep) {
        List<String> order = new ArrayList<>(ciphers);
        if (!order.isEmpty()) {
            java.util.Collections.rotate(order, -((rep - 1) % order.size()));
        }
        return order;
    }

    /**
     * Where a comparison is: which step of how many, and the time left. Steps differ in length (a
     * warm server's start and warm-up takes several windows' time), so each is weighed by what it is
     * planned to take, and the time left is the planned time left at the pace of the steps done so
     * far (planned against taken): counting steps alone put the README's comparison at 39 min left
     * after its first server, with 13 to go.
     * Threading: the runner's thread.
     */
    static final class Progress {
        private int total;
        private double totalWeight;
        private final LongSupplier nanoClock;
        private final long startNanos;
        private int begun;
        private double doneWeight;
        private double currentWeight;

        /** @param plan the planned length of every step, in any one unit (e.g. seconds), in order */
        Progress(double... plan) {
            this(System::nanoTime, plan);
        }

        Progress(LongSupplier nanoClock, double... plan) {
            this.nanoClock = nanoClock;
            this.startNanos = nanoClock.getAsLong();
            this.total = plan.length;
            double sum = 0;
            for (double w : plan) {
                sum += w;
            }
            this.totalWeight = sum;
        }

        /** The prefix of the next step's first line: {@code [3/14, 12 min left]}; {@code weight} is its planned length. */
        String next(double weight) {
            int done = begun++;
            doneWeight += currentWeight;
            currentWeight = weight;
            if (done == 0 || doneWeight <= 0) {
                return String.format(Locale.ROOT, "[%d/%d]", begun, total);
            }
            long left = (long) ((nanoClock.getAsLong() - startNanos) / doneWeight * Math.max(0, totalWeight - doneWeight));
            return String.format(Locale.ROOT, "[%d/%d, %s left]", begun, total, duration(left));
        }

        /**
         * Replaces the steps not yet begun with {@code rest}, the plan from here on: what the steps so
         * far found can change it (a ramp whose peak leaves its cipher no fixed-rate point).
         */
        void replan(double... rest) {
            double sum = 0;
            for (double w : rest) {
                sum += w;
            }
            total = begun + rest.length;
            totalWeight = doneWeight + currentWeight + sum;
        }

        static String duration(long nanos) {
            long s = Math.round(nanos / 1e9);
            return s >= 3600 ? String.format(Locale.ROOT, "%d h %02d min", s / 3600, s % 3600 / 60)
                    : s >= 60 ? String.format(Locale.ROOT, "%d min", (s + 30) / 60)
                    : String.format(Locale.ROOT, "%d s", s);
        }
    }

    /** Planned seconds of a server's start and warm-up: a few seconds to start, then up to {@link #SETTLE_LIMIT} warm-ups. */
    private double plannedStart() {
        return 3 + SETTLE_LIMIT * scenario.load().warmup().toSeconds();
    }

    /** Planned seconds of a window on a warm server: its short warm-up, its duration and a second or two around them. */
    private double plannedWindow() {
        LoadProfile l = scenario.load();
        return 2 + windowWarmup().toSeconds() + l.duration().toSeconds();
    }

    /** Planned seconds of a fixed-rate point on a server of its own. */
    private double plannedFreshPoint() {
        return plannedStart() + scenario.load().duration().toSeconds();
    }

    /**
     * Planned seconds of holding the idle connections of one cipher: three reads of the server's heap
     * and the waits before them, and the connections opened at a few hundred a second.
     */
    private double plannedIdle() {
        return 10 + scenario.idleConnections() / 300.0;
    }

    /** Planned seconds of a ramp: its warm-up, then the ramp's budget. */
    private double plannedRamp() {
        LoadProfile l = scenario.load();
        return plannedStart() + l.ramp().budget().toSeconds();
    }

    /**
     * The planned length of every step of this scenario's comparison, in the order they run; with
     * {@code fractionRamps}, a ramp per cipher comes first ({@code --peak-fraction}).
     */
    private double[] plan(int ciphers, boolean fixed, boolean peak, boolean fractionRamps, int idleCiphers) {
        List<Double> steps = new ArrayList<>();
        int reps = scenario.repeat();
        if (fractionRamps) {
            for (int i = 0; i < ciphers; i++) {
                steps.add(plannedRamp());
            }
        }
        if (fixed && options.warmServers()) {
            for (int i = 0; i < ciphers; i++) {
                steps.add(plannedStart());
            }
            if (ciphers > 1 && !scenario.load().warmup().isZero()) {
                steps.add(ciphers * plannedWindow());
            }
            for (int i = 0; i < ciphers * reps; i++) {
                steps.add(plannedWindow());
            }
            for (int i = 0; i < idleCiphers; i++) {
                steps.add(plannedIdle());
            }
        } else if (fixed) {
            for (int i = 0; i < ciphers * reps; i++) {
                // the first repetition of a cipher measured idle also holds its connections
                steps.add(plannedFreshPoint() + (i < idleCiphers ? plannedIdle() : 0));
            }
        }
        if (peak) {
            for (int i = 0; i < ciphers * reps; i++) {
                steps.add(plannedRamp());
            }
        }
        return steps.stream().mapToDouble(Double::doubleValue).toArray();
    }

    /**
     * The lab's CA, server and client certificates of the comparison's {@code --cert} type, made once
     * per work directory: {@code certs/} for RSA-2048 (as before the choice), {@code certs-rsa3072/},
     * {@code certs-ecdsa-p256/} for the others.
     */
    private Path certs() throws IOException {
        if (certs == null) {
            Handshake.Certificate type = options.handshake().certificate();
            certs = options.workDir().resolve(type == Handshake.Certificate.RSA2048 ? "certs"
                    : "certs-" + type.configName());
            if (!Files.exists(certs.resolve("ca.pem"))) {
                CommandLine cl = new CommandLine(new CertsCommand());
                StringWriter said = new StringWriter();
                cl.setOut(new PrintWriter(said));
                cl.setErr(new PrintWriter(said));
                List<String> args = new ArrayList<>(List.of("--out", certs.toString(), "--force"));
                args.addAll(type.certsArguments());
                int rc = cl.execute(args.toArray(String[]::new));
                if (rc != 0) {
                    throw new IOException("cannot write the lab's certificates to " + certs + ": " + said.toString().strip());
                }
            }
        }
        return certs;
    }

    private Bench bench(String cipher) throws Exception {
        Path dir = options.workDir().resolve(String.format(Locale.ROOT, "%s-%s-%s-%03d", scenario.name(),
                options.sut().configName(), cipher.replace(':', '-'), ++benchCount));
        List<Credential> users = scenario.auth() ? CredentialFiles.read(Users.provision(scenario, dir)) : List.of();
        // the generator's garbage of the previous point (a ramp leaves much) is collected now, not as
        // a pause in the middle of this point's schedule
        System.gc();
        Bench b = Bench.start(scenario, cipher, dir, certs(), options.external(), options.pinning(), options.sut(),
                options.handshake(), options.oneWayDelay(), users);
        try {
            if (scenario.workload().equals("redirect")) {
                register(b);
            }
            return b;
        } catch (Exception e) {
            b.close();
            throw e;
        }
    }

    /**
     * Registers every user the redirect workload calls (or the generator's own identities without
     * authentication), so the redirect server has a contact to answer 302 with.
     */
    private void register(Bench b) throws Exception {
        int n = b.users.isEmpty() ? 100 : b.users.size();
        UacOptions o = uacOptions(b, Math.min(200, n), Duration.ofMillis(Math.max(1000, n * 1000L / 200)), Duration.ZERO,
                scenario.load()).withWorkload(Workload.REGISTER);
        RunSummary r = new Uac(o).run(i -> { });
        if (r.completed() < n) {
            throw new IOException("registering the " + n + " users the redirect workload calls failed: " + r.text());
        }
    }

    private PointRun fixedPoint(String cipher, int rep) throws Exception {
        LoadProfile l = scenario.load();
        options.progress().accept(String.format(Locale.ROOT, "%s %s %s #%d: %.0f/s for %ds after %ds warm-up",
                progress.next(plannedFreshPoint()), scenario.name(), cipher, rep, fixedRate(cipher),
                l.duration().toSeconds(), l.warmup().toSeconds()));
        try (Bench b = bench(cipher)) {
            PointRun p = measure(b, cipher, rep, "fixed", fixedRate(cipher), l.duration(), settleFirst(b, cipher, rep));
            options.progress().accept(line(p));
            if (rep == 1 && idleMeasured(cipher)) {
                options.progress().accept(String.format(Locale.ROOT, "  %s: %d idle connections", cipher,
                        scenario.idleConnections()));
                measureIdle(b);
            }
            return p;
        }
    }

    /**
     * Every repetition of every cipher's fixed-rate point, on one server per cipher: each server is
     * started and warmed up ({@link #settle}) in turn and then stays up, idle, while the repetitions go
     * round the ciphers in interleaved order, each a measured window after a short warm-up that sets
     * its connections up again; with more than one cipher, a first round of such windows is run and not
     * counted. A JVM pays its start and its JIT compiler's warm-up once instead of
     * once per repetition, so a comparison affords more, shorter repetitions.
     */
    private List<PointRun> warmPoints(List<String> ciphers) throws Exception {
        LoadProfile l = scenario.load();
        Map<String, Bench> benches = new LinkedHashMap<>();
        try {
            int n = 0;
            for (String cipher : ciphers) {
                options.progress().accept(String.format(Locale.ROOT, "%s %s %s: server %d of %d, its start and warm-up at %.0f/s",
                        progress.next(plannedStart()), scenario.name(), cipher, ++n, ciphers.size(), fixedRate(cipher)));
                Bench b = bench(cipher);
                benches.put(cipher, b);
                warmUp(b, cipher, 0, fixedRate(cipher));
            }
            Duration windowWarmup = windowWarmup();
            if (roundZero(ciphers)) {
                // a round that is not counted: every cipher's server, the generator and the UAS run
                // their windows once in turn before the rounds that are (the first two rounds of a
                // seven-cipher chain run cost every cipher 8-9 % more than the later ones)
                options.progress().accept(String.format(Locale.ROOT, "%s %s: round 0, not counted: %d windows of %ds",
                        progress.next(ciphers.size() * plannedWindow()), scenario.name(), ciphers.size(),
                        l.duration().toSeconds()));
                for (String cipher : ciphers) {
                    measure(benches.get(cipher), cipher, 0, "warmup", fixedRate(cipher), l.duration(), windowWarmup);
                }
            }
            List<PointRun> points = new ArrayList<>();
            for (int rep = 1; rep <= scenario.repeat(); rep++) {
                for (String cipher : interleaved(ciphers, rep)) {
                    options.progress().accept(String.format(Locale.ROOT, "%s %s %s #%d: %.0f/s for %ds", progress.next(plannedWindow()),
                            scenario.name(), cipher, rep, fixedRate(cipher), l.duration().toSeconds()));
                    PointRun p = measure(benches.get(cipher), cipher, rep, "fixed", fixedRate(cipher), l.duration(),
                            windowWarmup);
                    options.progress().accept(line(p));
                    points.add(p);
                }
            }
            for (String cipher : ciphers) {
                if (idleMeasured(cipher)) {
                    options.progress().accept(String.format(Locale.ROOT, "%s %s %s: %d idle connections",
                            progress.next(plannedIdle()), scenario.name(), cipher, scenario.idleConnections()));
                    measureIdle(benches.get(cipher));
                }
            }
            return points;
        } finally {
            benches.values().forEach(Bench::close);
        }
    }

    /** A cipher's fixed rate: its share of its own peak under {@code --peak-fraction}, else the scenario's. */
    private double fixedRate(String cipher) {
        return fixedRates.getOrDefault(cipher, scenario.load().rate());
    }

    /** Whether warm servers run a round that is not counted before the rounds that are. */
    private boolean roundZero(List<String> ciphers) {
        return ciphers.size() > 1 && !scenario.load().warmup().isZero();
    }

    /**
     * Settles a JVM server ({@link #settle}) when the scenario has a warm-up, saying how it ended;
     * returns the warm-up a measured run on the bench still needs: a short one that sets its
     * connections up again after settling, the scenario's whole warm-up otherwise.
     */
    private Duration settleFirst(Bench b, String cipher, int rep) throws Exception {
        LoadProfile l = scenario.load();
        if (b.server == null || l.warmup().isZero()) {
            return l.warmup();
        }
        options.progress().accept("  " + settle(b, cipher, rep, fixedRate(cipher), l.warmup()));
        return windowWarmup();
    }

    /**
     * The warm-up of a measured run on a settled server: {@link #SETTLED_WARMUP}, with generator
     * processes too, since they are kept warm from one run to the next (started anew for every run,
     * three such processes were still up to 290 ms late with their arrivals after a 1 s warm-up at
     * 300 calls/s over TLS).
     */
    Duration windowWarmup() {
        return min(SETTLED_WARMUP, scenario.load().warmup());
    }

    /**
     * The scenario's warm-up at {@code rate} before what follows is measured: a JVM server settles
     * ({@link #settle}); a server with no JIT compiler to wait for (Kamailio) gets the warm-up as it is.
     */
    private void warmUp(Bench b, String cipher, int rep, double rate) throws Exception {
        LoadProfile l = scenario.load();
        if (l.warmup().isZero()) {
            return;
        }
        if (b.server != null) {
            options.progress().accept("  " + settle(b, cipher, rep, rate, l.warmup()));
        } else {
            measure(b, cipher, rep, "warmup", rate, l.warmup(), Duration.ZERO);
        }
    }

    /**
     * Warms the server up at the point's rate, the first windows at the shares {@link #RAMP_IN} of
     * it, in windows of {@link #SETTLE_WINDOW} (or the warm-up when shorter), for at least
     * {@code warmup} and then until its JIT compiler used less than {@link #JIT_QUIET_PCT} % of a
     * core in the last window, for at most {@link #SETTLE_LIMIT} times {@code warmup} (and one window
     * at the full rate at least): compiled code that is still changing changes what a call costs.
     * Says how it ended.
     */
    private String settle(Bench b, String cipher, int rep, double rate, Duration warmup) throws Exception {
        long start = System.nanoTime();
        long atLeast = warmup.toNanos();
        long atMost = atLeast * SETTLE_LIMIT;
        for (int window = 0; ; window++) {
            long jitBefore = ProcessCpu.jitMicros(b.serverPid);
            long windowStart = System.nanoTime();
            double share = window < RAMP_IN.length ? RAMP_IN[window] : 1;
            measure(b, cipher, rep, "warmup", rate * share, min(SETTLE_WINDOW, warmup), Duration.ZERO);
            long now = System.nanoTime();
            double jitPct = jitPercent(ProcessCpu.jitMicros(b.serverPid) - jitBefore, now - windowStart);
            long elapsed = now - start;
            boolean fullRate = window >= RAMP_IN.length;
            if (fullRate && elapsed >= atLeast && jitPct < JIT_QUIET_PCT) {
                return String.format(Locale.ROOT, "warm-up %.0f s: the JIT compiler quiet (%.1f %% of a core)",
                        elapsed / 1e9, jitPct);
            }
            if (fullRate && elapsed >= atMost) {
                return String.format(Locale.ROOT, "warm-up %.0f s: the JIT compiler still at %.1f %% of a core",
                        elapsed / 1e9, jitPct);
            }
        }
    }

    private static Duration min(Duration a, Duration b) {
        return a.compareTo(b) <= 0 ? a : b;
    }

    /** The share of one core that {@code cpuMicros} of CPU time is over {@code nanos}. */
    static double jitPercent(long cpuMicros, long nanos) {
        return nanos <= 0 ? 0 : cpuMicros * 1e3 / nanos * 100;
    }

    private PeakSearch ramp(String cipher, int rep) throws Exception {
        LoadProfile l = scenario.load();
        LoadProfile.Ramp r = l.ramp();
        options.progress().accept(String.format(Locale.ROOT, "%s %s %s #%d: ramp from %.0f/s by %.0f/s, %ds steps",
                progress.next(plannedRamp()), scenario.name(), cipher, rep, r.start(), r.step(), r.stepLength().toSeconds()));
        try (Bench b = bench(cipher)) {
            // the server's JIT settles before any step is measured, at a rate a cold server keeps up
            // with (the fixed rate when the ramp starts above it): a warm-up that overloads it would
            // leave a backlog that fails the first steps, and a JVM still compiling fails a step its
            // compiled code would pass (a cold server failed chain's 1,000 calls/s at 2 ms a call)
            warmUp(b, cipher, rep, Math.min(r.start(), l.rate()));
            PeakSearch s = PeakFinder.search(studyName(), cipher, rep, r, (rate, length) -> {
                PointRun p = measure(b, cipher, rep, "step", rate, length, Duration.ZERO);
                options.progress().accept(line(p));
                pause(p.passed() ? Duration.ofSeconds(2) : l.callTimeout().plusSeconds(2));
                return p;
            });
            options.progress().accept(String.format(Locale.ROOT, "%s %s #%d: peak %.0f/s, sustainable %.0f/s (%s)",
                    scenario.name(), cipher, rep, s.peakRate(), s.sustainableRate(), s.stoppedBy()));
            return s;
        }
    }

    /** Lets the server drain a step's leftovers (after a failed one, what it still queues) before the next. */
    private static void pause(Duration d) throws InterruptedException {
        Thread.sleep(d.toMillis());
    }

    /**
     * A point's progress line; the lab's CPU per call by role follows the server's, and a role that
     * cost more than a third of the server's per call is named; then the server's TLS engines, where known.
     */
    static String line(PointRun p) {
        RunSummary u = p.uac();
        List<String> over = p.labCpu().over(p.server().cpuMicrosPerCall());
        List<String> engines = p.server().tlsEngines();
        return String.format(Locale.ROOT, "  %s %s %.0f/s: completed %.1f/s, failed %.2f %%, CRT p50 %.1f p99 %.1f ms,"
                        + " server CPU %.0f %% (%.0f us/call), generator CPU %.0f %%; lab CPU per call: generator %s,"
                        + " UAS %s%s%s%s", p.cipher(), p.mode(), p.rate(), p.completedPerSecond(), u.failedPct(),
                u.crtP50Ms(), u.crtP99Ms(), p.server().cpuPercent(), p.server().cpuMicrosPerCall(), u.cpuPercent(),
                microsPerCall(p.labCpu().generatorMicrosPerCall()), microsPerCall(p.labCpu().uasMicrosPerCall()),
                over.isEmpty() ? "" : " (" + String.join(" and ", over) + " above a third of the server's)",
                engines.isEmpty() ? "" : "; server TLS engine " + ServerTlsEngines.joined(engines),
                p.invalid() != null ? " INVALID: " + p.invalid() : "");
    }

    private static String microsPerCall(double v) {
        return v < 0 ? "n/a" : String.format(Locale.ROOT, "%.0f us/call", v);
    }

    /** CPU time over a measured part per completed call, -1 when the time is unknown or no call completed. */
    static double perCall(long cpuMicros, long completed) {
        return cpuMicros < 0 || completed == 0 ? -1 : (double) cpuMicros / completed;
    }

    /** One run at a rate against a bench, with the server's CPU read every interval. */
    private PointRun measure(Bench b, String cipher, int rep, String mode, double rate, Duration duration,
                             Duration warmup) throws Exception {
        LoadProfile l = scenario.load();
        UacOptions o = uacOptions(b, rate, duration, warmup, l);
        long overflowsBefore = ListenOverflows.count();
        Generators.Outcome g = generators.run(b, o, scenario.generators());
        long overflowsAfter = ListenOverflows.count();
        long overflows = overflowsBefore < 0 || overflowsAfter < 0 ? -1 : overflowsAfter - overflowsBefore;
        RunSummary u = g.summary();
        double cpuPct = g.serverCpuMicros() < 0 || g.measuredSeconds() <= 0 ? -1
                : g.serverCpuMicros() / 1e4 / g.measuredSeconds();
        double perCall = perCall(g.serverCpuMicros(), u.completed());
        double[] pauses = {-1, -1};
        if (b.server != null) {
            // the measured part ended as the generators returned, measuredSeconds ago it began
            double end = b.server.uptimeSeconds();
            if (end > 0) {
                pauses = b.server.gcPauses(end - g.measuredSeconds(), end);
            }
        }
        // read after the run, so not in its measured part; a warm-up's point is not kept
        List<String> engines = "warmup".equals(mode) ? null : b.tlsEngines();
        ServerSample server = new ServerSample(b.serverPid, cpuPct, perCall, b.heapAfterGcBytes(), pauses[0], pauses[1],
                engines == null ? List.of() : engines);
        RoleCpu lab = new RoleCpu(perCall(g.generatorCpuMicros(), u.completed()), perCall(g.uasCpuMicros(),
                u.completed()));
        return new PointRun(studyName(), cipher, mode, rep, rate, u, g.uasHandshakes(), g.uasResumed(),
                g.uasBytes(), server, lab, g.samples(), invalid(mode, u, server, overflows, options.handshake()));
    }

    /**
     * Why a point is left out of the means, or null: the generator saturated (any point), or a
     * fixed-rate point failed more calls than the scenario allows (a ramp's step fails instead). Such
     * a point's reason blames the server unless the kernel's listen queues overflowed meanwhile
     * ({@code overflows} above 0): then a listener (the lab's UAS, or the server's) dropped
     * connections, and the reason says so.
     *
     * @param overflows listen-queue overflows in the kernel over the run, -1 unknown
     */
    static String invalid(String mode, RunSummary u, ServerSample server, long overflows) {
        return invalid(mode, u, server, overflows, Handshake.DEFAULT);
    }

    /**
     * As {@link #invalid(String, RunSummary, ServerSample, long)}, and a point whose generator was
     * asked to resume ({@code --resumption session-id|ticket|psk}) and made TLS handshakes in its
     * measured part without resuming one: it measured full handshakes under a resumption's name.
     */
    static String invalid(String mode, RunSummary u, ServerSample server, long overflows, Handshake handshake) {
        String why = callsInvalid(mode, u, server, overflows);
        if (why == null && handshake.asksResumption() && u.handshakes() > 0 && u.resumed() == 0) {
            why = NOT_RESUMED + String.format(Locale.ROOT, " (%d TLS handshakes of the generator, none resumed, with"
                    + " --resumption %s)", u.handshakes(), handshake.resumption().configName());
        }
        return why;
    }

    private static String callsInvalid(String mode, RunSummary u, ServerSample server, long overflows) {
        if (u.saturated()) {
            return String.format(Locale.ROOT, GENERATOR_SATURATED + " (CPU %.0f %% of %d cores, arrivals up to %.0f ms late)",
                    u.cpuPercent(), u.cores(), u.maxArrivalLagMs());
        }
        if ("fixed".equals(mode) && !u.passed()) {
            return String.format(Locale.ROOT, NOT_KEPT_UP + " (%.2f %%, more than %.2f %%%s%s; server CPU %.0f %% of a core,"
                            + " call response p50 %.0f ms): %s",
                    u.failedPct(), u.maxFailedPct(), mainCauses(u.causes()),
                    u.stoppedEarly() == null ? "" : ", stopped early: " + u.stoppedEarly(),
                    server.cpuPercent(), u.crtP50Ms(), overflows > 0
                            ? String.format(Locale.ROOT, "%d connections dropped by full listen queues in the kernel"
                                    + " meanwhile (the lab's UAS or the server did not accept them in time), so not"
                                    + " only the server", overflows)
                            : "the server did not keep up with the rate");
        }
        return null;
    }

    /**
     * The commonest causes of the failed calls, most first (at most three), as {@code ": 753
     * status_503, 1 timeout"}: a 503 is the server turning calls away, a timeout a call it never
     * answered. Empty without causes.
     */
    static String mainCauses(Map<String, Long> causes) {
        StringBuilder sb = new StringBuilder();
        causes.entrySet().stream()
                .sorted(Map.Entry.<String, Long>comparingByValue().reversed().thenComparing(Map.Entry.comparingByKey()))
                .limit(3)
                .forEach(e -> sb.append(sb.length() == 0 ? ": " : ", ").append(e.getValue()).append(' ').append(e.getKey()));
        return sb.toString();
    }

    private UacOptions uacOptions(Bench b, double rate, Duration duration, Duration warmup, LoadProfile l)
            throws IOException {
        TlsOptions tls = null;
        if (b.leftTransport.secure()) {
            boolean mutual = scenario.left().clientCertificates();
            tls = Bench.labTls(b.cipher, b.handshake, certs().resolve("ca.pem"),
                    mutual ? certs().resolve("client.pem") : null, mutual ? certs().resolve("client-key.pem") : null,
                    b.handshake.generatorResumes(scenario.left().sessionReuse()), BcTlsSetup.ClientCertificates.NONE);
            if (b.handshake.generatorEngine() != null) {
                tls = tls.withEngine(b.handshake.generatorEngine());
            }
        }
        Workload w = Workload.parse(scenario.workload());
        // without users, redirect calls the first identity the preparation registered
        String uri = w == Workload.REDIRECT ? "sip:lab-uac-0@" + Bench.DOMAIN : "sip:lab-uas@" + Bench.DOMAIN;
        return new UacOptions(b.target, b.leftTransport, scenario.left().connection(), tls, rate, duration, warmup,
                l.callTimeout(), l.hold(), l.maxFailedPct(), uri, InetAddress.getLoopbackAddress(), options.interval())
                .withWorkload(w).withDomain(Bench.DOMAIN).withUsers(b.users).withOneWayDelay(options.oneWayDelay());
    }
}
