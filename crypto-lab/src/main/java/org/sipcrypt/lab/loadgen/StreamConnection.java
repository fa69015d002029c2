package org.sipcrypt.lab.loadgen;

import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.sipcrypt.server.concurrent.NamedThreads;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One TCP or TLS connection of the generator over a blocking socket: a reader thread of its own
 * reads, decrypts where needed, frames and hands each SIP message to the {@link Listener}; any
 * thread may {@link #send}. Blocking sockets with a thread per connection keep the TLS drivers
 * short and the byte path easy to check; they bound the generator to a few thousand open
 * connections, which per-call runs at lab rates stay well below.
 * Threading: thread-safe; {@link #send} blocks while the socket's send buffer is full.
 */
public abstract class StreamConnection implements Closeable {

    private static final Logger log = LoggerFactory.getLogger(StreamConnection.class);
    private static final AtomicInteger READERS = new AtomicInteger();
    static final int MAX_MESSAGE_BYTES = 65535;

    /** Receives what a connection reads. */
    public interface Listener {
        /** A whole SIP message arrived (on the connection's reader thread). */
        void message(StreamConnection from, SipMessage message);

        /** The connection is closed; {@code reason} is {@code eof}, {@code closed}, or what failed. */
        void closed(StreamConnection connection, String reason);
    }

    protected final Socket socket;
    protected final LegCounters counters;
    private final Listener listener;
    private final StreamFramer framer = new StreamFramer(MAX_MESSAGE_BYTES);
    private final AtomicBoolean closed = new AtomicBoolean();
    private final String name;

    protected StreamConnection(Socket socket, LegCounters counters, Listener listener, String name) {
        this.socket = socket;
        this.counters = counters;
        this.listener = listener;
        this.name = name;
    }

    /** The transport name for Via headers: {@code TCP} or {@code TLS}. */
    public abstract String viaTransport();

    /** Sends one whole SIP message. */
    public abstract void send(byte[] message) throws IOException;

    /** Whether this connection's TLS handshake resumed a session (false for TCP). */
    public abstract boolean resumed();

    /**
     * Turns bytes read from the socket into application bytes (decrypting, answering handshake
     * records); null when there are none yet.
     */
    protected abstract byte[] decode(byte[] raw, int len) throws IOException;

    /** Runs on the reader thread before the first read (the server side of a JSSE handshake). */
    protected void beforeReading() throws IOException {
    }

    /** Starts the reader thread. */
    final void startReader() {
        NamedThreads.named("lab-reader-" + READERS.incrementAndGet()).start(this::readLoop);
    }

    private void readLoop() {
        String reason = "eof";
        try {
            beforeReading();
            InputStream in = socket.getInputStream();
            byte[] buf = new byte[16384];
            int n;
            while ((n = in.read(buf)) >= 0) {
                byte[] app = decode(buf, n);
                if (app != null) {
                    for (SipMessage m : framer.feed(app, 0, app.length)) {
                        listener.message(this, m);
                    }
                }
            }
        } catch (IOException e) {
            reason = closed.get() ? "closed" : e.getClass().getSimpleName() + ": " + e.getMessage();
        } catch (IllegalArgumentException e) {
            reason = "framing: " + e.getMessage();
        }
        if (!closed.get()) {
            log.debug("{} closed by the peer or failed: {}", this, reason);
        }
        closeQuietly();
        listener.closed(this, reason);
    }

    /** The local address. */
    public InetSocketAddress localAddress() {
        return (InetSocketAddress) socket.getLocalSocketAddress();
    }

    /** The peer's address. */
    public InetSocketAddress remoteAddress() {
        return (InetSocketAddress) socket.getRemoteSocketAddress();
    }

    /** Whether {@link #close} was called or the connection failed. */
    public boolean isClosed() {
        return closed.get();
    }

    /** Sends what closing needs (TLS close_notify) before the socket closes. */
    protected void beforeClose() {
    }

    @Override
    public void close() {
        closeQuietly();
    }

    private void closeQuietly() {
        if (closed.compareAndSet(false, true)) {
            beforeClose();
            try {
                socket.close();
            } catch (IOException e) {
                log.debug("{} close failed: {}", this, e.toString());
            }
        }
    }

    @Override
    public String toString() {
        return name + " " + socket.getLocalSocketAddress() + "->" + socket.getRemoteSocketAddress();
    }
}
