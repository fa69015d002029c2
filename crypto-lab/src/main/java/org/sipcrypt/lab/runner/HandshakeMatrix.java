package org.sipcrypt.lab.runner;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.sipcrypt.lab.scenario.Leg;
import org.sipcrypt.lab.scenario.Scenario;

/**
 * The handshake combinations of {@code compare --handshakes} (or of a scenario's {@code handshakes:}
 * list), each written {@code VERSION/KX[/CERT[/RESUMPTION]]}: {@code 1.3/ecdhe-p256/ecdsa-p256},
 * the certificate {@code rsa2048} and the resumption the scenario's when left out. Each combination
 * is one study; a compared cipher the combination cannot run ({@link Handshake#check} refuses it:
 * {@code seed} under ECDHE, {@code 3des} under TLS 1.3, {@code chacha20} with RSA key exchange) is
 * skipped for that combination only, and a combination under which no cipher can run is refused.
 * Threading: immutable (static functions only).
 */
public final class HandshakeMatrix {

    /** The option a combination list comes from, as error messages name it. */
    public static final String OPTION = "--handshakes";

    private HandshakeMatrix() {
    }

    /**
     * One combination and what it runs: the compared names it can run, in the order asked, and those it
     * skips with why ({@code chacha20: chacha20 has no suite for TLS 1.2, rsa (a TLS_RSA_WITH_ suite)}).
     * Threading: immutable.
     *
     * @param handshake the combination
     * @param runnable  the compared names it runs
     * @param skipped   compared name to why it is skipped, in the order asked
     */
    public record Combination(Handshake handshake, List<String> runnable, Map<String, String> skipped) {

        public Combination {
            Objects.requireNonNull(handshake, "handshake");
            runnable = List.copyOf(runnable);
            skipped = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(skipped));
        }

        /** The skip notes as the progress lines and reports give them: {@code seed: no suite for ...}. */
        public List<String> notes() {
            List<String> out = new ArrayList<>();
            skipped.forEach((cipher, why) -> out.add(cipher + ": " + why));
            return out;
        }
    }

    /**
     * The combinations of a list, in its order.
     *
     * @param items one combination each, {@code VERSION/KX[/CERT[/RESUMPTION]]}
     * @throws IllegalArgumentException naming {@value #OPTION}, the item and what is wrong with it
     */
    public static List<Handshake> parse(List<String> items) {
        if (items == null || items.isEmpty()) {
            throw new IllegalArgumentException(OPTION + ": expected at least one combination VERSION/KX[/CERT[/RESUMPTION]]");
        }
        List<Handshake> out = new ArrayList<>();
        for (String item : items) {
            Handshake h = parseOne(item);
            if (out.contains(h)) {
                throw new IllegalArgumentException(OPTION + ": \"" + item.trim() + "\" is given twice");
            }
            out.add(h);
        }
        return out;
    }

    /**
     * One combination, {@code VERSION/KX[/CERT[/RESUMPTION]]}.
     *
     * @throws IllegalArgumentException naming {@value #OPTION}, the item and what is wrong with it
     */
    public static Handshake parseOne(String item) {
        Objects.requireNonNull(item, "item");
        String[] p = item.trim().split("/", -1);
        if (p.length < 2 || p.length > 4) {
            throw new IllegalArgumentException(OPTION + ": \"" + item + "\" (expected VERSION/KX[/CERT[/RESUMPTION]],"
                    + " e.g. 1.3/ecdhe-x25519 or 1.2/ecdhe-p256/ecdsa-p256/session-id)");
        }
        try {
            return Handshake.parse(p[0], p[1], p.length > 2 ? p[2] : Handshake.Certificate.RSA2048.configName(),
                    p.length > 3 ? p[3] : null);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(OPTION + ": \"" + item.trim() + "\": " + e.getMessage(), e);
        }
    }

    /**
     * A combination as {@code --handshakes} writes it: {@code 1.2/rsa}, {@code 1.3/ecdhe-p256/ecdsa-p256},
     * {@code 1.2/ecdhe-p256/rsa2048/session-id} (the certificate written when a resumption follows).
     */
    public static String text(Handshake h) {
        String s = h.version() + "/" + h.keyExchange().configName();
        if (h.resumption() != null) {
            return s + "/" + h.certificate().configName() + "/" + h.resumption().configName();
        }
        return h.certificate() == Handshake.Certificate.RSA2048 ? s : s + "/" + h.certificate().configName();
    }

    /**
     * What {@code h} runs of {@code ciphers} on {@code scenario}'s server: each compared name that
     * {@link Handshake#check} takes, the others skipped with its reason.
     *
     * @throws IllegalArgumentException when it can run none of the compared names that are not
     *                                  baselines ({@code udp}, {@code tcp}, {@code ws}), saying why
     */
    public static Combination plan(Handshake h, List<String> ciphers, Scenario scenario) {
        List<String> runnable = new ArrayList<>();
        Map<String, String> skipped = new LinkedHashMap<>();
        for (String c : ciphers) {
            String why = skipReason(h, c, scenario.server());
            if (why == null) {
                runnable.add(c);
            } else {
                skipped.put(c, why);
            }
        }
        if (runnable.stream().noneMatch(c -> !baseline(c))) {
            throw new IllegalArgumentException(OPTION + ": " + text(h) + " on " + scenario.name() + " runs none of --ciphers "
                    + String.join(",", ciphers) + (skipped.isEmpty() ? " but the baselines, which no handshake changes"
                    : ": " + String.join("; ", new Combination(h, runnable, skipped).notes())));
        }
        return new Combination(h, runnable, skipped);
    }

    /**
     * Why {@code h} cannot run one compared name on a server with these settings (the reason
     * {@link Handshake#check} gives), or null when it can.
     */
    public static String skipReason(Handshake h, String compared, Map<String, String> server) {
        try {
            h.check(List.of(compared), server);
            return null;
        } catch (IllegalArgumentException e) {
            return why(compared, e.getMessage());
        }
    }

    /** Whether a compared name is a plaintext baseline, which runs the same under every handshake. */
    public static boolean baseline(String compared) {
        return switch (Leg.comparedTransport(compared)) {
            case TLS, WSS -> false;
            default -> true;
        };
    }

    /**
     * The reason {@link Handshake#check} gave, for one cipher: its list of what else can run (there is
     * none with one cipher) dropped, and the cipher's own name at its start dropped.
     */
    private static String why(String cipher, String message) {
        String m = message;
        String prefix = cipher + ": ";
        if (m.startsWith(prefix)) {
            m = m.substring(prefix.length());
        }
        int rest = m.indexOf("; these can run");
        return rest >= 0 ? m.substring(0, rest) : m;
    }
}
