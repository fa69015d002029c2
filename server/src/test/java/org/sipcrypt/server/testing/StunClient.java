package org.sipcrypt.server.testing;

import java.io.IOException;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketTimeoutException;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.zip.CRC32;

/**
 * A STUN client's side of RFC 5389, written for tests apart from the server's responder so the one
 * checks the other: builds Binding requests, reads Binding responses (XOR-MAPPED-ADDRESS, §15.2;
 * FINGERPRINT, §15.5), and sends a request from a plain {@link DatagramSocket}.
 * Threading: immutable (static methods only).
 */
public final class StunClient {

    public static final int MAGIC_COOKIE = 0x2112A442;
    public static final int BINDING_REQUEST = 0x0001;
    public static final int BINDING_SUCCESS = 0x0101;
    public static final int XOR_MAPPED_ADDRESS = 0x0020;
    public static final int FINGERPRINT = 0x8028;

    private StunClient() {
    }

    /** Bytes from hex written with any spaces and line breaks, as RFC 5769 prints them. */
    public static byte[] hex(String text) {
        return HexFormat.of().parseHex(text.replaceAll("\\s+", ""));
    }

    /**
     * A message of {@code type} with this transaction id and these attributes (each already encoded
     * with its header and padding), the length field set, and a FINGERPRINT appended when asked.
     */
    public static byte[] message(int type, byte[] transactionId, boolean fingerprint, byte[]... attributes) {
        int length = Arrays.stream(attributes).mapToInt(a -> a.length).sum() + (fingerprint ? 8 : 0);
        ByteBuffer b = ByteBuffer.allocate(20 + length);
        b.putShort((short) type).putShort((short) length).putInt(MAGIC_COOKIE).put(transactionId);
        for (byte[] a : attributes) {
            b.put(a);
        }
        if (fingerprint) {
            int crc = crc(b.array(), b.position());
            b.putShort((short) FINGERPRINT).putShort((short) 4).putInt(crc ^ 0x5354554E);
        }
        return b.array();
    }

    /** A Binding request with this transaction id, with or without FINGERPRINT. */
    public static byte[] bindingRequest(byte[] transactionId, boolean fingerprint, byte[]... attributes) {
        return message(BINDING_REQUEST, transactionId, fingerprint, attributes);
    }

    /** One attribute: type, length, the value, zero padding to a multiple of 4 bytes. */
    public static byte[] attribute(int type, byte[] value) {
        ByteBuffer b = ByteBuffer.allocate(4 + ((value.length + 3) & ~3));
        b.putShort((short) type).putShort((short) value.length).put(value);
        return b.array();
    }

    /** A random 96-bit transaction id. */
    public static byte[] transactionId(java.util.Random random) {
        byte[] id = new byte[12];
        random.nextBytes(id);
        return id;
    }

    /** CRC-32 of the first {@code length} bytes. */
    public static int crc(byte[] bytes, int length) {
        CRC32 crc = new CRC32();
        crc.update(bytes, 0, length);
        return (int) crc.getValue();
    }

    /** Whether the message ends in a FINGERPRINT attribute whose value is right (RFC 5389 §15.5). */
    public static boolean fingerprintValid(byte[] message) {
        int at = message.length - 8;
        ByteBuffer b = ByteBuffer.wrap(message);
        return at >= 20 && (b.getShort(at) & 0xFFFF) == FINGERPRINT && b.getShort(at + 2) == 4
                && b.getInt(at + 4) == (crc(message, at) ^ 0x5354554E);
    }

    /** The offset of the first attribute of {@code type}, -1 when there is none; fails on a broken layout. */
    public static int find(byte[] message, int type) {
        ByteBuffer b = ByteBuffer.wrap(message);
        if (message.length < 20 || (b.getShort(2) & 0xFFFF) != message.length - 20 || b.getInt(4) != MAGIC_COOKIE) {
            throw new AssertionError("not a STUN message of its length: " + HexFormat.of().formatHex(message));
        }
        for (int i = 20; i < message.length; ) {
            int t = b.getShort(i) & 0xFFFF;
            int length = b.getShort(i + 2) & 0xFFFF;
            if (i + 4 + length > message.length) {
                throw new AssertionError("attribute at " + i + " overruns: " + HexFormat.of().formatHex(message));
            }
            if (t == type) {
                return i;
            }
            i += 4 + ((length + 3) & ~3);
        }
        return -1;
    }

    /** The XOR-MAPPED-ADDRESS of a response, decoded (RFC 5389 §15.2); fails when it has none. */
    public static InetSocketAddress mappedAddress(byte[] response) {
        int at = find(response, XOR_MAPPED_ADDRESS);
        if (at < 0) {
            throw new AssertionError("no XOR-MAPPED-ADDRESS in " + HexFormat.of().formatHex(response));
        }
        ByteBuffer b = ByteBuffer.wrap(response);
        int family = response[at + 5];
        int size = family == 1 ? 4 : family == 2 ? 16 : -1;
        if (size < 0 || (b.getShort(at + 2) & 0xFFFF) != 4 + size) {
            throw new AssertionError("XOR-MAPPED-ADDRESS of family " + family + ": " + HexFormat.of().formatHex(response));
        }
        int port = (b.getShort(at + 6) & 0xFFFF) ^ (MAGIC_COOKIE >>> 16);
        byte[] address = new byte[size];
        for (int i = 0; i < size; i++) {
            // the cookie, then for IPv6 the transaction id: bytes 4..19 of the header
            address[i] = (byte) (response[at + 8 + i] ^ response[4 + i]);
        }
        try {
            return new InetSocketAddress(InetAddress.getByAddress(address), port);
        } catch (UnknownHostException e) {
            throw new AssertionError(e);
        }
    }

    /** The transaction id (bytes 8..19) of a message. */
    public static byte[] transactionIdOf(byte[] message) {
        return Arrays.copyOfRange(message, 8, 20);
    }

    /**
     * Sends {@code request} from {@code socket} to {@code server} and returns the first datagram
     * back, or null when none comes within {@code timeout}.
     */
    public static byte[] exchange(DatagramSocket socket, InetSocketAddress server, byte[] request, Duration timeout)
            throws IOException {
        socket.send(new DatagramPacket(request, request.length, server));
        return receive(socket, timeout);
    }

    /** The next datagram, or null when none comes within {@code timeout}. */
    public static byte[] receive(DatagramSocket socket, Duration timeout) throws IOException {
        socket.setSoTimeout((int) Math.max(1, timeout.toMillis()));
        byte[] buf = new byte[2048];
        DatagramPacket p = new DatagramPacket(buf, buf.length);
        try {
            socket.receive(p);
        } catch (SocketTimeoutException e) {
            return null;
        }
        return Arrays.copyOf(buf, p.getLength());
    }
}
