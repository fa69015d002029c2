package org.sipcrypt.server.dns;

import io.netty.buffer.ByteBuf;
import java.nio.charset.StandardCharsets;

/**
 * Reads the data of the SRV (RFC 2782) and NAPTR (RFC 3403 §4.1) records Netty hands over raw.
 * A reader answers exactly or declines: data that is short, runs over its length or has bytes
 * left over gives null, never an exception. Domain names follow compression pointers back into the
 * message the data is a slice of (Netty hands record data over as such a slice).
 * Threading: stateless; reads a buffer it does not release or move.
 */
public final class DnsRdata {

    private DnsRdata() {
    }

    /** An SRV record's data (priority, weight, port, target), or null when it cannot be read exactly. */
    public static SrvRecord srv(ByteBuf rdata, long ttl) {
        ByteBuf in = rdata.duplicate();
        if (in.readableBytes() < 7) {
            return null;
        }
        int priority = in.readUnsignedShort();
        int weight = in.readUnsignedShort();
        int port = in.readUnsignedShort();
        String target = name(in);
        if (target == null || in.isReadable()) {
            return null;
        }
        return new SrvRecord(priority, weight, port, target, ttl);
    }

    /**
     * A NAPTR record's data (order, preference, flags, services, regexp, replacement), or null when
     * it cannot be read exactly.
     */
    public static NaptrRecord naptr(ByteBuf rdata, long ttl) {
        ByteBuf in = rdata.duplicate();
        if (in.readableBytes() < 8) {
            return null;
        }
        int order = in.readUnsignedShort();
        int preference = in.readUnsignedShort();
        String flags = characterString(in);
        String services = flags == null ? null : characterString(in);
        String regexp = services == null ? null : characterString(in);
        String replacement = regexp == null ? null : name(in);
        if (replacement == null || in.isReadable()) {
            return null;
        }
        return new NaptrRecord(order, preference, flags, services, regexp, replacement, ttl);
    }

    /** A {@code <character-string>} (RFC 1035 §3.3): one length byte and that many bytes; null if short. */
    private static String characterString(ByteBuf in) {
        if (!in.isReadable()) {
            return null;
        }
        int length = in.readUnsignedByte();
        if (in.readableBytes() < length) {
            return null;
        }
        String s = in.toString(in.readerIndex(), length, StandardCharsets.ISO_8859_1);
        in.skipBytes(length);
        return s;
    }

    /** Longest domain name in text, without its final dot (RFC 1035 §2.3.4). */
    private static final int MAX_NAME_CHARS = 253;

    /**
     * A domain name (RFC 1035 §3.1) without its final dot ({@code "."} for the root), the reader
     * moved past it; null when it is not ended by a zero label within the data, has a label type
     * other than a length or a pointer, runs over 253 characters, or has a compression pointer
     * (§4.1.4) that does not point back to an earlier byte of the message.
     */
    private static String name(ByteBuf in) {
        int limit = in.writerIndex();
        int pos = in.readerIndex();
        int resume = -1;
        StringBuilder sb = new StringBuilder();
        // each step reads a label or jumps strictly backwards, so this ends; the bound is a second guard
        for (int step = 0; step <= MAX_NAME_CHARS; step++) {
            if (pos >= limit) {
                return null;
            }
            int len = in.getUnsignedByte(pos);
            if ((len & 0xc0) == 0xc0) {
                if (pos + 1 >= limit) {
                    return null;
                }
                int target = (len & 0x3f) << 8 | in.getUnsignedByte(pos + 1);
                if (target >= pos) {
                    return null;
                }
                if (resume < 0) {
                    resume = pos + 2;
                }
                pos = target;
                continue;
            }
            if ((len & 0xc0) != 0) {
                return null;
            }
            if (len == 0) {
                in.readerIndex(resume < 0 ? pos + 1 : resume);
                return sb.length() == 0 ? "." : sb.toString();
            }
            if (pos + 1 + len > limit || sb.length() + 1 + len > MAX_NAME_CHARS + 1) {
                return null;
            }
            if (sb.length() > 0) {
                sb.append('.');
            }
            sb.append(in.toString(pos + 1, len, StandardCharsets.ISO_8859_1));
            pos += 1 + len;
        }
        return null;
    }
}
