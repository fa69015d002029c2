package org.sipcrypt.server.auth;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Arrays;
import java.util.Base64;
import java.util.Objects;
import javax.crypto.Mac;
import org.sipcrypt.server.transport.Flow;
import org.sipcrypt.server.transport.Transport;

/**
 * The flow tokens of an edge proxy (RFC 5626 §5.3) that this proxy puts in its own Record-Route
 * URI, parameter {@value #PARAM}: the flow a dialog-creating request came in on and, when its
 * target was reached over a flow, that flow, each with whether it must be used (a NAT was seen, or
 * the binding is an RFC 5626 outbound one) or may give way to the Request-URI once its connection
 * has gone. An in-dialog request that carries the token back and arrives on one of the two flows
 * goes out over the other.
 *
 * <p>The token is signed with a key derived from the server secret ({@code auth.nonceSecret}, or
 * the random per-start secret): a token is the base64url text (unpadded) of a fixed binary layout
 * followed by the first 16 bytes of its HMAC-SHA256. One canonical encoding only: {@link #read}
 * re-encodes what it decoded and compares the text, so no other spelling of the same bytes, no
 * trailing byte and no altered bit passes. Layout: version 1; flags (bit 0: the inbound flow is
 * required, bit 1: an outbound flow follows, bit 2: it is required); then each flow as transport
 * (0 UDP, 1 TCP, 2 TLS), local address (length 4 or 16, the bytes, the port in two bytes),
 * remote address likewise, and the connection number in eight bytes.
 * Threading: thread-safe; never blocks.
 */
public final class FlowTokens {

    /** The Record-Route URI parameter carrying the token. */
    public static final String PARAM = "sc-flow";

    private static final byte VERSION = 1;
    private static final int MAC_BYTES = 16;
    /** Longest token text: two IPv6 flows. */
    public static final int MAX_CHARS = (2 + 2 * (1 + 2 * (1 + 16 + 2) + 8) + MAC_BYTES + 2) / 3 * 4;
    private static final byte[] LABEL = "sipcrypt flow token v1".getBytes(StandardCharsets.UTF_8);
    private static final Base64.Encoder ENCODER = Base64.getUrlEncoder().withoutPadding();
    private static final Base64.Decoder DECODER = Base64.getUrlDecoder();

    /**
     * What a token says.
     *
     * @param in          the flow the dialog-creating request came in on
     * @param inRequired  whether in-dialog requests towards {@code in} must take it (a NAT was seen)
     * @param out         the flow its target was reached over, or null
     * @param outRequired whether in-dialog requests towards {@code out} must take it
     */
    public record Token(Flow in, boolean inRequired, Flow out, boolean outRequired) {
        public Token {
            Objects.requireNonNull(in, "in");
            if (out == null && outRequired) {
                throw new IllegalArgumentException("outRequired without an outbound flow");
            }
        }

        /**
         * The flow a request that arrived over {@code arrived} must go out on, with whether it is
         * required: the other one of the two; for a token of one flow (the Path entry this server
         * adds to a REGISTER it relays as an edge proxy, RFC 5626 §5.1) that flow, for a request that
         * arrived over any other; null when it arrived over neither of two, or over the one.
         */
        public Token.Leg otherThan(Flow arrived) {
            if (in.sameAs(arrived)) {
                return out == null ? null : new Leg(out, outRequired);
            }
            if (out == null || out.sameAs(arrived)) {
                return new Leg(in, inRequired);
            }
            return null;
        }

        /** One side of the token: a flow and whether it must be used. */
        public record Leg(Flow flow, boolean required) {
        }
    }

    private final HmacSha256 hmac;

    /** @param secret the server secret; a key of its own is derived from it */
    public FlowTokens(byte[] secret) {
        Objects.requireNonNull(secret, "secret");
        if (secret.length < 16) {
            throw new IllegalArgumentException("flow token secret must have at least 16 bytes, not " + secret.length);
        }
        this.hmac = new HmacSha256(secret).derive(LABEL);
    }

