package org.sipcrypt.lab.report;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.sipcrypt.lab.report.Stats.Estimate;
import org.sipcrypt.lab.runner.PointRun;
import org.sipcrypt.lab.runner.ServerHandshakes;

/**
 * Each cipher's server CPU per call as a ratio to the {@value #BASELINE} baseline's in the same round
 * (repetition) of the same scenario: the figure the reports rank ciphers by. A comparison measures
 * every cipher once per round, the rounds one after the other, so what shifts the machine's speed
 * from one round to the next (its clock, its neighbours) moves a cipher's point and tcp's point of
 * that round together and cancels in their ratio, where it widens the interval of the CPU per call
 * itself. With {@code compare --fresh-servers} every point ran in a server JVM of its own, so the
 * spread of the ratios over the rounds, and with it their interval, also holds what differs from one
 * server JVM to the next; on one warm server per cipher it does not.
 * <p>
 * A round counts for a cipher when its fixed-rate point and tcp's are both valid with a known CPU
 * per call; the estimate is the mean of the counted rounds' ratios with Student's t interval over
 * them (n − 1 degrees of freedom). tcp's own ratio is 1 in every round it counts.
 * Threading: immutable (static functions only).
 */
final class SameRoundRatios {

    /** The baseline every ratio is taken to. */
    static final String BASELINE = "tcp";

    private SameRoundRatios() {
    }

    /**
     * The ratio of {@code p}'s server CPU per call to that of the {@value #BASELINE} point of the same
     * scenario and round among {@code points}; NaN when either does not count (a ramp's step, an
     * invalid point, an unknown CPU per call, no baseline point in that round).
     */
    static double of(PointRun p, List<PointRun> points) {
        if (!counts(p)) {
            return Double.NaN;
        }
        PointRun b = baselineOf(p, points);
        return b == null ? Double.NaN : p.server().cpuMicrosPerCall() / b.server().cpuMicrosPerCall();
    }

    /**
     * Per cipher among {@code points} (fixed-rate points of one scenario), the mean and interval of its
     * ratios over the rounds that count; a cipher without such a round is absent, and so is every
     * cipher when there is no counted {@value #BASELINE} point.
     */
    static Map<String, Estimate> perCipher(List<PointRun> points) {
        Map<String, List<Double>> ratios = new LinkedHashMap<>();
        for (PointRun p : points) {
            double r = of(p, points);
            if (Double.isFinite(r)) {
                ratios.computeIfAbsent(p.cipher(), k -> new ArrayList<>()).add(r);
            }
        }
        Map<String, Estimate> out = new LinkedHashMap<>();
        ratios.forEach((cipher, values) -> out.put(cipher, Stats.estimate(values)));
        return out;
    }

    /**
     * Per cipher among {@code points} (fixed-rate points of one scenario), an estimate of the server's
     * CPU per TLS handshake: in each round that counts, (the cipher's CPU per call − the
     * {@value #BASELINE} point's CPU per call) / the server's handshakes per call in the cipher's point
     * (the generator's connections' handshakes and the server's own to the UAS, over the completed
     * calls), then the mean and interval over those rounds. The difference also holds what the cipher's
     * records cost over plaintext, so on a scenario with a full handshake per call it is an upper bound
     * of the handshake's own cost. A cipher without handshakes in a round (a baseline) has no figure.
     */
    static Map<String, Estimate> perHandshake(List<PointRun> points) {
        Map<String, List<Double>> values = new LinkedHashMap<>();
        for (PointRun p : points) {
            PointRun b = perHandshakeBaseline(p, points);
            if (b != null) {
                double perCall = p.serverHandshakes().total() / (double) p.uac().completed();
                values.computeIfAbsent(p.cipher(), k -> new ArrayList<>())
                        .add((p.server().cpuMicrosPerCall() - b.server().cpuMicrosPerCall()) / perCall);
            }
        }
        Map<String, Estimate> out = new LinkedHashMap<>();
        values.forEach((cipher, v) -> out.put(cipher, Stats.estimate(v)));
        return out;
    }

    /**
     * Per cipher among {@code points}, the server's handshakes by side and kind summed over the points
     * {@link #perHandshake} divides by: what its estimate is an estimate of ({@link ServerHandshakes#kind()}).
     */
    static Map<String, ServerHandshakes> perHandshakeKinds(List<PointRun> points) {
        Map<String, ServerHandshakes> out = new LinkedHashMap<>();
        for (PointRun p : points) {
            if (perHandshakeBaseline(p, points) != null) {
                out.merge(p.cipher(), p.serverHandshakes(), ServerHandshakes::plus);
            }
        }
        return out;
    }

    /**
     * The baseline point {@code p}'s CPU per handshake is taken against, or null when {@code p} has no
     * such figure: a baseline itself, not counted, no completed call or handshake, no baseline point.
     */
    private static PointRun perHandshakeBaseline(PointRun p, List<PointRun> points) {
        if (p.cipher().equals(BASELINE) || !counts(p) || p.uac().completed() <= 0 || p.serverHandshakes().total() <= 0) {
            return null;
        }
        return baselineOf(p, points);
    }

    /** The {@value #BASELINE} point of {@code p}'s scenario and round that counts, or null. */
    private static PointRun baselineOf(PointRun p, List<PointRun> points) {
        for (PointRun b : points) {
            if (b.cipher().equals(BASELINE) && b.scenario().equals(p.scenario()) && b.repetition() == p.repetition()
                    && counts(b)) {
                return b;
            }
        }
        return null;
    }

    private static boolean counts(PointRun p) {
        return Aggregate.FIXED.equals(p.mode()) && p.invalid() == null && p.server().cpuMicrosPerCall() > 0;
    }
}
