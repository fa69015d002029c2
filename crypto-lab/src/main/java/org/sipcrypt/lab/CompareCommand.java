package org.sipcrypt.lab;

import java.io.PrintWriter;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.sipcrypt.lab.runner.CpuPinning;
import org.sipcrypt.lab.runner.ExternalTarget;
import org.sipcrypt.lab.runner.Handshake;
import org.sipcrypt.lab.runner.HandshakeMatrix;
import org.sipcrypt.lab.runner.KamailioServer;
import org.sipcrypt.lab.runner.PeakFraction;
import org.sipcrypt.lab.runner.ScenarioRunner;
import org.sipcrypt.lab.runner.ServerUnderTest;
import org.sipcrypt.lab.runner.Study;
import org.sipcrypt.lab.scenario.LoadProfile;
import org.sipcrypt.lab.scenario.Scenario;
import org.sipcrypt.lab.scenario.ScenarioFiles;
import org.sipcrypt.lab.store.ResultStore;
import org.sipcrypt.server.tls.JdkInsecureSuites;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code compare}: runs scenarios over cipher providers and the UDP/TCP baselines, at a fixed rate
 * and/or by ramps, stores every study in the lab database and writes the report files. Exit codes:
 * 0 every point passed, 1 some point failed or was invalid (the report says which), 2 bad arguments.
 * Threading: the main thread only.
 */
@Command(name = "compare", mixinStandardHelpOptions = true,
        description = "Compare cipher suites (and the udp/tcp baselines) on one or more scenarios: server CPU,"
                + " throughput and call response time, with reports in --out.")
final class CompareCommand extends LabCommand {

    @Option(names = "--scenario", split = ",", defaultValue = "chain", paramLabel = "NAME|FILE",
            description = "Presets (chain, outbound, inbound, local, multi-to-one, tls-left, tls-right, ...) or YAML"
                    + " files, comma-separated; with chain, outbound and inbound the report fits the cost model"
                    + " (default: ${DEFAULT-VALUE}).")
    List<String> scenarios;

    @Option(names = "--ciphers", split = ",", paramLabel = "LIST",
            description = "Cipher providers (aes, 3des, camellia, seed, rc4) and baselines (udp, tcp) on every"
                    + " TLS leg; ws (the WebSocket baseline) and wss:CIPHER run them as SIP over WebSocket"
                    + " (default, and when empty: the scenario's list).")
    List<String> ciphers;

    @CommandLine.Mixin
    RunOptions run = new RunOptions();

    @Override
    public Integer call() throws Exception {
        List<Scenario> list = new ArrayList<>();
        try {
            for (String s : scenarios) {
                list.add(run.apply(ScenarioFiles.load(s)));
            }
        } catch (IllegalArgumentException | java.io.IOException e) {
            throw badArgument(e.getMessage(), e);
        }
        // --ciphers= (empty, as the lab profile of crypto-lab/pom.xml passes it without -Dciphers): the scenario's
        boolean none = ciphers == null || ciphers.stream().allMatch(String::isBlank);
        return run.execute(this, list, none ? null : ciphers);
    }

    /**
     * The options {@code compare} and {@code run} share: load overrides, where results go, and an
     * external server.
     * Threading: the main thread only.
     */
    static final class RunOptions {

        @Option(names = "--rate", paramLabel = "CPS", description = "Fixed-rate points at this rate (default: the scenario's).")
        Double rate;

        @Option(names = "--find-peak", description = "Ramp to find peak and sustainable throughput (without --rate: ramps only).")
        boolean findPeak;

        @Option(names = "--peak-fraction", paramLabel = "F",
                description = "Run every cipher's fixed-rate points at F (more than 0, at most 1) of its own peak on"
                        + " each server under test, found by a ramp (--ramp) just before them, rounded down to tens"
                        + " of calls/s; not with --rate or --find-peak.")
        Double peakFraction;

        @Option(names = "--duration", paramLabel = "SECONDS", description = "Measured seconds per fixed-rate point.")
        Double duration;

