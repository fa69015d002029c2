package org.sipcrypt.jmh;

import java.io.IOException;
import java.io.PrintStream;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.CodeSource;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.results.format.ResultFormatType;
import org.openjdk.jmh.runner.BenchmarkList;
import org.openjdk.jmh.runner.BenchmarkListEntry;
import org.openjdk.jmh.runner.NoBenchmarksException;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.format.OutputFormatFactory;
import org.openjdk.jmh.runner.options.ChainedOptionsBuilder;
import org.openjdk.jmh.runner.options.CommandLineOptionException;
import org.openjdk.jmh.runner.options.CommandLineOptions;
import org.openjdk.jmh.runner.options.Options;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;
import org.openjdk.jmh.runner.options.VerboseMode;

/**
 * The one command of the benchmarks jar: {@code java -jar jmh/target/benchmarks.jar [OPTIONS] [JMH OPTIONS]}
 * runs the benchmarks (all, or those JMH's own arguments select), writes JMH's JSON to
 * {@code results/results.json} and the Markdown summary to {@code results/summary.md} next to the jar,
 * adds {@code openssl speed} figures when openssl is on the PATH, and prints the summary. The lab
 * certificates are made once and handed to every forked JVM.
 *
 * <p>Options of its own (two dashes): {@code --results DIR}, {@code --no-openssl},
 * {@code --openssl PATH}, {@code --long} (2 forks, 3 warm-up and 5 measurement iterations of 2 s),
 * {@code --help}. Everything else goes to JMH unchanged ({@code -f}, {@code -wi}, {@code -i},
 * {@code -w}, {@code -r}, {@code -p row=aes/bc/jca}, a benchmark regexp, {@code -l}, {@code -h}, ...) and
 * wins over the defaults in the benchmark classes and over {@code --long}.
 * Exit status: 0, 1 when a planned benchmark gave no result, 2 on bad arguments.
 * Threading: main thread only.
 */
public final class BenchmarkMain {

    private BenchmarkMain() {
    }

    public static void main(String... args) throws Exception {
        System.exit(run(args, System.out));
    }

