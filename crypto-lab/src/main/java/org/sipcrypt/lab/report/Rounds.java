package org.sipcrypt.lab.report;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import org.sipcrypt.lab.report.Stats.Estimate;

/**
 * The interval of each cipher's mean within one comparison, with the machine's drift between rounds
 * taken out. A comparison measures every cipher once per round (repetition), the rounds one after the
 * other; when the machine is slower during a round (its clock, its neighbours), every cipher measured
 * in that round costs more by about the same factor. That factor is the round's, not any cipher's:
 * a randomized complete block design, with rounds as blocks, estimates it from all ciphers of the round
 * (on logarithms, since a slower machine scales a cost rather than adding to it) and divides it out
 * before each cipher's spread is taken. What is left is the cipher's own window-to-window noise, which
 * is what decides whether two ciphers can be told apart in this comparison. It is not an interval for
 * another day on another machine: the drift between comparisons stays, and a report shows the plain
 * interval over windows beside it.
 * <p>
 * Only complete rounds count (every cipher valid in them); a cipher valid in too few rounds to leave
 * two complete ones is left out. With fewer than two ciphers there is nothing to take out and no
 * estimate. The price of the method: each round's factor holds 1/k of every cipher's own noise, so
 * with few ciphers one noisy cipher widens the others' intervals.
 * Threading: immutable (static functions only).
 */
final class Rounds {

    private Rounds() {
    }

    /**
     * Per cipher, its mean over the complete rounds and the interval of that mean with the rounds'
     * common factors divided out; ciphers absent when nothing can be estimated.
     *
     * @param values per cipher, its value (above 0) per round; a round missing for a cipher is not
     *               complete
     */
    static Map<String, Estimate> withinRun(Map<String, Map<Integer, Double>> values) {
        Map<String, TreeSet<Integer>> valid = new LinkedHashMap<>();
        values.forEach((cipher, byRound) -> {
            TreeSet<Integer> rounds = new TreeSet<>();
            byRound.forEach((round, v) -> {
                if (v != null && v > 0 && Double.isFinite(v)) {
                    rounds.add(round);
                }
            });
            valid.put(cipher, rounds);
        });
        // a cipher valid in too few rounds leaves no two complete ones: it is left out (its own
        // estimate stays the plain one) rather than taking the others' rounds with it
        while (valid.size() >= 2 && complete(valid).size() < 2) {
            String fewest = valid.entrySet().stream().min(Comparator.comparingInt(e -> e.getValue().size()))
                    .orElseThrow().getKey();
            valid.remove(fewest);
        }
        if (valid.size() < 2) {
            return new LinkedHashMap<>();
        }
        Map<String, Map<Integer, Double>> used = new LinkedHashMap<>();
        valid.keySet().forEach(c -> used.put(c, values.get(c)));
        return estimates(used, new ArrayList<>(complete(valid)));
    }

    /** The rounds in which every cipher is valid. */
    private static TreeSet<Integer> complete(Map<String, TreeSet<Integer>> valid) {
        TreeSet<Integer> out = null;
        for (TreeSet<Integer> rounds : valid.values()) {
            if (out == null) {
                out = new TreeSet<>(rounds);
            } else {
                out.retainAll(rounds);
            }
        }
        return out == null ? new TreeSet<>() : out;
    }

    /** The estimates of ciphers all valid in every one of {@code rounds} (two or more ciphers and rounds). */
    private static Map<String, Estimate> estimates(Map<String, Map<Integer, Double>> values, List<Integer> rounds) {
        Map<String, Estimate> out = new LinkedHashMap<>();
        int k = values.size();
        int n = rounds.size();
        // log y = cipher + round + noise: the cipher's term is its mean log, the round's the mean over
        // ciphers of what is left
        Map<String, Double> cipherLog = new LinkedHashMap<>();
        values.forEach((cipher, byRound) -> cipherLog.put(cipher,
                rounds.stream().mapToDouble(r -> Math.log(byRound.get(r))).average().orElseThrow()));
        double[] roundLog = new double[n];
        for (int i = 0; i < n; i++) {
            int r = rounds.get(i);
            double sum = 0;
            for (Map.Entry<String, Map<Integer, Double>> e : values.entrySet()) {
                sum += Math.log(e.getValue().get(r)) - cipherLog.get(e.getKey());
            }
            roundLog[i] = sum / k;
        }
        // each round's factor includes the cipher's own value (one of k), which shrinks the spread
        // left by a factor √((k−1)/k) under equal noise: undone here
        double widen = Math.sqrt((double) k / (k - 1));
        values.forEach((cipher, byRound) -> {
            double[] raw = new double[n];
            double[] adjusted = new double[n];
            for (int i = 0; i < n; i++) {
                raw[i] = byRound.get(rounds.get(i));
                adjusted[i] = raw[i] * Math.exp(-roundLog[i]);
            }
            double sd = Stats.sampleStdDev(adjusted) * widen;
            out.put(cipher, new Estimate(n, Stats.mean(raw), sd, Stats.t975(n - 1) * sd / Math.sqrt(n)));
        });
        return out;
    }
}
