package org.sipcrypt.server.transport;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.sipcrypt.server.testing.StunClient.attribute;
import static org.sipcrypt.server.testing.StunClient.bindingRequest;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.sipcrypt.server.testing.StunClient;
import org.sipcrypt.server.transport.StunBindingResponder.Outcome;

/**
 * Seeded mutations of valid STUN messages through {@link StunBindingResponder}, in the manner of
 * {@code SipInputFuzzTest}: input {@code i} is a pure function of the seed and {@code i}, so every
 * build checks the same inputs, and {@code -Dstun.fuzz.seed}, {@code -Dstun.fuzz.inputs} change them
 * for a longer run or a replay ({@code -Dstun.fuzz.start=N -Dstun.fuzz.inputs=1}).
 *
 * <p>Invariants on every input: nothing is thrown; the outcome is the one an independent reading of
 * RFC 5389's rules (below, written apart from the responder) gives, so no malformed or
 * unsupported input is ever answered; an answer is a Binding success response of at most
 * {@link StunBindingResponder#MAX_ANSWER_BYTES} bytes and at most 24 bytes longer than its request,
 * with the request's transaction id, the source as XOR-MAPPED-ADDRESS and a valid FINGERPRINT exactly
 * when the request had one; the request's bytes, position and limit are left as they were.
 */
@Timeout(60)
class StunInputFuzzTest {

    private static final long SEED = Long.getLong("stun.fuzz.seed", 5389);
    private static final long START = Long.getLong("stun.fuzz.start", 0);
    private static final long INPUTS = Long.getLong("stun.fuzz.inputs", 5_000);

    private static final InetSocketAddress V4 = StunBindingResponderTest.V4;
    private static final InetSocketAddress V6 = StunBindingResponderTest.V6;
    private static final int[] ATTRIBUTE_TYPES = {0x0001, 0x0003, 0x0006, 0x0008, 0x0014, 0x0020, 0x0024, 0x0025,
        0x7FFF, 0x8022, 0x8028, 0x8029, 0xC000};

    /** Valid messages: requests with and without attributes and FINGERPRINT, the RFC 5769 samples, an RFC 3489 request. */
    static List<byte[]> corpus() {
        byte[] id = StunBindingResponderTest.SAMPLE_TRANSACTION_ID;
        byte[] software = attribute(0x8022, "sipcrypt fuzz".getBytes(StandardCharsets.US_ASCII));
        List<byte[]> c = new ArrayList<>();
        c.add(bindingRequest(id, false));
        c.add(bindingRequest(id, true));
        c.add(bindingRequest(id, true, software));
        c.add(bindingRequest(id, true, attribute(0x0006, "user:x".getBytes(StandardCharsets.US_ASCII)),
                attribute(0x0008, new byte[20])));
        c.add(bindingRequest(id, false, software, attribute(0x0020, new byte[8])));
        c.add(StunBindingResponderTest.SAMPLE_REQUEST);
        c.add(StunBindingResponderTest.SAMPLE_IPV4_RESPONSE);
        c.add(StunClient.hex("00 01 00 08 02 58 93 48 7b 3c b6 57 c2 4e 9f 23 41 ce 1c 14 00 03 00 04 00 00 00 04"));
        return c;
    }

    @Test
    void mutatedMessagesAreAnsweredExactlyWhenTheRfcSaysSoAndWithinTheBound() {
        List<byte[]> corpus = corpus();
        StunBindingResponder responder = new StunBindingResponder();
        Map<Outcome, Long> outcomes = new EnumMap<>(Outcome.class);
        for (long i = START; i < START + INPUTS; i++) {
            SplittableRandom random = new SplittableRandom(SEED * 1_000_003L + i);
            byte[] input = mutate(corpus.get(random.nextInt(corpus.size())), random);
            InetSocketAddress source = random.nextBoolean() ? V4 : V6;
            Outcome outcome = check(responder, input, source, i);
            outcomes.merge(outcome, 1L, Long::sum);
        }
        System.out.printf("stun fuzz: seed %d, inputs %d to %d: %s%n", SEED, START, START + INPUTS - 1, outcomes);
        if (INPUTS >= 1_000) {
            for (Outcome o : Outcome.values()) {
                assertTrue(outcomes.getOrDefault(o, 0L) > 0, o + " never reached: " + outcomes);
            }
        }
    }

    @Test
    void everySeedIsAnsweredOrDroppedAsTheRfcSays() {
        StunBindingResponder responder = new StunBindingResponder();
        List<Outcome> got = new ArrayList<>();
        for (byte[] seed : corpus()) {
            got.add(check(responder, seed, V4, -1));
        }
        assertEquals(List.of(Outcome.ANSWERED, Outcome.ANSWERED, Outcome.ANSWERED, Outcome.ANSWERED,
                Outcome.ANSWERED, Outcome.UNKNOWN_ATTRIBUTE, Outcome.NOT_BINDING_REQUEST, Outcome.NO_COOKIE), got);
    }

