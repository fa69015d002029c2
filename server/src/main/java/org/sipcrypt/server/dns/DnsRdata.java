package org.sipcrypt.server.dns;

import io.netty.buffer.ByteBuf;
import io.netty.handler.codec.dns.DefaultDnsRecordDecoder;
import java.nio.charset.StandardCharsets;

/**
 * Reads the data of the SRV (RFC 2782) and NAPTR (RFC 3403 §4.1) records Netty hands over raw.
 * A reader answers exactly or declines: data that is short, runs over its length or has bytes
 * left over gives null, never an exception. Domain names are read by Netty's decoder, which follows
 * compression pointers within the message; a name it cannot read is a decline too.
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

    /** A domain name without its final dot ({@code "."} for the root), or null when it cannot be read. */
    private static String name(ByteBuf in) {
        if (!in.isReadable()) {
            return null;
        }
        String n;
        try {
            n = DefaultDnsRecordDecoder.decodeName(in);
        } catch (RuntimeException e) {
            // a label running past the data or a compression pointer out of the message: declined
            return null;
        }
        return n.length() > 1 && n.endsWith(".") ? n.substring(0, n.length() - 1) : n;
    }
}