    /** The token text for {@code token}. */
    public String write(Token token) {
        ByteBuffer b = ByteBuffer.allocate(MAX_CHARS);
        b.put(VERSION);
        b.put((byte) ((token.inRequired() ? 1 : 0) | (token.out() != null ? 2 : 0) | (token.outRequired() ? 4 : 0)));
        put(b, token.in());
        if (token.out() != null) {
            put(b, token.out());
        }
        byte[] body = Arrays.copyOf(b.array(), b.position());
        byte[] all = Arrays.copyOf(body, body.length + MAC_BYTES);
        System.arraycopy(mac(body), 0, all, body.length, MAC_BYTES);
        return ENCODER.encodeToString(all);
    }

    /** The token {@code text} names, or null when it is not one this server signed, exactly as written. */
    public Token read(String text) {
        if (text == null || text.isEmpty() || text.length() > MAX_CHARS) {
            return null;
        }
        byte[] all;
        try {
            all = DECODER.decode(text);
        } catch (IllegalArgumentException e) {
            return null;
        }
        if (all.length <= MAC_BYTES + 2) {
            return null;
        }
        byte[] body = Arrays.copyOf(all, all.length - MAC_BYTES);
        byte[] given = Arrays.copyOfRange(all, body.length, all.length);
        if (!MessageDigest.isEqual(mac(body), given)) {
            return null;
        }
        Token token;
        try {
            ByteBuffer b = ByteBuffer.wrap(body);
            if (b.get() != VERSION) {
                return null;
            }
            int flags = b.get();
            if ((flags & ~7) != 0) {
                return null;
            }
            Flow in = flow(b);
            Flow out = (flags & 2) != 0 ? flow(b) : null;
            if (in == null || (flags & 2) != 0 && out == null || b.hasRemaining()) {
                return null;
            }
            token = new Token(in, (flags & 1) != 0, out, (flags & 4) != 0);
        } catch (RuntimeException e) {
            return null;
        }
        // the one canonical text: padding, unused bits or another alphabet do not pass
        return write(token).equals(text) ? token : null;
    }

    private byte[] mac(byte[] body) {
        Mac mac = hmac.mac();
        return Arrays.copyOf(mac.doFinal(body), MAC_BYTES);
    }

    private static void put(ByteBuffer b, Flow f) {
        b.put((byte) f.transport().ordinal());
        put(b, f.local());
        put(b, f.remote());
        b.putLong(f.connection());
    }

    private static void put(ByteBuffer b, InetSocketAddress a) {
        byte[] ip = a.getAddress().getAddress();
        b.put((byte) ip.length);
        b.put(ip);
        b.putShort((short) a.getPort());
    }

    /** A flow from the buffer, or null when its fields are not those of a flow. */
    private static Flow flow(ByteBuffer b) {
        int t = b.get();
        if (t < 0 || t >= Transport.values().length) {
            return null;
        }
        InetSocketAddress local = address(b);
        InetSocketAddress remote = address(b);
        long connection = b.getLong();
        if (local == null || remote == null) {
            return null;
        }
        try {
            return new Flow(Transport.values()[t], local, remote, connection);
        } catch (IllegalArgumentException e) {
            return null;
        }
    }

    private static InetSocketAddress address(ByteBuffer b) {
        int length = b.get();
        if (length != 4 && length != 16) {
            return null;
        }
        byte[] ip = new byte[length];
        b.get(ip);
        int port = b.getShort() & 0xffff;
        try {
            return new InetSocketAddress(InetAddress.getByAddress(ip), port);
        } catch (UnknownHostException e) {
            throw new IllegalStateException("4 or 16 bytes are an IP address", e);
        }
    }

    /** Never shows the key. */
    @Override
    public String toString() {
        return "FlowTokens[param=" + PARAM + "]";
    }
}
