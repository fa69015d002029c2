package org.sipcrypt.server.transport;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.sipcrypt.server.testing.StunClient.attribute;
import static org.sipcrypt.server.testing.StunClient.bindingRequest;
import static org.sipcrypt.server.testing.StunClient.hex;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.sipcrypt.server.testing.StunClient;
import org.sipcrypt.server.transport.StunBindingResponder.Outcome;

/**
 * The STUN keep-alive responder against RFC 5769's test vectors (the sample request and the
 * sample IPv4 and IPv6 responses, typed in from RFC 5769 §2.1 to §2.3) and the rules of RFC 5389
 * §7.3 and §15 it enforces. The vectors check themselves: their FINGERPRINT and MESSAGE-INTEGRITY
 * values are verified before the responder sees them, so a mistyped byte fails here.
 */
@Timeout(30)
class StunBindingResponderTest {

    /** RFC 5769 §2.1: Binding request with SOFTWARE, PRIORITY, ICE-CONTROLLED, USERNAME, MESSAGE-INTEGRITY, FINGERPRINT. */
    static final byte[] SAMPLE_REQUEST = hex("""
            00 01 00 58  21 12 a4 42  b7 e7 a7 01  bc 34 d6 86  fa 87 df ae
            80 22 00 10  53 54 55 4e  20 74 65 73  74 20 63 6c  69 65 6e 74
            00 24 00 04  6e 00 01 ff
            80 29 00 08  93 2f f9 b1  51 26 3b 36
            00 06 00 09  65 76 74 6a  3a 68 36 76  59 20 20 20
            00 08 00 14  9a ea a7 0c  bf d8 cb 56  78 1e f2 b5  b2 d3 f2 49  c1 b5 71 a2
            80 28 00 04  e5 7a 3b cf
            """);

    /** RFC 5769 §2.2: the success response to it from 192.0.2.1:32853. */
    static final byte[] SAMPLE_IPV4_RESPONSE = hex("""
            01 01 00 3c  21 12 a4 42  b7 e7 a7 01  bc 34 d6 86  fa 87 df ae
            80 22 00 0b  74 65 73 74  20 76 65 63  74 6f 72 20
            00 20 00 08  00 01 a1 47  e1 12 a6 43
            00 08 00 14  2b 91 f5 99  fd 9e 90 c3  8c 74 89 f9  2a f9 ba 53  f0 6b e7 d7
            80 28 00 04  c0 7d 4c 96
            """);

    /** RFC 5769 §2.3: the success response from [2001:db8:1234:5678:11:2233:4455:6677]:32853. */
    static final byte[] SAMPLE_IPV6_RESPONSE = hex("""
            01 01 00 48  21 12 a4 42  b7 e7 a7 01  bc 34 d6 86  fa 87 df ae
            80 22 00 0b  74 65 73 74  20 76 65 63  74 6f 72 20
            00 20 00 14  00 02 a1 47  01 13 a9 fa  a5 d3 f1 79  bc 25 f4 b5  be d2 b9 d9
            00 08 00 14  a3 82 95 4e  4b e6 7b f1  17 84 c9 7c  82 92 c2 75  bf e3 ed 41
            80 28 00 04  c8 fb 0b 4c
            """);

    /** RFC 5769 §2: the short-term password of the samples. */
    static final String SAMPLE_PASSWORD = "VOkJxbRl1RmTxUk/WvJxBt";

    static final byte[] SAMPLE_TRANSACTION_ID = hex("b7 e7 a7 01 bc 34 d6 86 fa 87 df ae");
    static final byte[] SOFTWARE = attribute(0x8022, "STUN test client".getBytes(StandardCharsets.US_ASCII));

    static final InetSocketAddress V4 = address("192.0.2.1", 32853);
    static final InetSocketAddress V6 = address("2001:db8:1234:5678:11:2233:4455:6677", 32853);

    private final StunBindingResponder responder = new StunBindingResponder();

    static InetSocketAddress address(String literal, int port) {
        try {
            return new InetSocketAddress(InetAddress.getByName(literal), port);
        } catch (java.net.UnknownHostException e) {
            throw new AssertionError(e);
        }
    }

    private Outcome respond(byte[] datagram, InetSocketAddress source) {
        return responder.respond(ByteBuffer.wrap(datagram), source);
    }

    private byte[] answer() {
        return Arrays.copyOf(responder.answer(), responder.answerLength());
    }

    /** RFC 5389 §15.4: HMAC-SHA1 over the message up to MESSAGE-INTEGRITY, the length counting it. */
    private static byte[] integrity(byte[] message, String password) throws Exception {
        int at = StunClient.find(message, 0x0008);
        byte[] covered = Arrays.copyOf(message, at);
        int length = at + 24 - 20;
        covered[2] = (byte) (length >>> 8);
        covered[3] = (byte) length;
        Mac mac = Mac.getInstance("HmacSHA1");
        mac.init(new SecretKeySpec(password.getBytes(StandardCharsets.UTF_8), "HmacSHA1"));
        return mac.doFinal(covered);
    }

