package org.sipcrypt.jmh;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Objects;

/**
 * The SIP messages the benchmarks carry, read from {@code /sip/*.sip} in this module's resources
 * (CRLF line ends kept): a REGISTER over TLS of about 400 bytes, an INVITE with an SDP offer of
 * about 1 KB, and the 200 OK answering it through a proxy (two Vias, Record-Route, SDP answer).
 * Threading: immutable (static methods only).
 */
public final class SipMessages {

    /** The message names, as the {@code message} parameter of {@link SipParseBenchmark} takes them. */
    public static final List<String> NAMES = List.of("register", "invite", "ok200");

    private SipMessages() {
    }

    /** The bytes of one message, as they arrive from the network. */
    public static byte[] bytes(String name) {
        if (!NAMES.contains(name)) {
            throw new IllegalArgumentException("unknown SIP message \"" + name + "\" (expected one of " + NAMES + ")");
        }
        String resource = "/sip/" + name + ".sip";
        try (InputStream in = Objects.requireNonNull(SipMessages.class.getResourceAsStream(resource), resource)) {
            return in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + resource, e);
        }
    }

    /**
     * Exactly {@code size} bytes of SIP text for one TLS record: the REGISTER for sizes up to 512,
     * else the INVITE, cut or repeated to the size. The bytes do not change what a cipher costs;
     * the size does.
     */
    public static byte[] payload(int size) {
        if (size < 1 || size > 16_384) {
            throw new IllegalArgumentException("record payload must be 1 to 16384 bytes (one TLS record), not " + size);
        }
        byte[] source = bytes(size <= 512 ? "register" : "invite");
        byte[] out = new byte[size];
        for (int i = 0; i < size; i++) {
            out[i] = source[i % source.length];
        }
        return out;
    }
}
