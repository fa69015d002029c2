package org.sipcrypt.lab.loadgen;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import org.sipcrypt.lab.metrics.TlsFlights;

/**
 * Measures the opening of a client TLS connection below the TLS stage: the ClientHello it writes
 * and the server's first flight it reads ({@link TlsFlights}), from the TLS record headers (RFC 8446
 * §5.1, RFC 5246 §6.2.1: type, version, 16-bit length) and the plaintext first bytes of the first
 * handshake message each way (RFC 8446 §4: type and 24-bit length); nothing is decrypted. The
 * ClientHello is the client's first records, all of type handshake, up to the one holding its last
 * byte. The server's flight is every record read from then on until the client writes a record
 * other than ChangeCipherSpec (its second flight: ClientKeyExchange or Certificate in TLS 1.2, the
 * Finished of a resumption, the encrypted Finished in TLS 1.3; RFC 8446 Appendix D.4's compatibility
 * ChangeCipherSpec may come first and is not an answer). The handler answers exactly or declines
 * ({@link #flights()} null): bytes that are not TLS records, a first server record that is not a
 * ServerHello, and a HelloRetryRequest (RFC 8446 §4.1.3: its random is a fixed value), which makes
 * the opening two round trips, are declined. Once the second flight is seen it only passes bytes on;
 * the generator takes it out of the pipeline when the handshake is done.
 * It also notes when the connection's first bytes, the ClientHello's, were written
 * ({@link #clientHelloNanos()}), whether or not it declines the sizes, for the handshake's latency.
 * Threading: one instance per channel, event loop only (not @Sharable).
 */
final class TlsFlightsHandler extends ChannelDuplexHandler {

    private static final int RECORD_HEADER_BYTES = 5;
    private static final int CHANGE_CIPHER_SPEC = 20;
    private static final int HANDSHAKE = 22;
    private static final int CLIENT_HELLO = 1;
    private static final int SERVER_HELLO = 2;
    /** Handshake type, 24-bit length, legacy version and random: where a ServerHello's random ends. */
    private static final int SERVER_HELLO_PREFIX_BYTES = 4 + 2 + 32;
    /** SHA-256 of "HelloRetryRequest", the random of a HelloRetryRequest (RFC 8446 §4.1.3). */
    private static final byte[] HELLO_RETRY_RANDOM = {
        (byte) 0xCF, 0x21, (byte) 0xAD, 0x74, (byte) 0xE5, (byte) 0x9A, 0x61, 0x11, (byte) 0xBE, 0x1D, (byte) 0x8C,
        0x02, 0x1E, 0x65, (byte) 0xB8, (byte) 0x91, (byte) 0xC2, (byte) 0xA2, 0x11, 0x16, 0x7A, (byte) 0xBB,
        (byte) 0x8C, 0x5E, 0x07, (byte) 0x9E, 0x09, (byte) 0xE2, (byte) 0xC8, (byte) 0xA8, 0x33, (byte) 0x9C};

    private enum Phase { CLIENT_HELLO, SERVER_FLIGHT, DONE, DECLINED }

    /**
     * Walks one direction's byte stream record by record, keeping the header of the current record
     * and the first bytes of the body of the first record.
     */
    private static final class Records {
        final byte[] header = new byte[RECORD_HEADER_BYTES];
        int headerFill;
        /** Body bytes of the current record still to come; its header is complete while above 0. */
        int bodyLeft;
        int records;
        final byte[] firstBody;
        int firstBodyFill;

        Records(int firstBodyBytes) {
            firstBody = new byte[firstBodyBytes];
        }

        int type() {
            return header[0] & 0xFF;
        }
    }

    private final Records out = new Records(4);
    private final Records in = new Records(SERVER_HELLO_PREFIX_BYTES);
    private Phase phase = Phase.CLIENT_HELLO;
    private int clientHelloBytes;
    /** The ClientHello's bytes still to come once its 4-byte header is read; -1 before. */
    private int clientHelloLeft = -1;
    private int serverFlightBytes;
    private boolean clientHelloWritten;
    private long clientHelloNanos;

    /** Whether the connection has written its first bytes, the ClientHello's. */
    boolean clientHelloWritten() {
        return clientHelloWritten;
    }

    /** When the ClientHello's first byte was written ({@link System#nanoTime()}), once {@link #clientHelloWritten()}. */
    long clientHelloNanos() {
        return clientHelloNanos;
    }

