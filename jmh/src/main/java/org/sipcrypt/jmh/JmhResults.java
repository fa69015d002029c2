package org.sipcrypt.jmh;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import org.openjdk.jmh.infra.BenchmarkParams;
import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.results.RunResult;

/**
 * A run's JMH results, looked up the way the summary asks for them: by simple benchmark class and
 * method ({@code RecordLayerBenchmark.protect}) and parameters by name, the record layer's rows in a
 * fixed provider and engine order, and each handshake side's share from the auxiliary counters.
 * Threading: immutable once built.
 */
final class JmhResults {

    private static final List<String> PROVIDER_ORDER = List.of("aes", "3des", "camellia", "seed", "rc4");
    private static final List<String> ENGINE_ORDER = List.of("jsse", "bc/jca", "bc/bc");

    private final List<RunResult> results;
    private final Map<String, RunResult> byKey = new HashMap<>();

    JmhResults(Collection<RunResult> results) {
        this.results = List.copyOf(results);
        for (RunResult r : results) {
            byKey.put(key(r.getParams()), r);
        }
    }

    /** Every result, in the order JMH gave them. */
    List<RunResult> all() {
        return results;
    }

    /** The record-layer rows and sizes that have a result, providers and engines in a fixed order. */
    List<String[]> rowsAndSizes() {
        TreeMap<String, TreeSet<Integer>> rows = new TreeMap<>(Comparator.comparingInt(JmhResults::rowRank)
                .thenComparing(Comparator.naturalOrder()));
        for (RunResult r : of("RecordLayerBenchmark", null)) {
            rows.computeIfAbsent(r.getParams().getParam("row"), k -> new TreeSet<>())
                    .add(Integer.parseInt(r.getParams().getParam("size")));
        }
        List<String[]> out = new ArrayList<>();
        rows.forEach((row, sizes) -> sizes.forEach(s -> out.add(new String[] {row, Integer.toString(s)})));
        return out;
    }

    private static int rowRank(String row) {
        CipherRow r = CipherRow.parse(row);
        int p = PROVIDER_ORDER.indexOf(r.provider());
        int e = ENGINE_ORDER.indexOf(row.substring(row.indexOf('/') + 1));
        return (p < 0 ? PROVIDER_ORDER.size() : p) * 10 + (e < 0 ? ENGINE_ORDER.size() : e);
    }

    /** The results of one benchmark class, of one method of it or (method null) of all. */
    List<RunResult> of(String benchmarkClass, String method) {
        List<RunResult> found = new ArrayList<>();
        for (RunResult r : results) {
            String[] cm = classAndMethod(r.getParams().getBenchmark());
            if (cm[0].equals(benchmarkClass) && (method == null || cm[1].equals(method))) {
                found.add(r);
            }
        }
        return found;
    }

    /** The result of one benchmark with these parameters ({@code name, value, ...}), or null. */
    RunResult find(String benchmarkClass, String method, String... params) {
        StringBuilder k = new StringBuilder(benchmarkClass).append('.').append(method);
        TreeMap<String, String> sorted = new TreeMap<>();
        for (int i = 0; i < params.length; i += 2) {
            sorted.put(params[i], params[i + 1]);
        }
        sorted.forEach((name, value) -> k.append(' ').append(name).append('=').append(value));
        return byKey.get(k.toString());
    }

    /** {@code RecordLayerBenchmark.protect row=aes/jsse size=400}: simple class, method, parameters by name. */
    static String key(BenchmarkParams p) {
        StringBuilder k = new StringBuilder(simpleName(p.getBenchmark()));
        new TreeSet<String>(p.getParamsKeys()).forEach(name -> k.append(' ').append(name).append('=').append(p.getParam(name)));
        return k.toString();
    }

    /** {@code RecordLayerBenchmark.protect} for {@code org.sipcrypt.jmh.RecordLayerBenchmark.protect}. */
    static String simpleName(String benchmark) {
        String[] cm = classAndMethod(benchmark);
        return cm[0] + "." + cm[1];
    }

    private static String[] classAndMethod(String benchmark) {
        int dot = benchmark.lastIndexOf('.');
        String cls = benchmark.substring(0, dot);
        return new String[] {cls.substring(cls.lastIndexOf('.') + 1), benchmark.substring(dot + 1)};
    }

    /** Nanoseconds per handshake spent on one side, from the auxiliary counters; NaN without them. */
    static double side(RunResult r, String counter) {
        Result<?> nanos = r.getSecondaryResults().get(counter);
        Result<?> count = r.getSecondaryResults().get("handshakes");
        if (nanos == null || count == null || count.getScore() <= 0) {
            return Double.NaN;
        }
        return nanos.getScore() / count.getScore();
    }
}
