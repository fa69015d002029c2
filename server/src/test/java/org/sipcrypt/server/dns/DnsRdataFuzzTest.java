package org.sipcrypt.server.dns;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.nio.charset.StandardCharsets;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The SRV and NAPTR readers against valid record data, every truncation of it, and seeded random
 * mutations (bytes flipped, inserted, dropped; lengths and compression pointers pointing anywhere in
 * a message): a reader answers exactly what was written or declines with null, never throws, and
 * never moves the buffer it reads.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class DnsRdataFuzzTest {

    private static final int INPUTS = 200_000;

    private static byte[] srv(int priority, int weight, int port, String target) {
        ByteBuf b = Unpooled.buffer();
        b.writeShort(priority).writeShort(weight).writeShort(port);
        name(b, target);
        return bytes(b);
    }

    private static byte[] naptr(int order, int pref, String flags, String service, String regexp, String replacement) {
        ByteBuf b = Unpooled.buffer();
        b.writeShort(order).writeShort(pref);
        for (String s : new String[] {flags, service, regexp}) {
            byte[] t = s.getBytes(StandardCharsets.ISO_8859_1);
            b.writeByte(t.length).writeBytes(t);
        }
        name(b, replacement);
        return bytes(b);
    }

    private static void name(ByteBuf b, String name) {
        if (!name.equals(".")) {
            for (String label : name.split("\\.")) {
                byte[] l = label.getBytes(StandardCharsets.US_ASCII);
                b.writeByte(l.length).writeBytes(l);
            }
        }
        b.writeByte(0);
    }

    private static byte[] bytes(ByteBuf b) {
        byte[] out = new byte[b.readableBytes()];
        b.readBytes(out);
        return out;
    }

    /** {@code rdata} placed after a 12-byte message header and a name, as Netty hands it over: a slice of the message. */
    private static ByteBuf inMessage(byte[] rdata) {
        ByteBuf message = Unpooled.buffer();
        message.writeZero(12);
        name(message, "example.test");
        int start = message.writerIndex();
        message.writeBytes(rdata);
        return message.duplicate().setIndex(start, start + rdata.length);
    }

    @Test
    void validRecordsAreReadExactly() {
        SrvRecord s = DnsRdata.srv(inMessage(srv(10, 60, 5060, "sip1.example.test")), 300);
        assertEquals(new SrvRecord(10, 60, 5060, "sip1.example.test", 300), s);
        assertTrue(DnsRdata.srv(inMessage(srv(0, 0, 0, ".")), 1).unavailable());
        NaptrRecord n = DnsRdata.naptr(inMessage(naptr(10, 20, "s", "SIPS+D2T", "", "_sips._tcp.example.test")), 60);
        assertEquals(new NaptrRecord(10, 20, "s", "SIPS+D2T", "", "_sips._tcp.example.test", 60), n);
        assertEquals(org.sipcrypt.server.transport.Transport.TLS, n.sipTransport());
        assertNull(DnsRdata.naptr(inMessage(naptr(1, 1, "u", "E2U+sip", "!^.*$!sip:a@example.test!", ".")), 60)
                .sipTransport());
    }

    @Test
    void everyTruncationAndEveryTrailingByteIsDeclined() {
        byte[] srv = srv(1, 2, 3, "a.example.test");
        byte[] naptr = naptr(1, 2, "s", "SIP+D2U", "", "_sip._udp.example.test");
        for (int cut = 0; cut < srv.length; cut++) {
            assertNull(DnsRdata.srv(inMessage(java.util.Arrays.copyOf(srv, cut)), 1), "srv cut at " + cut);
        }
        for (int cut = 0; cut < naptr.length; cut++) {
            assertNull(DnsRdata.naptr(inMessage(java.util.Arrays.copyOf(naptr, cut)), 1), "naptr cut at " + cut);
        }
        assertNull(DnsRdata.srv(inMessage(java.util.Arrays.copyOf(srv, srv.length + 1)), 1));
        assertNull(DnsRdata.naptr(inMessage(java.util.Arrays.copyOf(naptr, naptr.length + 1)), 1));
    }

    @Test
    void compressionPointersAreFollowedBackwardsOnly() {
        // the target "sip1" followed by a pointer to "example.test" at offset 12 of the message
        byte[] compressed = {0, 10, 0, 60, 0x13, (byte) 0xc4, 4, 's', 'i', 'p', '1', (byte) 0xc0, 12};
        assertEquals(new SrvRecord(10, 60, 5060, "sip1.example.test", 300), DnsRdata.srv(inMessage(compressed), 300));
        byte[] forward = compressed.clone();
        forward[12] = (byte) 200;
        assertNull(DnsRdata.srv(inMessage(forward), 300));
    }

    @Test
    void mutatedDataIsReadOrDeclinedNeverThrown() {
        SplittableRandom random = new SplittableRandom(3263);
        byte[][] seeds = {srv(10, 60, 5060, "sip1.example.test"), srv(0, 0, 0, "."),
                naptr(10, 20, "s", "SIPS+D2T", "", "_sips._tcp.example.test"),
                naptr(100, 10, "S", "SIP+D2U", "", "_sip._udp.example.test")};
        int answered = 0;
        for (int i = 0; i < INPUTS; i++) {
            byte[] in = mutate(seeds[random.nextInt(seeds.length)], random);
            ByteBuf buf = inMessage(in);
            int reader = buf.readerIndex();
            SrvRecord s = DnsRdata.srv(buf, 60);
            NaptrRecord n = DnsRdata.naptr(buf, 60);
            assertEquals(reader, buf.readerIndex(), "input " + i + " moved the buffer");
            if (s != null) {
                answered++;
                assertTrue(s.priority() >= 0 && s.priority() <= 0xffff && s.port() <= 0xffff, "input " + i);
            }
            if (n != null) {
                answered++;
                assertTrue(n.flags().length() <= 255 && n.service().length() <= 255, "input " + i);
            }
        }
        // the mutations leave many inputs readable, so the answering side is exercised too
        assertTrue(answered > INPUTS / 20, "answered " + answered);
    }

    private static byte[] mutate(byte[] seed, SplittableRandom random) {
        byte[] b = seed.clone();
        int edits = 1 + random.nextInt(3);
        for (int e = 0; e < edits; e++) {
            switch (random.nextInt(5)) {
                case 0 -> {
                    if (b.length > 0) {
                        b[random.nextInt(b.length)] = (byte) random.nextInt(256);
                    }
                }
                case 1 -> {
                    // a compression pointer to anywhere in the message, or past it
                    if (b.length > 8) {
                        int at = 6 + random.nextInt(b.length - 7);
                        b[at] = (byte) (0xc0 | random.nextInt(64));
                        b[at + 1] = (byte) random.nextInt(256);
                    }
                }
                case 2 -> {
                    int at = random.nextInt(b.length + 1);
                    byte[] c = new byte[b.length + 1];
                    System.arraycopy(b, 0, c, 0, at);
                    c[at] = (byte) random.nextInt(256);
                    System.arraycopy(b, at, c, at + 1, b.length - at);
                    b = c;
                }
                case 3 -> {
                    if (b.length > 0) {
                        int at = random.nextInt(b.length);
                        byte[] c = new byte[b.length - 1];
                        System.arraycopy(b, 0, c, 0, at);
                        System.arraycopy(b, at + 1, c, at, b.length - at - 1);
                        b = c;
                    }
                }
                default -> {
                    if (b.length > 0) {
                        // a length byte: a label or character-string length pointing past the data
                        b[random.nextInt(b.length)] = (byte) (1 + random.nextInt(64));
                    }
                }
            }
        }
        return b;
    }
}
