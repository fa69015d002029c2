package org.sipcrypt.lab.loadgen;

import java.io.Closeable;
import java.io.IOException;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetSocketAddress;
import java.net.SocketException;
import java.time.Duration;
import java.util.function.BiConsumer;
import org.sipcrypt.server.concurrent.NamedThreads;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The generator's one UDP socket of a side: a receiver thread parses each datagram and hands it on
 * with its source address; any thread may {@link #send}. Unparsable datagrams are counted and dropped.
 * With a one-way delay, each datagram sent and each received waits for it in the lab delay stage
 * ({@link DatagramDelayLine}) before it leaves or is handed on.
 * Threading: thread-safe; {@link #send} does not block beyond the kernel's send buffer.
 */
public final class UdpEndpoint implements Closeable {

    private static final Logger log = LoggerFactory.getLogger(UdpEndpoint.class);

    private final DatagramSocket socket;
    private final LegCounters counters;
    private final DatagramDelayLine delay;
    private volatile long dropped;
    private volatile boolean sendFailed;

    /** Binds the socket (port 0 for any free port) and starts the receiver thread; no delay. */
    public UdpEndpoint(InetSocketAddress bind, LegCounters counters, BiConsumer<SipMessage, InetSocketAddress> receiver,
                       String threadName) throws SocketException {
        this(bind, counters, receiver, threadName, Duration.ZERO);
    }

    /**
     * Binds the socket (port 0 for any free port) and starts the receiver thread, and with a one-way
     * delay above zero the delay stage's thread ({@code threadName-delay}).
     */
    public UdpEndpoint(InetSocketAddress bind, LegCounters counters, BiConsumer<SipMessage, InetSocketAddress> receiver,
                       String threadName, Duration oneWayDelay) throws SocketException {
        if (oneWayDelay.isNegative()) {
            throw new IllegalArgumentException("--one-way-delay: " + oneWayDelay + " (expected 0 or more)");
        }
        this.socket = new DatagramSocket(bind);
        this.counters = counters;
        socket.setReceiveBufferSize(4 << 20);
        socket.setSendBufferSize(4 << 20);
        this.delay = oneWayDelay.isZero() ? null : new DatagramDelayLine(oneWayDelay, threadName + "-delay");
        NamedThreads.named(threadName).start(() -> receive(receiver));
    }

    private void receive(BiConsumer<SipMessage, InetSocketAddress> receiver) {
        byte[] buf = new byte[65535];
        DatagramPacket p = new DatagramPacket(buf, buf.length);
        while (!socket.isClosed()) {
            try {
                p.setLength(buf.length);
                socket.receive(p);
                counters.bytesReceived.add(p.getLength());
                SipMessage m;
                try {
                    m = SipMessage.parse(p.getData(), p.getOffset(), p.getLength());
                } catch (IllegalArgumentException e) {
                    if (dropped++ == 0) {
                        log.warn("unparsable datagram from {} dropped: {}", p.getSocketAddress(), e.getMessage());
                    }
                    continue;
                }
                InetSocketAddress from = (InetSocketAddress) p.getSocketAddress();
                if (delay == null) {
                    receiver.accept(m, from);
                } else {
                    SipMessage held = m;
                    delay.hold(p.getLength(), () -> receiver.accept(held, from));
                }
            } catch (IOException e) {
                if (!socket.isClosed()) {
                    log.warn("udp {} receive failed: {}", socket.getLocalSocketAddress(), e.toString());
                }
            }
        }
    }

    /**
     * Sends one datagram; with a delay, it leaves after it, and a failure then is logged (once)
     * instead of thrown. {@code message} must not change afterwards.
     */
    public void send(byte[] message, InetSocketAddress to) throws IOException {
        if (delay == null) {
            sendNow(message, to);
            return;
        }
        delay.hold(message.length, () -> {
            try {
                sendNow(message, to);
            } catch (IOException e) {
                if (!socket.isClosed() && !sendFailed) {
                    sendFailed = true;
                    log.warn("udp {} send to {} failed: {}", socket.getLocalSocketAddress(), to, e.toString());
                }
            }
        });
    }

    private void sendNow(byte[] message, InetSocketAddress to) throws IOException {
        socket.send(new DatagramPacket(message, message.length, to));
        counters.bytesSent.add(message.length);
    }

    /** The bound address. */
    public InetSocketAddress localAddress() {
        return (InetSocketAddress) socket.getLocalSocketAddress();
    }

    /** Datagrams that did not parse as SIP. */
    public long dropped() {
        return dropped;
    }

    @Override
    public void close() {
        if (delay != null) {
            delay.close();
        }
        socket.close();
    }
}