        @Option(names = "--warmup", paramLabel = "SECONDS", description = "Warm-up seconds before each point or ramp.")
        Double warmup;

        @Option(names = "--repeat", paramLabel = "N", description = "Repetitions of every point (default: the scenario's, 3).")
        Integer repeat;

        @Option(names = "--generators", paramLabel = "N", description = "UAC generator processes (default: the scenario's).")
        Integer generators;

        @Option(names = "--ramp", paramLabel = "START:STEP:SECONDS[:MAX]",
                description = "Ramp from START cps by STEP, SECONDS per step, up to MAX.")
        String ramp;

        @Option(names = "--ramp-max-median-ms", paramLabel = "MS",
                description = "A ramp step also fails when its calls' median response time is above MS"
                        + " (default 0: no bound; a step passes on its failed calls alone).")
        Double rampMaxMedianMs;

        @Option(names = "--out", paramLabel = "DIR",
                description = "Report directory (default: lab-results/SCENARIO-YYYYMMDD-HHMMSS).")
        Path out;

        @CommandLine.Mixin
        DatabaseOptions db = new DatabaseOptions();

        @Option(names = "--work-dir", paramLabel = "DIR",
                description = "Server logs, databases and certificates of the runs (default: OUT/work).")
        Path workDir;

        @Option(names = "--target", paramLabel = "HOST:PORT",
                description = "Load a server the lab did not start (it must route lab.test to the UAS at --uas-port).")
        String target;

        @Option(names = "--server-pid", paramLabel = "PID", defaultValue = "-1",
                description = "With --target: the server's PID on this machine, for its CPU.")
        long serverPid;

        @Option(names = "--uas-port", paramLabel = "PORT", defaultValue = "5090",
                description = "With --target: the port the lab's UAS listens on (default: ${DEFAULT-VALUE}).")
        int uasPort;

        @Option(names = "--pin", paramLabel = "auto|off|CPUS", defaultValue = "auto",
                description = "Pin the server under test to CPUs of its own and the generator and UAS to the others"
                        + " (taskset): auto (the server on the first CPU), off, or the server's CPU list, e.g. 0-1"
                        + " (default: ${DEFAULT-VALUE}).")
        String pin;

        @Option(names = "--sut", split = ",", paramLabel = "sipcrypt|kamailio", defaultValue = "sipcrypt",
                description = "The servers under test, each measured over the whole comparison in turn:"
                        + " sipcrypt and/or kamailio (Debian's kamailio and kamailio-tls-modules; call scenarios"
                        + " with a persistent right leg, no 3DES or RC4, no x25519mlkem768)"
                        + " (default: ${DEFAULT-VALUE}).")
        List<String> sut;

        @Option(names = "--fresh-servers",
                description = "Start a fresh server, and warm it up, for every repetition of a fixed-rate point,"
                        + " instead of one warm server per cipher whose repetitions are interleaved windows, so"
                        + " that the intervals also cover what differs from one server JVM to the next.")
        boolean freshServers;

        @Option(names = "--one-way-delay", paramLabel = "DURATION", defaultValue = "0",
                description = "One-way delay of the lab delay stage in every generator and UAS (e.g. 20ms), so each"
                        + " leg's round trip grows by twice it; the server under test is not changed"
                        + " (default: ${DEFAULT-VALUE}, none).")
        String oneWayDelay;

        @Option(names = "--tls-version", paramLabel = "1.2|1.3",
                description = "The TLS version the generator, the UAS and the server offer on every TLS leg; under"
                        + " 1.3 a provider runs its TLS 1.3 suite (aes: TLS_AES_128_GCM_SHA256, chacha20:"
                        + " TLS_CHACHA20_POLY1305_SHA256) and one without (3des, camellia, seed, rc4) is refused"
                        + " (default: 1.2).")
        String tlsVersion;

