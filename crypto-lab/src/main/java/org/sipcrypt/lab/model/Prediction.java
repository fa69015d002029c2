package org.sipcrypt.lab.model;

import java.util.Objects;

/**
 * What the {@link CostModel} predicts for one scenario and cipher, and what was measured.
 * Threading: immutable.
 *
 * @param scenario                  scenario name
 * @param cipher                    the cipher, or {@code udp} / {@code tcp}
 * @param fitted                    whether the scenario was used to fit components (its CPU error
 *                                  then says little)
 * @param predictedCpuMicrosPerCall the sum of the scenario's components
 * @param measuredCpuMicrosPerCall  mean over valid repetitions, NaN when not measured
 * @param predictedPeakCps          K / predicted CPU per call, NaN without calibration
 * @param measuredPeakCps           mean over the ramps, NaN without ramps
 */
public record Prediction(String scenario, String cipher, boolean fitted, double predictedCpuMicrosPerCall,
                         double measuredCpuMicrosPerCall, double predictedPeakCps, double measuredPeakCps) {

    public Prediction {
        Objects.requireNonNull(scenario, "scenario");
        Objects.requireNonNull(cipher, "cipher");
    }

    /** (predicted − measured) / measured CPU per call in %, NaN when not measured. */
    public double cpuErrorPct() {
        return errorPct(predictedCpuMicrosPerCall, measuredCpuMicrosPerCall);
    }

    /** (predicted − measured) / measured peak in %, NaN when either is missing. */
    public double peakErrorPct() {
        return errorPct(predictedPeakCps, measuredPeakCps);
    }

    private static double errorPct(double predicted, double measured) {
        return Double.isNaN(predicted) || Double.isNaN(measured) || measured == 0 ? Double.NaN
                : (predicted - measured) / measured * 100;
    }
}