    @Test
    void theTypedInVectorsCarryTheirOwnFingerprintAndIntegrity() throws Exception {
        String[] names = {"request", "IPv4 response", "IPv6 response"};
        byte[][] vectors = {SAMPLE_REQUEST, SAMPLE_IPV4_RESPONSE, SAMPLE_IPV6_RESPONSE};
        for (int i = 0; i < vectors.length; i++) {
            byte[] v = vectors[i];
            assertTrue(StunClient.fingerprintValid(v), "FINGERPRINT of the sample " + names[i]);
            int at = StunClient.find(v, 0x0008);
            assertArrayEquals(Arrays.copyOfRange(v, at + 4, at + 24), integrity(v, SAMPLE_PASSWORD),
                    "MESSAGE-INTEGRITY of the sample " + names[i]);
        }
    }

    @Test
    void theSampleResponsesMapTheAddressesRfc5769Names() {
        assertEquals(V4, StunClient.mappedAddress(SAMPLE_IPV4_RESPONSE));
        assertEquals(V6, StunClient.mappedAddress(SAMPLE_IPV6_RESPONSE));
    }

    @Test
    void theSampleRequestPassesTheFingerprintCheckAndIsDroppedForItsIcePriority() {
        // PRIORITY (0x0024, RFC 5245) is comprehension-required and not known here: no 420, a drop
        assertEquals(Outcome.UNKNOWN_ATTRIBUTE, respond(SAMPLE_REQUEST, V4));
        assertEquals(0, responder.answerLength());
        byte[] flipped = SAMPLE_REQUEST.clone();
        flipped[30] ^= 1;
        assertEquals(Outcome.BAD_FINGERPRINT, respond(flipped, V4));
    }

    @Test
    void aKeepAliveFromTheSampleAddressesGetsTheSampleXorMappedAddress() {
        byte[] request = bindingRequest(SAMPLE_TRANSACTION_ID, true, SOFTWARE);
        assertEquals(Outcome.ANSWERED, respond(request, V4));
        byte[] v4 = answer();
        assertEquals(20 + 12 + 8, v4.length);
        assertArrayEquals(hex("01 01 00 14 21 12 a4 42 b7 e7 a7 01 bc 34 d6 86 fa 87 df ae"), Arrays.copyOf(v4, 20));
        // the attribute exactly as the RFC's response carries it (bytes 36..47 there)
        assertArrayEquals(Arrays.copyOfRange(SAMPLE_IPV4_RESPONSE, 36, 48), Arrays.copyOfRange(v4, 20, 32));
        assertTrue(StunClient.fingerprintValid(v4));

        assertEquals(Outcome.ANSWERED, respond(request, V6));
        byte[] v6 = answer();
        assertEquals(20 + 24 + 8, v6.length);
        assertEquals(StunBindingResponder.MAX_ANSWER_BYTES, v6.length);
        assertArrayEquals(Arrays.copyOfRange(SAMPLE_IPV6_RESPONSE, 36, 60), Arrays.copyOfRange(v6, 20, 44));
        assertTrue(StunClient.fingerprintValid(v6));
        assertEquals(V6, StunClient.mappedAddress(v6));
    }

    @Test
    void aBareRequestGetsABareAnswerWithoutFingerprint() {
        byte[] request = bindingRequest(SAMPLE_TRANSACTION_ID, false);
        assertEquals(20, request.length);
        assertEquals(Outcome.ANSWERED, respond(request, V4));
        byte[] a = answer();
        assertEquals(32, a.length);
        assertEquals(-1, StunClient.find(a, StunClient.FINGERPRINT));
        assertEquals(V4, StunClient.mappedAddress(a));
        assertArrayEquals(SAMPLE_TRANSACTION_ID, StunClient.transactionIdOf(a));
    }

    @Test
    void theRequestIsReadInPlaceAndItsBufferLeftAsItWas() {
        byte[] request = bindingRequest(SAMPLE_TRANSACTION_ID, true, SOFTWARE);
        byte[] framed = new byte[request.length + 10];
        System.arraycopy(request, 0, framed, 5, request.length);
        ByteBuffer b = ByteBuffer.wrap(framed, 5, request.length);
        assertEquals(Outcome.ANSWERED, responder.respond(b, V4));
        assertEquals(5, b.position());
        assertEquals(5 + request.length, b.limit());
        assertTrue(StunClient.fingerprintValid(answer()));
    }

    @Test
    void optionalAttributesOfAnyTypeAreIgnored() {
        byte[] request = bindingRequest(SAMPLE_TRANSACTION_ID, true, SOFTWARE, attribute(0xC057, new byte[] {1, 2, 3}));
        assertEquals(Outcome.ANSWERED, respond(request, V4));
    }