        @Option(names = "--kx", paramLabel = "rsa|ecdhe-p256|ecdhe-x25519|x25519mlkem768",
                description = "The key exchange of every TLS leg: rsa (the providers' TLS_RSA_WITH_ suites, TLS 1.2"
                        + " only), or ECDHE or the ML-KEM hybrid (TLS 1.3 only) on that one group (tls.groups on the"
                        + " server, the lab's generator and UAS on the bc engine offering it alone) with the"
                        + " provider's TLS_ECDHE_RSA_WITH_ suite under TLS 1.2 (default: rsa).")
        String kx;

        @Option(names = "--cert", paramLabel = "rsa2048|rsa3072|ecdsa-p256",
                description = "The key type of the certificates the lab makes for the server under test, the UAS and"
                        + " client certificates (certs --key-type, --rsa-bits); with ecdsa-p256 a TLS 1.2 comparison"
                        + " runs the provider's TLS_ECDHE_ECDSA_WITH_ suite with --kx ecdhe-p256 (RFC 8422 §5.1),"
                        + " TLS 1.3 any --kx (default: rsa2048).")
        String cert;

        @Option(names = "--resumption", paramLabel = "none|session-id|ticket|psk",
                description = "How the generator's connections resume TLS sessions: none (a full handshake each),"
                        + " session-id (TLS 1.2 session IDs, the generator on the bc engine), ticket (TLS 1.2,"
                        + " RFC 5077 tickets) or psk (TLS 1.3 NewSessionTicket PSKs), both with the generator on the"
                        + " openssl engine and the server on jsse or openssl (bc: ticket only), the server"
                        + " granting them; a point that resumed none is left out (default: as the scenario's left"
                        + " leg says, sessionReuse).")
        String resumption;

        @Option(names = "--handshakes", split = ",", paramLabel = "VERSION/KX[/CERT[/RESUMPTION]],...",
                description = "Handshake combinations, one study each, side by side in the reports' cross-combination"
                        + " table, e.g. 1.2/rsa,1.3/ecdhe-x25519,1.3/ecdhe-p256/ecdsa-p256 (the certificate rsa2048 and"
                        + " the resumption the scenario's when left out); a cipher a combination cannot run is skipped"
                        + " for it, with a note; not with --tls-version, --kx, --cert or --resumption"
                        + " (default: the scenario's handshakes list, else the single options).")
        List<String> handshakes;

        @Option(names = "--idle-connections", paramLabel = "N",
                description = "After each cipher's fixed-rate points, hold N idle connections to the server on the"
                        + " left leg's transport (TLS: a full handshake each, one OPTIONS answered, then silent) and"
                        + " measure its live heap per connection after a full collection (jcmd), before, held and"
                        + " after closing; sipcrypt servers the lab starts only; 0 for none (default: the"
                        + " scenario's idleConnections, 0 but in the handshakes preset).")
        Integer idleConnections;

        @Option(names = "--quiet", description = "Print the report only, not a line per point.")
        boolean quiet;

        /**
         * The fraction of {@code --peak-fraction}, or null without it.
         *
         * @throws IllegalArgumentException for a fraction out of range, or with {@code --rate} or
         *                                  {@code --find-peak}, saying what to run instead
         */
        PeakFraction peakFraction() {
            if (peakFraction == null) {
                return null;
            }
            PeakFraction f = new PeakFraction(peakFraction);
            if (rate != null) {
                throw new IllegalArgumentException(PeakFraction.OPTION + " " + f.text() + " with --rate "
                        + java.math.BigDecimal.valueOf(rate).stripTrailingZeros().toPlainString()
                        + ": one or the other (compare at a rate below every server's peak with a compare of its own)");
            }
            if (findPeak) {
                throw new IllegalArgumentException(PeakFraction.OPTION + " " + f.text() + " with --find-peak: one or the"
                        + " other (--peak-fraction runs a ramp per cipher itself, shown in the peak table)");
            }
            return f;
        }

