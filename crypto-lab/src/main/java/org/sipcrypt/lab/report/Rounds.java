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
 * other. When something shifts during a round (the machine's clock or neighbours, the generator's
 * timing on its own CPU), the ciphers measured in that round move together, though not all by as
 * much: in the main command's runs the plaintext and AES points moved by 15-25 % in a bad round, 3DES,
 * whose cost is mostly its own arithmetic, by 3 %. So each cipher's values are regressed on the
 * round's shift as the other ciphers show it (the mean, over the other ciphers, of their log value
 * less their mean log value: the cipher's own noise stays out of it), with a slope of its own, and
 * the interval of its mean is taken from what the regression leaves (Student's t with n − 2 degrees
 * of freedom, s/√n at the mean shift): regression adjustment with a control variate. A cipher the
 * shifts do not move keeps about its plain interval; one they move loses what they explain. It is
 * not an interval for another run: what differs from one server JVM to the next, and the drift
 * between comparisons, stay outside it, and a report shows the plain interval over windows beside it.
 * <p>
 * Only complete rounds count (every cipher valid in them), and at least {@link #MIN_ROUNDS} of them; a
 * cipher valid in too few rounds to leave that many complete ones is left out (its own estimate stays
 * the plain one). With fewer than two ciphers there is no shift to read and no estimate.
 * Threading: immutable (static functions only).
 */
final class Rounds {

    /**
     * Complete rounds needed. A mean and a slope leave n − 2 degrees of freedom for the interval; with
     * three rounds that is one (t = 12.7), and the interval came out wider than the plain one over
     * the same windows (±236 % against ±57 % in a three-round study), so below five rounds (t = 3.18)
     * the plain interval stands.
     */
    static final int MIN_ROUNDS = 5;

    private Rounds() {
    }

    /**
     * Per cipher, its mean over the complete rounds and the interval of that mean with the rounds'
     * shifts regressed out; ciphers absent when nothing can be estimated.
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
        // a cipher valid in too few rounds leaves too few complete ones: it is left out (its own
        // estimate stays the plain one) rather than taking the others' rounds with it
        while (valid.size() >= 2 && complete(valid).size() < MIN_ROUNDS) {
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

    /** The estimates of ciphers all valid in every one of {@code rounds} (two or more ciphers, {@link #MIN_ROUNDS} or more rounds). */
    private static Map<String, Estimate> estimates(Map<String, Map<Integer, Double>> values, List<Integer> rounds) {
        int n = rounds.size();
        Map<String, double[]> residualLog = new LinkedHashMap<>();
        values.forEach((cipher, byRound) -> {
            double[] logs = new double[n];
            for (int i = 0; i < n; i++) {
                logs[i] = Math.log(byRound.get(rounds.get(i)));
            }
            double mean = Stats.mean(logs);
            for (int i = 0; i < n; i++) {
                logs[i] -= mean;
            }
            residualLog.put(cipher, logs);
        });
        Map<String, Estimate> out = new LinkedHashMap<>();
        values.forEach((cipher, byRound) -> {
            double[] y = new double[n];
            double[] shift = new double[n];
            for (int i = 0; i < n; i++) {
                y[i] = byRound.get(rounds.get(i));
                for (Map.Entry<String, double[]> other : residualLog.entrySet()) {
                    if (!other.getKey().equals(cipher)) {
                        shift[i] += other.getValue()[i];
                    }
                }
                shift[i] /= values.size() - 1;
            }
            double my = Stats.mean(y);
            double mx = Stats.mean(shift);
            double sxx = 0;
            double sxy = 0;
            for (int i = 0; i < n; i++) {
                sxx += (shift[i] - mx) * (shift[i] - mx);
                sxy += (shift[i] - mx) * (y[i] - my);
            }
            double slope = sxx > 0 ? sxy / sxx : 0;
            double squares = 0;
            for (int i = 0; i < n; i++) {
                double r = y[i] - my - slope * (shift[i] - mx);
                squares += r * r;
            }
            double s = Math.sqrt(squares / (n - 2));
            out.put(cipher, new Estimate(n, my, s, Stats.t975(n - 2) * s / Math.sqrt(n)));
        });
        return out;
    }
}
