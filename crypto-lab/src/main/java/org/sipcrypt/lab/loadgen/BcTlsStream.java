package org.sipcrypt.lab.loadgen;

import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.sipcrypt.server.tls.bc.BcTlsConnection;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * SIP over TLS on the server's bc engine ({@link BcTlsConnection}, Bouncy Castle's non-blocking
 * protocol) driven over a blocking socket: the reader thread offers what it reads and writes back
 * whatever the protocol has to send (handshake records, alerts); {@link #send} encrypts and writes.
 * Every use of the {@code BcTlsConnection} is under one lock, since it is confined to one thread at
 * a time.
 * Threading: as {@link StreamConnection}.
 */
final class BcTlsStream extends StreamConnection {

    private static final Logger log = LoggerFactory.getLogger(BcTlsStream.class);

    private final BcTlsConnection tls;
    private final OutputStream out;
    private final CountDownLatch settled = new CountDownLatch(1);
    private boolean counted;
    private volatile String failure;

    BcTlsStream(Socket socket, BcTlsConnection tls, LegCounters counters, Listener listener) throws IOException {
        super(socket, counters, listener, "tls");
        this.tls = tls;
        this.out = socket.getOutputStream();
    }

    /** Starts the handshake and the reader; a client then waits for {@link #awaitHandshake}. */
    void begin() throws IOException {
        synchronized (tls) {
            tls.start();
            flush();
        }
        startReader();
    }

    /**
     * Waits until the handshake completed.
     *
     * @throws IOException when it failed, the connection closed first, or {@code timeout} passed
     */
    void awaitHandshake(Duration timeout) throws IOException {
        try {
            if (!settled.await(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                close();
                counters.handshakesFailed.increment();
                throw new IOException("TLS handshake not done after " + timeout);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted during the TLS handshake", e);
        }
        if (failure != null) {
            throw new IOException("TLS handshake failed: " + failure);
        }
    }

    /** Writes what the protocol has to send; the caller holds the lock on {@code tls}. */
    private void flush() throws IOException {
        byte[] b = tls.takeOutput();
        if (b != null) {
            out.write(b);
            out.flush();
        }
    }

    @Override
    public String viaTransport() {
        return "TLS";
    }

    @Override
    public void send(byte[] message) throws IOException {
        synchronized (tls) {
            if (!tls.handshakeComplete() || tls.isClosed()) {
                throw new IOException("TLS connection not open for application data");
            }
            tls.write(message, 0, message.length);
            flush();
        }
    }

    @Override
    public boolean resumed() {
        return tls.resumed();
    }

    @Override
    protected byte[] decode(byte[] raw, int len) throws IOException {
        synchronized (tls) {
            try {
                tls.offer(raw, 0, len);
            } catch (IOException e) {
                failure = tls.failureReason() + " (" + tls.lastAlert() + ")";
                try {
                    flush();
                } catch (IOException alreadyBroken) {
                    log.debug("{} alert not sent: {}", this, alreadyBroken.toString());
                }
                if (!counted) {
                    counters.handshakesFailed.increment();
                    counted = true;
                }
                settled.countDown();
                throw e;
            }
            flush();
            if (tls.handshakeComplete() && !counted) {
                counted = true;
                counters.handshakes.increment();
                if (tls.resumed()) {
                    counters.resumed.increment();
                }
                settled.countDown();
            }
            if (tls.isClosed()) {
                settled.countDown();
                throw new IOException("close_notify received");
            }
            return tls.takeInput();
        }
    }

    @Override
    protected void beforeClose() {
        synchronized (tls) {
            try {
                tls.close();
                flush();
            } catch (IOException e) {
                log.debug("{} close_notify not sent: {}", this, e.toString());
            }
        }
        settled.countDown();
        if (failure == null && !tls.handshakeComplete()) {
            failure = "closed before the handshake completed";
        }
    }
}