    @Test
    void credentialsAreKnownAndIgnoredAndWhatFollowsMessageIntegrityIsIgnored() {
        byte[] request = bindingRequest(SAMPLE_TRANSACTION_ID, true,
                attribute(0x0006, "evtj:h6vY".getBytes(StandardCharsets.US_ASCII)),
                attribute(0x0008, new byte[20]),
                // RFC 5389 §15.4: ignored after MESSAGE-INTEGRITY, however unknown
                attribute(0x0024, new byte[4]));
        assertEquals(Outcome.ANSWERED, respond(request, V4));
    }

    @Test
    void rfc3489ChangeRequestIsAnUnknownComprehensionRequiredAttribute() {
        byte[] request = bindingRequest(SAMPLE_TRANSACTION_ID, false, attribute(0x0003, new byte[] {0, 0, 0, 4}));
        assertEquals(Outcome.UNKNOWN_ATTRIBUTE, respond(request, V4));
    }

    @Test
    void anRfc3489RequestWithoutTheMagicCookieIsDropped() {
        // as Debian's stun-client 0.97 sends it: 128-bit transaction id, CHANGE-REQUEST
        byte[] classic = hex("00 01 00 08 02 58 93 48 7b 3c b6 57 c2 4e 9f 23 41 ce 1c 14 00 03 00 04 00 00 00 04");
        assertEquals(Outcome.NO_COOKIE, respond(classic, V4));
        assertEquals(0, responder.answerLength());
    }

    @Test
    void otherClassesAndMethodsAreNotAnswered() {
        for (int type : new int[] {0x0011, 0x0101, 0x0111, 0x0003, 0x0002, 0x0004}) {
            byte[] m = StunClient.message(type, SAMPLE_TRANSACTION_ID, true, SOFTWARE);
            assertEquals(Outcome.NOT_BINDING_REQUEST, respond(m, V4), Integer.toHexString(type));
        }
        assertEquals(Outcome.NOT_BINDING_REQUEST, respond(SAMPLE_IPV4_RESPONSE, V4));
    }

    @Test
    void malformedLayoutsAreDropped() {
        byte[] good = bindingRequest(SAMPLE_TRANSACTION_ID, false, SOFTWARE);
        assertEquals(Outcome.ANSWERED, respond(good, V4));
        // shorter than a header
        assertEquals(Outcome.MALFORMED, respond(Arrays.copyOf(good, 19), V4));
        // length field beyond, short of, or not a multiple of 4
        for (int length : new int[] {good.length - 20 + 4, good.length - 20 - 4, good.length - 20 - 2}) {
            byte[] m = good.clone();
            m[3] = (byte) length;
            assertEquals(Outcome.MALFORMED, respond(m, V4), "length " + length);
        }
        // an attribute whose length overruns the message
        byte[] overrun = good.clone();
        overrun[23] = (byte) 0x40;
        assertEquals(Outcome.MALFORMED, respond(overrun, V4));
        // 2 bytes of attribute, the length field counting them: not a multiple of 4
        assertEquals(Outcome.MALFORMED, respond(bindingRequest(SAMPLE_TRANSACTION_ID, false, new byte[] {0, 0}), V4));
        // the top two bits set
        byte[] top = good.clone();
        top[0] = (byte) 0x40;
        assertEquals(Outcome.MALFORMED, respond(top, V4));
    }

    @Test
    void fingerprintMustBeLastAndFourBytes() {
        byte[] withFingerprint = bindingRequest(SAMPLE_TRANSACTION_ID, true);
        byte[] after = StunClient.message(0x0001, SAMPLE_TRANSACTION_ID, false,
                Arrays.copyOfRange(withFingerprint, 20, 28), SOFTWARE);
        assertEquals(Outcome.MALFORMED, respond(after, V4));
        byte[] longFingerprint = StunClient.message(0x0001, SAMPLE_TRANSACTION_ID, false,
                attribute(StunClient.FINGERPRINT, new byte[8]));
        assertEquals(Outcome.MALFORMED, respond(longFingerprint, V4));
        byte[] shortIntegrity = StunClient.message(0x0001, SAMPLE_TRANSACTION_ID, false, attribute(0x0008, new byte[16]));
        assertEquals(Outcome.MALFORMED, respond(shortIntegrity, V4));
    }

    @Test
    void onlyTheFirstFourValuesOfTheFirstByteAreTakenForStun() {
        for (int b = 0; b < 256; b++) {
            assertEquals(b <= 3, StunBindingResponder.startsLikeStun((byte) b), "first byte " + b);
        }
    }

    @Test
    void outcomesNameTheirMetricReason() {
        assertEquals("stun_unknown_attribute", Outcome.UNKNOWN_ATTRIBUTE.tag());
        assertEquals("stun_no_cookie", Outcome.NO_COOKIE.tag());
    }
}
