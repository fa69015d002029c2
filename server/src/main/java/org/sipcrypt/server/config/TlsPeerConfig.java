package org.sipcrypt.server.config;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import org.sipcrypt.server.tls.spi.TlsEngine;

/**
 * TLS settings for connections the proxy opens to one peer ({@code tls.peer}), overriding the
 * {@code tls.*} settings for that host and port only: {@code HOST:PORT;engine=bc;ciphers=seed+aes;
 * crypto=bc;versions=1.2;cert=FILE;key=FILE;trust=FILE;reuse=off;verify=off}. Lists inside an
 * entry are joined with {@code +} (commas separate entries). A null component inherits.
 * Threading: immutable.
 */
public record TlsPeerConfig(HostPort peer, TlsEngine engine, List<String> ciphers, List<String> crypto,
                            List<String> versions, Path cert, Path key, Path trust, Boolean sessionReuse,
                            Boolean verifyPeers) {

    public TlsPeerConfig {
        Objects.requireNonNull(peer, "peer");
        if (peer.port() <= 0) {
            throw new IllegalArgumentException("tls.peer \"" + peer.host() + "\" needs a port (HOST:PORT)");
        }
    }

    /** Parses one entry; a bad one names the part at fault. */
    public static TlsPeerConfig parse(String text) {
        String[] parts = text.trim().split(";");
        HostPort peer = HostPort.parse(parts[0].trim(), -1);
        TlsEngine engine = null;
        List<String> ciphers = null;
        List<String> crypto = null;
        List<String> versions = null;
        Path cert = null;
        Path key = null;
        Path trust = null;
        Boolean reuse = null;
        Boolean verify = null;
        for (int i = 1; i < parts.length; i++) {
            String p = parts[i].trim();
            int eq = p.indexOf('=');
            if (eq <= 0) {
                throw new IllegalArgumentException("\"" + p + "\" is not NAME=VALUE");
            }
            String name = p.substring(0, eq).trim().toLowerCase(Locale.ROOT);
            String value = p.substring(eq + 1).trim();
            switch (name) {
                case "engine" -> engine = engine(value);
                case "ciphers" -> ciphers = list(value);
                case "crypto" -> crypto = list(value);
                case "versions" -> versions = list(value);
                case "cert" -> cert = Path.of(value);
                case "key" -> key = Path.of(value);
                case "trust" -> trust = Path.of(value);
                case "reuse" -> reuse = onOff(name, value);
                case "verify" -> verify = onOff(name, value);
                default -> throw new IllegalArgumentException("unknown parameter \"" + name
                        + "\" (expected engine, ciphers, crypto, versions, cert, key, trust, reuse or verify)");
            }
        }
        return new TlsPeerConfig(peer, engine, ciphers, crypto, versions, cert, key, trust, reuse, verify);
    }

    private static TlsEngine engine(String value) {
        for (TlsEngine e : TlsEngine.values()) {
            if (e.configName().equalsIgnoreCase(value)) {
                return e;
            }
        }
        throw new IllegalArgumentException("engine \"" + value + "\" is not bc, jsse or openssl");
    }

    private static List<String> list(String value) {
        List<String> out = new ArrayList<>(Arrays.asList(value.split("\\+")));
        out.replaceAll(String::trim);
        out.removeIf(String::isEmpty);
        if (out.isEmpty()) {
            throw new IllegalArgumentException("empty list \"" + value + "\"");
        }
        return List.copyOf(out);
    }

    private static boolean onOff(String name, String value) {
        return switch (value.toLowerCase(Locale.ROOT)) {
            case "on", "true", "yes" -> true;
            case "off", "false", "no" -> false;
            default -> throw new IllegalArgumentException(name + " \"" + value + "\" is not on or off");
        };
    }

    /** The settings for this peer: {@code base} with this entry's parameters in place of its own. */
    public TlsConfig applyTo(TlsConfig base) {
        return base.toBuilder().peers(List.of()).domains(List.of()).cert(or(cert, base.cert())).key(or(key, base.key()))
                .trust(or(trust, base.trust())).ciphers(or(ciphers, base.ciphers())).engine(or(engine, base.engine()))
                .crypto(or(crypto, base.crypto())).sessionReuse(or(sessionReuse, base.sessionReuse()))
                .verifyPeers(or(verifyPeers, base.verifyPeers())).versions(or(versions, base.versions())).build();
    }

    /** This entry's value where it has one, else the inherited one. */
    private static <T> T or(T own, T inherited) {
        return own != null ? own : inherited;
    }

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder(peer.toString());
        if (engine != null) {
            sb.append(";engine=").append(engine.configName());
        }
        append(sb, "ciphers", ciphers);
        append(sb, "crypto", crypto);
        append(sb, "versions", versions);
        if (cert != null) {
            sb.append(";cert=").append(cert);
        }
        if (key != null) {
            sb.append(";key=").append(key);
        }
        if (trust != null) {
            sb.append(";trust=").append(trust);
        }
        if (sessionReuse != null) {
            sb.append(";reuse=").append(sessionReuse ? "on" : "off");
        }
        if (verifyPeers != null) {
            sb.append(";verify=").append(verifyPeers ? "on" : "off");
        }
        return sb.toString();
    }

    private static void append(StringBuilder sb, String name, List<String> values) {
        if (values != null) {
            sb.append(';').append(name).append('=').append(String.join("+", values));
        }
    }
}
