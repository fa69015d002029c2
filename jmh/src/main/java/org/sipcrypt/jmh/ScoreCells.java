package org.sipcrypt.jmh;

import java.util.Locale;
import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.results.RunResult;

/**
 * How the summary shows a JMH score: as nanoseconds per operation whatever mode and unit it was
 * measured in, operations per second, MB/s of payload (1 MB = 10^6 bytes), JMH's error as a share of
 * the score, and numbers and ratios to about three significant figures; "—" for a result that is
 * missing, "n/a" for one that cannot be computed.
 * Threading: stateless.
 */
final class ScoreCells {

    /** One MB: 10^6 bytes. */
    static final double MB = 1e6;

    private ScoreCells() {
    }

    /** A score as nanoseconds per operation, whatever mode and unit it was measured in. */
    static double nanosPerOp(Result<?> r) {
        String unit = r.getScoreUnit();
        if (unit.endsWith("/op")) {
            return r.getScore() * nanos(unit.substring(0, unit.length() - 3));
        }
        if (unit.startsWith("ops/")) {
            return nanos(unit.substring(4)) / r.getScore();
        }
        throw new IllegalArgumentException("cannot read a time per operation from the unit \"" + unit + "\"");
    }

    private static double nanos(String timeUnit) {
        return switch (timeUnit) {
            case "ns" -> 1;
            case "us" -> 1e3;
            case "ms" -> 1e6;
            case "s" -> 1e9;
            case "min" -> 60e9;
            case "hr" -> 3600e9;
            default -> throw new IllegalArgumentException("unknown JMH time unit \"" + timeUnit + "\"");
        };
    }

    static String nsCell(RunResult r) {
        return r == null ? "—" : num(nanosPerOp(r.getPrimaryResult())) + err(r.getPrimaryResult());
    }

    static String opsCell(RunResult r) {
        return r == null ? "—" : rate(1e9 / nanosPerOp(r.getPrimaryResult()));
    }

    static String mbCell(RunResult r, int bytes) {
        return r == null ? "—" : num(bytes / nanosPerOp(r.getPrimaryResult()) * 1e9 / MB);
    }

    static String err(Result<?> r) {
        double rel = r.getScoreError() / r.getScore();
        return Double.isNaN(rel) || Double.isInfinite(rel) ? "" : String.format(Locale.ROOT, " ±%.0f%%", rel * 100);
    }

    /** Three significant figures or so, thousands separated. */
    static String num(double v) {
        if (Double.isNaN(v) || Double.isInfinite(v)) {
            return "n/a";
        }
        double a = Math.abs(v);
        String f = a >= 100 ? "%,.0f" : a >= 10 ? "%.1f" : a >= 1 ? "%.2f" : "%.3f";
        return String.format(Locale.ROOT, f, v);
    }

    static String rate(double perSecond) {
        return num(perSecond);
    }

    /** Two decimals, three below 0.1, so that small ratios do not show as zero. */
    static String ratio(double v) {
        if (Double.isNaN(v) || Double.isInfinite(v)) {
            return "n/a";
        }
        return String.format(Locale.ROOT, Math.abs(v) >= 0.1 ? "%.2f" : "%.3f", v);
    }
}