    static int run(String[] args, PrintStream console) throws IOException, RunnerException {
        Path results = null;
        boolean opensslWanted = true;
        String openssl = "openssl";
        boolean longer = false;
        List<String> jmhArgs = new ArrayList<>();
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--results" -> {
                    if (i + 1 == args.length) {
                        console.println("sipcrypt-jmh: --results needs a directory");
                        return 2;
                    }
                    results = Path.of(args[++i]);
                }
                case "--no-openssl" -> opensslWanted = false;
                case "--openssl" -> {
                    if (i + 1 == args.length) {
                        console.println("sipcrypt-jmh: --openssl needs a path");
                        return 2;
                    }
                    openssl = args[++i];
                }
                case "--long" -> longer = true;
                case "--help" -> {
                    console.println(usage());
                    return 0;
                }
                default -> jmhArgs.add(args[i]);
            }
        }
        CommandLineOptions cmd;
        try {
            cmd = new CommandLineOptions(jmhArgs.toArray(new String[0]));
        } catch (CommandLineOptionException e) {
            console.println("sipcrypt-jmh: " + e.getMessage() + "\n" + usage());
            return 2;
        }
        if (cmd.shouldHelp() || cmd.shouldList() || cmd.shouldListWithParams() || cmd.shouldListProfilers()
                || cmd.shouldListResultFormats()) {
            org.openjdk.jmh.Main.main(jmhArgs.toArray(new String[0]));
            return 0;
        }
        if (results == null) {
            results = defaultResults();
        }
        Files.createDirectories(results);
        Path certs = Files.createTempDirectory("sipcrypt-jmh-certs");
        try {
            LabFixture.makeCertificates(certs);
            System.setProperty(LabFixture.CERTS_PROPERTY, certs.toString());
            Options options = options(cmd, results.resolve("results.json"), certs, longer);
            List<String> planned = planned(options);
            Collection<RunResult> ran;
            try {
                ran = new Runner(options).run();
            } catch (NoBenchmarksException e) {
                console.println("sipcrypt-jmh: no benchmark matches " + options.getIncludes() + " (-l lists them)");
                return 2;
            }
            List<String> missing = missing(planned, ran);
            OpensslSpeed.Figures figures = null;
            String absence = "Not measured: `--no-openssl`.";
            if (opensslWanted) {
                console.println("# openssl speed (about 20 s)");
                Optional<OpensslSpeed.Figures> f = OpensslSpeed.measure(recordSizes(ran), openssl);
                figures = f.orElse(null);
                absence = "`" + openssl + "` is not on the PATH: no native comparison.";
            }
            Path summaryFile = results.resolve("summary.md");
            String summary = new MarkdownSummary(ran, missing, figures, absence).write(summaryFile);
            console.println();
            console.println(summary);
            if (!cmd.getResult().hasValue() && !cmd.getResultFormat().hasValue()) {
                console.println("JSON: " + results.resolve("results.json").toAbsolutePath());
            }
            console.println("summary: " + summaryFile.toAbsolutePath());
            return missing.isEmpty() ? 0 : 1;
        } finally {
            LabFixture.deleteTree(certs);
        }
    }

    /** JMH's options: the command line first, then {@code --long}, then the defaults in the classes. */
    static Options options(CommandLineOptions cmd, Path json, Path certs, boolean longer) {
        ChainedOptionsBuilder b = new OptionsBuilder().parent(cmd);
        if (!cmd.getResultFormat().hasValue() && !cmd.getResult().hasValue()) {
            b.resultFormat(ResultFormatType.JSON).result(json.toString());
        }
        List<String> append = new ArrayList<>(cmd.getJvmArgsAppend().orElse(List.of()));
        append.add("-D" + LabFixture.CERTS_PROPERTY + "=" + certs);
        b.jvmArgsAppend(append.toArray(new String[0]));
        if (longer) {
            if (!cmd.getForkCount().hasValue()) {
                b.forks(2);
            }
            if (!cmd.getWarmupIterations().hasValue()) {
                b.warmupIterations(3);
            }
            if (!cmd.getWarmupTime().hasValue()) {
                b.warmupTime(TimeValue.seconds(2));
            }
            if (!cmd.getMeasurementIterations().hasValue()) {
                b.measurementIterations(5);
            }
            if (!cmd.getMeasurementTime().hasValue()) {
                b.measurementTime(TimeValue.seconds(2));
            }
        }
        return b.build();
    }

    /** Every benchmark the options select, with every parameter combination, as {@link MarkdownSummary#key} spells it. */
    static List<String> planned(Options options) {
        List<String> includes = options.getIncludes().isEmpty() ? List.of(".*") : options.getIncludes();
        Set<BenchmarkListEntry> entries = BenchmarkList.defaultList().find(
                OutputFormatFactory.createFormatInstance(System.out, VerboseMode.SILENT), includes, options.getExcludes());
        Set<String> keys = new TreeSet<>();
        for (BenchmarkListEntry e : entries) {
            String base = JmhResults.simpleName(e.getUsername());
            Map<String, List<String>> params = new TreeMap<>();
            e.getParams().orElse(Map.of()).forEach((k, v) -> params.put(k,
                    options.getParameter(k).hasValue() ? List.copyOf(options.getParameter(k).get()) : List.of(v)));
            expand(base, new ArrayList<>(params.entrySet()), 0, keys);
        }
        return List.copyOf(keys);
    }

    private static void expand(String prefix, List<Map.Entry<String, List<String>>> params, int at, Set<String> keys) {
        if (at == params.size()) {
            keys.add(prefix);
            return;
        }
        Map.Entry<String, List<String>> p = params.get(at);
        for (String v : p.getValue()) {
            expand(prefix + " " + p.getKey() + "=" + v, params, at + 1, keys);
        }
    }

    private static List<String> missing(List<String> planned, Collection<RunResult> ran) {
        Set<String> got = new HashSet<>();
        ran.forEach(r -> got.add(JmhResults.key(r.getParams())));
        List<String> out = new ArrayList<>();
        for (String p : planned) {
            if (!got.contains(p)) {
                out.add(p);
            }
        }
        return out;
    }

    /** The record sizes measured, for openssl; the defaults when no record-layer benchmark ran. */
    private static List<Integer> recordSizes(Collection<RunResult> ran) {
        TreeSet<Integer> sizes = new TreeSet<>();
        for (RunResult r : ran) {
            if (r.getParams().getBenchmark().contains(".RecordLayerBenchmark.")) {
                sizes.add(Integer.parseInt(r.getParams().getParam("size")));
            }
        }
        return sizes.isEmpty() ? List.of(400, 1024, 4096) : List.copyOf(sizes);
    }

    /** {@code results/} beside the benchmarks jar; {@code target/results} when run from classes. */
    private static Path defaultResults() {
        CodeSource source = BenchmarkMain.class.getProtectionDomain().getCodeSource();
        if (source != null && source.getLocation() != null) {
            try {
                Path code = Path.of(source.getLocation().toURI());
                if (Files.isRegularFile(code)) {
                    return code.toAbsolutePath().getParent().resolve("results");
                }
            } catch (URISyntaxException e) {
                throw new IllegalStateException("the benchmarks' own location is not a file: " + source.getLocation(), e);
            }
        }
        return Path.of("target", "results");
    }

    private static String usage() {
        return """
                usage: java -jar jmh/target/benchmarks.jar [--results DIR] [--no-openssl] [--openssl PATH] [--long]
                                                           [JMH options] [benchmark regexp]
                  --results DIR   where results.json and summary.md go (default: results/ beside the jar)
                  --no-openssl    skip the openssl speed comparison
                  --openssl PATH  the openssl to run (default: openssl on the PATH)
                  --long          2 forks, 3 warm-up and 5 measurement iterations of 2 s (about 40 minutes)
                  JMH options win over these, e.g. -f 1 -wi 1 -i 1 -w 200ms -r 200ms -p row=aes/bc/jca Handshake;
                  -h lists them, -l lists the benchmarks, -lp with their parameters.""";
    }
}
