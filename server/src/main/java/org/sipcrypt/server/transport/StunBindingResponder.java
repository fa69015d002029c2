package org.sipcrypt.server.transport;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.Locale;
import java.util.Objects;
import java.util.zip.CRC32;

/**
 * Answers the STUN keep-alive of a SIP UDP flow (RFC 5626 §3.5.1, §4.4.2, §8): a STUN Binding
 * request (RFC 5389) that arrives on the SIP port gets a Binding success response carrying the
 * request's source as XOR-MAPPED-ADDRESS (RFC 5389 §15.2), and FINGERPRINT when the request had one
 * (§15.5). Nothing else is answered: other methods and classes, RFC 3489 requests (no magic cookie),
 * malformed messages and requests with a comprehension-required attribute this server does not
 * understand are dropped and reported by an {@link Outcome}. For the last, RFC 5389 §7.3.1 asks for
 * a 420 error; a keep-alive never carries such an attribute (RFC 5626 §8 sends a bare Binding
 * request), so the smaller and safer choice is made: no answer, which the client treats as a failed
 * transaction.
 * <p>
 * Bound: an answer is one datagram of at most {@link #MAX_ANSWER_BYTES} (52) bytes, to a request of
 * at least 20 bytes: header 20, XOR-MAPPED-ADDRESS 12 (IPv4) or 24 (IPv6), FINGERPRINT 8 (only when
 * the request, then at least 28 bytes, had one). So an answer is at most 24 bytes longer than its
 * request, never more than one datagram, and never grows with the request: no amplification past
 * those 24 bytes.
 * <p>
 * Reads the request in place (absolute reads; the buffer's position and limit are restored) and
 * writes the answer into one array kept by the instance: answering allocates only the source
 * address's bytes.
 * Threading: one instance per datagram socket, event loop only (not thread-safe).
 */
public final class StunBindingResponder {

    /** RFC 5389 §6: the fixed value at bytes 4..7 of every STUN message. */
    public static final int MAGIC_COOKIE = 0x2112A442;
    /** Header: type, length, magic cookie, 96-bit transaction id (RFC 5389 §6). */
    public static final int HEADER_BYTES = 20;
    /** The largest answer: header 20, XOR-MAPPED-ADDRESS of an IPv6 address 24, FINGERPRINT 8. */
    public static final int MAX_ANSWER_BYTES = HEADER_BYTES + 24 + 8;

    static final int BINDING_REQUEST = 0x0001;
    static final int BINDING_SUCCESS = 0x0101;
    static final int XOR_MAPPED_ADDRESS = 0x0020;
    static final int MESSAGE_INTEGRITY = 0x0008;
    static final int FINGERPRINT = 0x8028;
    /** RFC 5389 §15.5: the CRC-32 of the message is XORed with this ("STUN"). */
    static final int FINGERPRINT_XOR = 0x5354554E;

    /** What became of a datagram; every value but {@link #ANSWERED} is a drop, its {@link #tag()} the metric reason. */
    public enum Outcome {
        /** A Binding request: {@link #answer()} holds the success response. */
        ANSWERED,
        /** Shorter than a header, a length field that does not match the datagram, attributes that overrun it. */
        MALFORMED,
        /** No magic cookie: an RFC 3489 request or not STUN at all (RFC 5389 §6). */
        NO_COOKIE,
        /** A FINGERPRINT whose CRC does not match (RFC 5389 §7.3: discarded silently). */
        BAD_FINGERPRINT,
        /** A well-formed message that is not a Binding request: an indication, a response, another method. */
        NOT_BINDING_REQUEST,
        /** A comprehension-required attribute (type below 0x8000) this server does not know (RFC 5389 §7.3.1). */
        UNKNOWN_ATTRIBUTE;

        /** The {@code reason} tag: {@code stun_malformed}, {@code stun_no_cookie}, ... */
        public String tag() {
            return "stun_" + name().toLowerCase(Locale.ROOT);
        }
    }

    private final byte[] answer = new byte[MAX_ANSWER_BYTES];
    private final CRC32 crc = new CRC32();
    private int answerLength;

    /**
     * Whether a datagram that starts with this byte is for this responder rather than for SIP: STUN
     * messages start with 0x00 to 0x03 (the two top bits zero and, for methods below 0x100, the
     * rest of the first byte too; the demultiplexing rule of RFC 7983 §7), a SIP message with a
     * printable character. CR, LF and NUL keep-alives are told apart before this.
     */
    public static boolean startsLikeStun(byte first) {
        return (first & 0xFC) == 0;
    }

