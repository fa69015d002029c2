package org.sipcrypt.lab.runner;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.List;
import java.util.Objects;
import org.sipcrypt.lab.metrics.RunSummary;

/**
 * One measured point: a scenario with one cipher (a provider name, or {@code udp}/{@code tcp} for a
 * plaintext baseline) at one offered rate, one repetition; the calls as the UAC side saw them, the
 * right leg as the UAS side saw it, the server measured from outside, and the lab's own CPU per call.
 * Its JSON also holds {@link #serverHandshakes()} and {@link #serverHandshakesPerCall()}, made from
 * the components and so ignored when read back.
 * Threading: immutable.
 *
 * @param scenario       scenario name
 * @param cipher         the cipher compared, or {@code udp} / {@code tcp}
 * @param mode           {@code fixed} (a run at the scenario's rate) or {@code step} (one step of a ramp)
 * @param repetition     1-based repetition of the point
 * @param rate           calls (or operations) per second offered
 * @param uac            the generator's summary, merged over its processes
 * @param uasHandshakes  TLS handshakes the UAS side completed (the proxy's client handshakes)
 * @param uasResumed     of them resumed
 * @param uasBytes       bytes the UAS side sent and received
 * @param server         the server's CPU and heap
 * @param labCpu         the generator's and the UAS's CPU per call ({@link RoleCpu#UNKNOWN} when a
 *                       point stored without it is read back)
 * @param samples        per-interval samples, warm-up included
 * @param invalid        why the point says nothing about the server (a saturated generator), or null
 */
@JsonIgnoreProperties(value = {"serverHandshakes", "serverHandshakesPerCall"}, allowGetters = true)
public record PointRun(String scenario, String cipher, String mode, int repetition, double rate, RunSummary uac,
                       long uasHandshakes, long uasResumed, long uasBytes, ServerSample server, RoleCpu labCpu,
                       List<Sample> samples, String invalid) implements ScenarioCipher {

    public PointRun {
        Objects.requireNonNull(scenario, "scenario");
        Objects.requireNonNull(cipher, "cipher");
        Objects.requireNonNull(mode, "mode");
        Objects.requireNonNull(uac, "uac");
        Objects.requireNonNull(server, "server");
        // results.json and database rows written before the lab measured its roles have no labCpu
        labCpu = labCpu == null ? RoleCpu.UNKNOWN : labCpu;
        samples = List.copyOf(samples);
    }

    /** A point whose generator's and UAS's CPU are not known. */
    public PointRun(String scenario, String cipher, String mode, int repetition, double rate, RunSummary uac,
                    long uasHandshakes, long uasResumed, long uasBytes, ServerSample server, List<Sample> samples,
                    String invalid) {
        this(scenario, cipher, mode, repetition, rate, uac, uasHandshakes, uasResumed, uasBytes, server,
                RoleCpu.UNKNOWN, samples, invalid);
    }

    /** Completed calls per second over the measured part. */
    public double completedPerSecond() {
        return uac.seconds() > 0 ? uac.completed() / uac.seconds() : 0;
    }

    /** Signalling on the UAC leg, both directions, in kbit/s. */
    public double kbps() {
        return uac.seconds() > 0 ? (uac.bytesSent() + uac.bytesReceived()) * 8 / 1000.0 / uac.seconds() : 0;
    }

    /** TLS handshakes per second on both legs. */
    public double handshakesPerSecond() {
        return uac.seconds() > 0 ? (uac.handshakes() + uasHandshakes) / uac.seconds() : 0;
    }

    /** Resumed handshakes in % of all on both legs, -1 without handshakes. */
    public double resumptionPct() {
        long all = uac.handshakes() + uasHandshakes;
        return all == 0 ? -1 : (uac.resumed() + uasResumed) * 100.0 / all;
    }

    /**
     * The server's TLS handshakes by the side it took and kind (as TLS server: the generator's;
     * as TLS client: the UAS's), over the measured part.
     */
    @JsonProperty("serverHandshakes")
    public ServerHandshakes serverHandshakes() {
        return ServerHandshakes.of(this);
    }

    /** {@link #serverHandshakes()} per completed call, -1 each when no call completed. */
    @JsonProperty("serverHandshakesPerCall")
    public ServerHandshakes.PerCall serverHandshakesPerCall() {
        return serverHandshakes().perCall(uac.completed());
    }

    /** Whether the point counts: a valid run whose failures stayed within the threshold. */
    public boolean passed() {
        return invalid == null && uac.passed();
    }
}