        Scenario apply(Scenario s) {
            LoadProfile l = s.load();
            if (rate != null) {
                l = l.withRate(rate);
            }
            l = l.withTimes(duration != null ? UacCommand.seconds("--duration", duration) : l.duration(),
                    warmup != null ? UacCommand.seconds("--warmup", warmup) : l.warmup());
            if (ramp != null) {
                String[] p = ramp.split(":");
                if (p.length < 3 || p.length > 4) {
                    throw new IllegalArgumentException("--ramp: \"" + ramp + "\" (expected START:STEP:SECONDS[:MAX])");
                }
                try {
                    LoadProfile.Ramp r = l.ramp();
                    l = l.withRamp(new LoadProfile.Ramp(Double.parseDouble(p[0]), Double.parseDouble(p[1]),
                            UacCommand.seconds("--ramp", Double.parseDouble(p[2])),
                            p.length == 4 ? Double.parseDouble(p[3]) : r.max(), r.refine(), r.budget(), r.maxMedianMs()));
                } catch (NumberFormatException e) {
                    throw new IllegalArgumentException("--ramp: \"" + ramp + "\" (expected numbers)", e);
                }
            }
            if (rampMaxMedianMs != null) {
                l = l.withRamp(l.ramp().withMaxMedianMs(rampMaxMedianMs));
            }
            s = s.withLoad(l);
            if (repeat != null) {
                s = s.withRepeat(repeat);
            }
            if (generators != null) {
                s = s.withGenerators(generators);
            }
            if (idleConnections != null) {
                s = s.withIdleConnections(idleConnections);
            }
            return s;
        }