    /**
     * Checks the datagram between {@code datagram}'s position and limit and, for a Binding request,
     * writes the answer to {@code source}.
     *
     * @return {@link Outcome#ANSWERED}, then {@link #answer()} holds {@link #answerLength()} bytes;
     *         otherwise why the datagram is dropped
     */
    public Outcome respond(ByteBuffer datagram, InetSocketAddress source) {
        Objects.requireNonNull(source, "source");
        answerLength = 0;
        int start = datagram.position();
        int end = datagram.limit();
        int n = end - start;
        // RFC 5389 §7.3: the first checks; failing any, the message is discarded silently
        if (n < HEADER_BYTES || (datagram.get(start) & 0xC0) != 0) {
            return Outcome.MALFORMED;
        }
        if (datagram.getInt(start + 4) != MAGIC_COOKIE) {
            return Outcome.NO_COOKIE;
        }
        int length = datagram.getShort(start + 2) & 0xFFFF;
        if (length != n - HEADER_BYTES || (length & 3) != 0) {
            return Outcome.MALFORMED;
        }
        int fingerprintAt = -1;
        boolean integrity = false;
        boolean unknown = false;
        for (int i = start + HEADER_BYTES; i < end; ) {
            if (end - i < 4 || fingerprintAt >= 0) {
                // RFC 5389 §15.5: FINGERPRINT is the last attribute
                return Outcome.MALFORMED;
            }
            int type = datagram.getShort(i) & 0xFFFF;
            int valueLength = datagram.getShort(i + 2) & 0xFFFF;
            // RFC 5389 §15: values are padded to a multiple of 4 bytes; the padding is not looked at
            int padded = (valueLength + 3) & ~3;
            if (padded > end - i - 4) {
                return Outcome.MALFORMED;
            }
            if (type == FINGERPRINT) {
                if (valueLength != 4) {
                    return Outcome.MALFORMED;
                }
                fingerprintAt = i;
            } else if (!integrity) {
                // RFC 5389 §15.4: attributes after MESSAGE-INTEGRITY, but FINGERPRINT, are ignored
                if (type == MESSAGE_INTEGRITY && valueLength != 20) {
                    return Outcome.MALFORMED;
                }
                integrity = type == MESSAGE_INTEGRITY;
                unknown |= type < 0x8000 && !understood(type);
            }
            i += 4 + padded;
        }
        if (fingerprintAt >= 0 && fingerprint(datagram, start, fingerprintAt) != datagram.getInt(fingerprintAt + 4)) {
            return Outcome.BAD_FINGERPRINT;
        }
        if ((datagram.getShort(start) & 0xFFFF) != BINDING_REQUEST) {
            return Outcome.NOT_BINDING_REQUEST;
        }
        if (unknown) {
            return Outcome.UNKNOWN_ATTRIBUTE;
        }
        writeAnswer(datagram, start, source, fingerprintAt >= 0);
        return Outcome.ANSWERED;
    }

    /** The answer of the last {@link #respond} that returned ANSWERED, in its first {@link #answerLength()} bytes. */
    public byte[] answer() {
        return answer;
    }

    /** The length of the last answer, 0 when the last datagram was dropped. */
    public int answerLength() {
        return answerLength;
    }

    /**
     * The comprehension-required attributes of RFC 5389 §15 and §18.2 that a server can meet in a
     * request. Without STUN credentials configured the server does not authenticate (§10.1.2 and
     * §10.2.2 apply to servers that do), so USERNAME, MESSAGE-INTEGRITY, REALM and NONCE are known
     * and ignored; the address attributes and ERROR-CODE belong in responses and are ignored too.
     * RFC 3489's CHANGE-REQUEST (0x0003) and RFC 5245's ICE attributes are not known.
     */
    private static boolean understood(int type) {
        return switch (type) {
            case 0x0001, 0x0006, 0x0008, 0x0009, 0x000A, 0x0014, 0x0015, 0x0020 -> true;
            default -> false;
        };
    }

    /** RFC 5389 §15.5: CRC-32 of the message up to the FINGERPRINT attribute, XORed with 0x5354554e. */
    private int fingerprint(ByteBuffer message, int start, int fingerprintAt) {
        int position = message.position();
        int limit = message.limit();
        crc.reset();
        message.limit(fingerprintAt).position(start);
        crc.update(message);
        message.limit(limit).position(position);
        return (int) crc.getValue() ^ FINGERPRINT_XOR;
    }

    /** RFC 5389 §7.3.1: the success response, same transaction id, XOR-MAPPED-ADDRESS of the source. */
    private void writeAnswer(ByteBuffer request, int start, InetSocketAddress source, boolean withFingerprint) {
        byte[] address = source.getAddress().getAddress();
        int addressAttribute = 4 + 4 + address.length;
        int length = addressAttribute + (withFingerprint ? 8 : 0);
        putShort(0, BINDING_SUCCESS);
        putShort(2, length);
        putInt(4, MAGIC_COOKIE);
        for (int i = 8; i < HEADER_BYTES; i++) {
            answer[i] = request.get(start + i);
        }
        // RFC 5389 §15.2: family, port XOR the cookie's top 16 bits, address XOR cookie (and, for
        // IPv6, the transaction id)
        int a = HEADER_BYTES;
        putShort(a, XOR_MAPPED_ADDRESS);
        putShort(a + 2, 4 + address.length);
        answer[a + 4] = 0;
        answer[a + 5] = (byte) (address.length == 4 ? 0x01 : 0x02);
        putShort(a + 6, source.getPort() ^ (MAGIC_COOKIE >>> 16));
        for (int i = 0; i < address.length; i++) {
            answer[a + 8 + i] = (byte) (address[i] ^ answer[4 + i]);
        }
        int end = HEADER_BYTES + addressAttribute;
        if (withFingerprint) {
            // the header's length already counts the FINGERPRINT attribute, as §15.5 requires
            putShort(end, FINGERPRINT);
            putShort(end + 2, 4);
            crc.reset();
            crc.update(answer, 0, end);
            putInt(end + 4, (int) crc.getValue() ^ FINGERPRINT_XOR);
            end += 8;
        }
        answerLength = end;
    }

    private void putShort(int at, int value) {
        answer[at] = (byte) (value >>> 8);
        answer[at + 1] = (byte) value;
    }

    private void putInt(int at, int value) {
        putShort(at, value >>> 16);
        putShort(at + 2, value);
    }
}