    @Test
    void anInputDependsOnlyOnTheSeedAndItsIndex() {
        List<byte[]> corpus = corpus();
        for (long i : new long[] {0, 1, 4_999, 1_000_000}) {
            SplittableRandom a = new SplittableRandom(SEED * 1_000_003L + i);
            SplittableRandom b = new SplittableRandom(SEED * 1_000_003L + i);
            assertArrayEquals(mutate(corpus.get(a.nextInt(corpus.size())), a),
                    mutate(corpus.get(b.nextInt(corpus.size())), b), "input " + i);
        }
    }

    /** Runs one input and checks every invariant; returns its outcome. */
    private static Outcome check(StunBindingResponder responder, byte[] input, InetSocketAddress source, long index) {
        String replay = "input " + index + " (-Dstun.fuzz.seed=" + SEED + " -Dstun.fuzz.start=" + index
                + " -Dstun.fuzz.inputs=1): " + HexFormat.of().formatHex(input);
        byte[] copy = input.clone();
        byte[] framed = new byte[input.length + 6];
        System.arraycopy(input, 0, framed, 3, input.length);
        ByteBuffer buffer = ByteBuffer.wrap(framed, 3, input.length);
        Outcome outcome;
        try {
            outcome = responder.respond(buffer, source);
        } catch (RuntimeException e) {
            throw new AssertionError("threw on " + replay, e);
        }
        assertEquals(expected(input), outcome, replay);
        assertEquals(3, buffer.position(), replay);
        assertEquals(3 + input.length, buffer.limit(), replay);
        assertArrayEquals(copy, Arrays.copyOfRange(framed, 3, 3 + input.length), "request changed: " + replay);
        if (outcome != Outcome.ANSWERED) {
            assertEquals(0, responder.answerLength(), replay);
            return outcome;
        }
        byte[] answer = Arrays.copyOf(responder.answer(), responder.answerLength());
        assertTrue(answer.length <= StunBindingResponder.MAX_ANSWER_BYTES, replay);
        assertTrue(answer.length <= input.length + 24, replay);
        ByteBuffer a = ByteBuffer.wrap(answer);
        assertEquals(StunClient.BINDING_SUCCESS, a.getShort(0) & 0xFFFF, replay);
        assertArrayEquals(StunClient.transactionIdOf(input), StunClient.transactionIdOf(answer), replay);
        assertEquals(source, StunClient.mappedAddress(answer), replay);
        boolean requestFingerprint = StunClient.find(input, StunClient.FINGERPRINT) >= 0;
        assertEquals(requestFingerprint, StunClient.fingerprintValid(answer), replay);
        return outcome;
    }

    /** One to three mutations of a seed; half the time the length field and FINGERPRINT are made right again. */
    static byte[] mutate(byte[] seed, SplittableRandom random) {
        byte[] m = seed.clone();
        int count = 1 + random.nextInt(3);
        for (int k = 0; k < count; k++) {
            m = mutateOnce(m, random);
        }
        if (random.nextBoolean()) {
            repair(m);
        }
        return m;
    }

    private static byte[] mutateOnce(byte[] m, SplittableRandom random) {
        if (m.length == 0) {
            return new byte[] {0};
        }
        switch (random.nextInt(8)) {
            case 0 -> m[random.nextInt(m.length)] ^= (byte) (1 << random.nextInt(8));
            case 1 -> m[random.nextInt(m.length)] = (byte) random.nextInt(256);
            case 2 -> m = Arrays.copyOf(m, random.nextInt(m.length));
            case 3 -> {
                byte[] more = new byte[1 + random.nextInt(12)];
                random.nextBytes(more);
                byte[] longer = Arrays.copyOf(m, m.length + more.length);
                System.arraycopy(more, 0, longer, m.length, more.length);
                m = longer;
            }
            case 4 -> {
                if (m.length >= 4) {
                    int length = random.nextBoolean() ? m.length - 20 + 4 * (random.nextInt(5) - 2) : random.nextInt(1 << 16);
                    m[2] = (byte) (length >>> 8);
                    m[3] = (byte) length;
                }
            }
            case 5 -> {
                if (m.length >= 2) {
                    int[] types = {0x0001, 0x0011, 0x0101, 0x0111, 0x0003, random.nextInt(1 << 16)};
                    int type = types[random.nextInt(types.length)];
                    m[0] = (byte) (type >>> 8);
                    m[1] = (byte) type;
                }
            }
            case 6 -> {
                List<Integer> starts = attributeStarts(m);
                if (!starts.isEmpty()) {
                    int at = starts.get(random.nextInt(starts.size()));
                    int length = random.nextBoolean() ? random.nextInt(32) : random.nextInt(1 << 16);
                    m[at + 2] = (byte) (length >>> 8);
                    m[at + 3] = (byte) length;
                }
            }
            default -> {
                List<Integer> starts = attributeStarts(m);
                starts.add(Math.min(20, m.length));
                int at = starts.get(random.nextInt(starts.size()));
                byte[] value = new byte[random.nextInt(25)];
                random.nextBytes(value);
                byte[] attr = attribute(ATTRIBUTE_TYPES[random.nextInt(ATTRIBUTE_TYPES.length)], value);
                byte[] longer = new byte[m.length + attr.length];
                System.arraycopy(m, 0, longer, 0, at);
                System.arraycopy(attr, 0, longer, at, attr.length);
                System.arraycopy(m, at, longer, at + attr.length, m.length - at);
                m = longer;
            }
        }
        return m;
    }