        Integer execute(LabCommand command, List<Scenario> list, List<String> ciphersAsked)
                throws Exception {
            PrintWriter out = command.out();
            Path dir = this.out;
            if (dir == null) {
                dir = Path.of("lab-results", String.join("+", list.stream().map(Scenario::name).toList()) + "-"
                        + LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss", Locale.ROOT)));
            }
            List<Run> runs = new ArrayList<>();
            PeakFraction fraction;
            try {
                fraction = peakFraction();
                List<ServerUnderTest> suts = new ArrayList<>();
                for (String name : sut) {
                    suts.add(ServerUnderTest.parse(name));
                }
                ScenarioRunner.Options base = new ScenarioRunner.Options(workDir != null ? workDir : dir.resolve("work"),
                        external(), quiet ? line -> { } : line -> {
                            out.println(line);
                            out.flush();
                        }, Duration.ofSeconds(1), CpuPinning.plan(pin), suts.get(0), freshServers,
                        UacCommand.delay("--one-way-delay", oneWayDelay), null);
                runs.addAll(plan(list, ciphersAsked, suts, base));
            } catch (IllegalArgumentException e) {
                throw command.badArgument(e.getMessage(), e);
            }
            boolean fixed = rate != null || !findPeak;
            List<Study> studies = new ArrayList<>();
            // SunJSSE reads its refusal of RC4 and 3DES (and of static RSA key exchange) at its first use
            // in this JVM: when any study compares one of them, it is lifted before the first study,
            // not when that study comes
            if (runs.stream().anyMatch(r -> ScenarioRunner.comparesInsecureSuites(r.ciphers()))) {
                JdkInsecureSuites.allow();
            }
            for (Run r : runs) {
                ScenarioRunner.allowStaticRsa(r.ciphers(), r.options().handshake());
            }
            try (ResultStore store = db.open()) {
                for (Run r : runs) {
                    Study study = new ScenarioRunner(r.scenario(), r.options()).compare(r.ciphers(), fixed, findPeak,
                            fraction);
                    studies.add(study.withId(store.save(study)));
                }
            }
            return LabReports.write(studies, dir, out) ? 0 : 1;
        }

        /** The handshake of {@code --tls-version}, {@code --kx}, {@code --cert} and {@code --resumption}. */
        Handshake handshake() {
            return Handshake.parse(tlsVersion != null ? tlsVersion : "1.2", kx != null ? kx : "rsa",
                    cert != null ? cert : Handshake.Certificate.RSA2048.configName(), resumption);
        }

        /** Whether any of the single handshake options was given. */
        private boolean singleHandshake() {
            return tlsVersion != null || kx != null || cert != null || resumption != null;
        }

        /**
         * Every study to run, servers under test outermost, then scenarios, then handshake combinations
         * ({@code --handshakes}, else the scenario's {@code handshakes:} unless a single option is given,
         * else the single options), all checked before anything starts: a cipher a combination cannot
         * run is skipped for that combination (said on a progress line and in the reports), a combination
         * that none can run refused, as the single handshake refuses what it cannot run.
         *
         * @throws IllegalArgumentException naming the option and what cannot run
         */
        List<Run> plan(List<Scenario> list, List<String> ciphersAsked, List<ServerUnderTest> suts,
                       ScenarioRunner.Options base) {
            if (handshakes != null && singleHandshake()) {
                throw new IllegalArgumentException(HandshakeMatrix.OPTION + ": not with --tls-version, --kx, --cert or"
                        + " --resumption (each combination names its own: VERSION/KX[/CERT[/RESUMPTION]])");
            }
            List<Handshake> asked = handshakes != null ? HandshakeMatrix.parse(handshakes) : null;
            List<Run> runs = new ArrayList<>();
            for (Scenario s : list) {
                List<String> c = ciphersAsked != null ? ciphersAsked : s.ciphers();
                boolean matrix = asked != null || (!singleHandshake() && !s.handshakes().isEmpty());
                List<Handshake> combinations = asked != null ? asked : matrix ? fromFile(s) : List.of(handshake());
                for (Handshake h : combinations) {
                    List<String> refusedBy = new ArrayList<>();
                    for (ServerUnderTest server : suts) {
                        ScenarioRunner.Options ro = base.withSut(server).withHandshake(h);
                        String kamailio = server == ServerUnderTest.KAMAILIO && ro.external() == null
                                ? KamailioServer.refusal(h) : null;
                        if (!matrix) {
                            if (kamailio != null) {
                                throw new IllegalArgumentException("--sut kamailio: " + kamailio);
                            }
                            h.check(c, s.server());
                            ScenarioRunner.checkTransports(s, c, ro);
                            runs.add(new Run(s, ro, c));
                            continue;
                        }
                        if (kamailio != null) {
                            refusedBy.add("kamailio: " + kamailio);
                            ro.progress().accept(s.name() + " " + HandshakeMatrix.text(h) + " on kamailio: skipped: "
                                    + kamailio);
                            continue;
                        }
                        HandshakeMatrix.Combination plan = HandshakeMatrix.plan(h, c, s);
                        ScenarioRunner.checkTransports(s, plan.runnable(), ro);
                        for (String note : plan.notes()) {
                            ro.progress().accept(s.name() + " " + HandshakeMatrix.text(h) + ": skipped " + note);
                        }
                        runs.add(new Run(s, ro, plan.runnable()));
                    }
                    if (refusedBy.size() == suts.size()) {
                        throw new IllegalArgumentException(HandshakeMatrix.OPTION + ": " + HandshakeMatrix.text(h)
                                + " runs on none of --sut: " + String.join("; ", refusedBy));
                    }
                }
            }
            // servers under test outermost, as each is measured over the whole comparison in turn
            List<Run> ordered = new ArrayList<>();
            for (ServerUnderTest server : suts) {
                runs.stream().filter(r -> r.options().sut() == server).forEach(ordered::add);
            }
            return ordered;
        }

        /** A scenario's {@code handshakes:} list, its errors naming the scenario's key. */
        private static List<Handshake> fromFile(Scenario s) {
            try {
                return HandshakeMatrix.parse(s.handshakes());
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(s.name() + ": handshakes: " + e.getMessage(), e);
            }
        }

        /**
         * One study to run: a scenario on one server under test under one handshake, and the compared
         * names it runs.
         * Threading: immutable.
         */
        record Run(Scenario scenario, ScenarioRunner.Options options, List<String> ciphers) {
        }

        private ExternalTarget external() {
            if (target == null) {
                return null;
            }
            InetSocketAddress a = UacCommand.hostPort("--target", target);
            return new ExternalTarget(a, serverPid, uasPort);
        }
    }
}