    /**
     * The ClientHello and the server's first flight, or null while they are incomplete or when this
     * connection is declined. Asked when the handshake is done, it may precede the client's last
     * write of a TLS 1.3 or resumed handshake: the server's flight is whole by then, since the
     * client finished on its last record.
     */
    TlsFlights flights() {
        if (phase == Phase.DONE || (phase == Phase.SERVER_FLIGHT && in.records > 0 && in.bodyLeft == 0
                && in.headerFill == 0 && in.firstBodyFill == in.firstBody.length)) {
            return new TlsFlights(clientHelloBytes, serverFlightBytes);
        }
        return null;
    }

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
        if (!clientHelloWritten && msg instanceof ByteBuf b && b.isReadable()) {
            clientHelloNanos = System.nanoTime();
            clientHelloWritten = true;
        }
        if (msg instanceof ByteBuf b && (phase == Phase.CLIENT_HELLO || phase == Phase.SERVER_FLIGHT)) {
            written(b);
        }
        ctx.write(msg, promise);
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (msg instanceof ByteBuf b && phase == Phase.SERVER_FLIGHT) {
            read(b);
        }
        ctx.fireChannelRead(msg);
    }

    private void written(ByteBuf b) {
        int i = b.readerIndex();
        int end = b.writerIndex();
        while (i < end && (phase == Phase.CLIENT_HELLO || phase == Phase.SERVER_FLIGHT)) {
            if (out.bodyLeft == 0) {
                i = header(out, b, i, end);
                if (out.headerFill < RECORD_HEADER_BYTES) {
                    return;
                }
                out.headerFill = 0;
                out.records++;
                if (phase == Phase.CLIENT_HELLO) {
                    if (out.type() != HANDSHAKE) {
                        phase = Phase.DECLINED;
                        return;
                    }
                    clientHelloBytes += RECORD_HEADER_BYTES + out.bodyLeft;
                } else if (in.records > 0 && out.type() != CHANGE_CIPHER_SPEC) {
                    phase = Phase.DONE;
                    return;
                }
                continue;
            }
            int n = Math.min(out.bodyLeft, end - i);
            if (phase == Phase.CLIENT_HELLO) {
                clientHelloBody(b, i, n);
            }
            out.bodyLeft -= n;
            i += n;
            if (phase == Phase.CLIENT_HELLO && out.bodyLeft == 0 && clientHelloLeft == 0) {
                phase = Phase.SERVER_FLIGHT;
            }
        }
    }

    /** {@code n} body bytes of a ClientHello record from {@code i}: its header first, then its length counted down. */
    private void clientHelloBody(ByteBuf b, int i, int n) {
        int k = 0;
        while (k < n && out.firstBodyFill < out.firstBody.length) {
            out.firstBody[out.firstBodyFill++] = b.getByte(i + k++);
            if (out.firstBodyFill == out.firstBody.length) {
                if ((out.firstBody[0] & 0xFF) != CLIENT_HELLO) {
                    phase = Phase.DECLINED;
                    return;
                }
                clientHelloLeft = uint24(out.firstBody, 1);
            }
        }
        if (clientHelloLeft > 0) {
            clientHelloLeft -= Math.min(clientHelloLeft, n - k);
        }
    }

    private void read(ByteBuf b) {
        int i = b.readerIndex();
        int end = b.writerIndex();
        while (i < end && phase == Phase.SERVER_FLIGHT) {
            if (in.bodyLeft == 0) {
                i = header(in, b, i, end);
                if (in.headerFill < RECORD_HEADER_BYTES) {
                    return;
                }
                in.headerFill = 0;
                if (in.records++ == 0 && (in.type() != HANDSHAKE || in.bodyLeft < in.firstBody.length)) {
                    phase = Phase.DECLINED;
                    return;
                }
                serverFlightBytes += RECORD_HEADER_BYTES + in.bodyLeft;
                continue;
            }
            int n = Math.min(in.bodyLeft, end - i);
            if (in.records == 1) {
                for (int k = 0; k < n && in.firstBodyFill < in.firstBody.length; k++) {
                    in.firstBody[in.firstBodyFill++] = b.getByte(i + k);
                }
                if (in.firstBodyFill == in.firstBody.length && !serverHello()) {
                    phase = Phase.DECLINED;
                    return;
                }
            }
            in.bodyLeft -= n;
            i += n;
        }
    }

    /** Whether the first server record begins with a ServerHello that is not a HelloRetryRequest. */
    private boolean serverHello() {
        if ((in.firstBody[0] & 0xFF) != SERVER_HELLO) {
            return false;
        }
        for (int k = 0; k < HELLO_RETRY_RANDOM.length; k++) {
            if (in.firstBody[6 + k] != HELLO_RETRY_RANDOM[k]) {
                return true;
            }
        }
        return false;
    }

    /**
     * Reads record header bytes from {@code i}; when the header is complete, the record's body length
     * is set to come, and a header that is not TLS's (version 3.x, length up to 2^14 + 2048 as RFC 5246
     * §6.2.3 allows) declines. Returns where reading stopped.
     */
    private int header(Records r, ByteBuf b, int i, int end) {
        while (i < end && r.headerFill < RECORD_HEADER_BYTES) {
            r.header[r.headerFill++] = b.getByte(i++);
        }
        if (r.headerFill == RECORD_HEADER_BYTES) {
            int length = ((r.header[3] & 0xFF) << 8) | (r.header[4] & 0xFF);
            if (r.header[1] != 3 || length == 0 || length > (1 << 14) + 2048) {
                phase = Phase.DECLINED;
                r.headerFill = 0;
                return end;
            }
            r.bodyLeft = length;
        }
        return i;
    }

    private static int uint24(byte[] a, int at) {
        return ((a[at] & 0xFF) << 16) | ((a[at + 1] & 0xFF) << 8) | (a[at + 2] & 0xFF);
    }
}