    /** Offsets of the attributes as far as their layout can be followed. */
    private static List<Integer> attributeStarts(byte[] m) {
        List<Integer> starts = new ArrayList<>();
        for (int i = 20; i + 4 <= m.length; i += 4 + ((((m[i + 2] & 0xFF) << 8 | (m[i + 3] & 0xFF)) + 3) & ~3)) {
            starts.add(i);
        }
        return starts;
    }

    /** Sets the length field to the message's and, when it ends in a FINGERPRINT header, recomputes the CRC. */
    private static void repair(byte[] m) {
        if (m.length < 20) {
            return;
        }
        int length = m.length - 20;
        m[2] = (byte) (length >>> 8);
        m[3] = (byte) length;
        int at = m.length - 8;
        ByteBuffer b = ByteBuffer.wrap(m);
        if (at >= 20 && (b.getShort(at) & 0xFFFF) == StunClient.FINGERPRINT) {
            b.putInt(at + 4, StunClient.crc(m, at) ^ 0x5354554E);
        }
    }

    /**
     * What RFC 5389 makes of a datagram on a port that answers Binding requests only, read apart
     * from the responder: the layout is checked whole first (§6, §15: header, cookie, length,
     * attributes that tile the message exactly, FINGERPRINT last and 4 bytes, MESSAGE-INTEGRITY 20),
     * then the FINGERPRINT's CRC (§7.3), the method and class, and comprehension-required
     * attributes before MESSAGE-INTEGRITY (§7.3.1, §15.4).
     */
    static Outcome expected(byte[] m) {
        ByteBuffer b = ByteBuffer.wrap(m);
        if (m.length < 20 || (m[0] & 0xC0) != 0) {
            return Outcome.MALFORMED;
        }
        if (b.getInt(4) != StunClient.MAGIC_COOKIE) {
            return Outcome.NO_COOKIE;
        }
        int length = b.getShort(2) & 0xFFFF;
        if (length != m.length - 20 || length % 4 != 0) {
            return Outcome.MALFORMED;
        }
        List<int[]> attributes = new ArrayList<>();
        int i = 20;
        while (i < m.length) {
            if (m.length - i < 4) {
                return Outcome.MALFORMED;
            }
            int type = b.getShort(i) & 0xFFFF;
            int valueLength = b.getShort(i + 2) & 0xFFFF;
            int next = i + 4 + ((valueLength + 3) / 4) * 4;
            if (next > m.length) {
                return Outcome.MALFORMED;
            }
            attributes.add(new int[] {type, valueLength, i});
            i = next;
        }
        int fingerprint = -1;
        int integrity = -1;
        for (int k = 0; k < attributes.size(); k++) {
            int[] a = attributes.get(k);
            if (a[0] == StunClient.FINGERPRINT && fingerprint < 0) {
                fingerprint = k;
            }
            if (a[0] == 0x0008 && integrity < 0 && (fingerprint < 0 || k < fingerprint)) {
                integrity = k;
            }
        }
        if (fingerprint >= 0 && (fingerprint != attributes.size() - 1 || attributes.get(fingerprint)[1] != 4)) {
            return Outcome.MALFORMED;
        }
        if (integrity >= 0 && attributes.get(integrity)[1] != 20) {
            return Outcome.MALFORMED;
        }
        if (fingerprint >= 0 && !StunClient.fingerprintValid(m)) {
            return Outcome.BAD_FINGERPRINT;
        }
        if ((b.getShort(0) & 0xFFFF) != StunClient.BINDING_REQUEST) {
            return Outcome.NOT_BINDING_REQUEST;
        }
        int considered = integrity >= 0 ? integrity : fingerprint >= 0 ? fingerprint : attributes.size();
        for (int k = 0; k < considered; k++) {
            int type = attributes.get(k)[0];
            boolean known = List.of(0x0001, 0x0006, 0x0008, 0x0009, 0x000A, 0x0014, 0x0015, 0x0020).contains(type);
            if (type < 0x8000 && !known) {
                return Outcome.UNKNOWN_ATTRIBUTE;
            }
        }
        return Outcome.ANSWERED;
    }
}
