package org.sipcrypt.lab.loadgen;

import java.io.IOException;
import java.io.OutputStream;
import java.util.Arrays;
import javax.net.ssl.SSLSession;
import javax.net.ssl.SSLSocket;

/**
 * SIP over TLS on the JDK's SunJSSE ({@link SSLSocket} layered over a {@link CountingSocket}): the
 * generator's engine for suites only SunJSSE runs (RC4). A session counts as resumed when it was
 * created before this connection's handshake began.
 * Threading: as {@link StreamConnection}; writes are serialised on the output stream.
 */
final class JsseStream extends StreamConnection {

    private final SSLSocket ssl;
    private final OutputStream out;
    private final boolean server;
    private volatile boolean resumed;

    JsseStream(SSLSocket ssl, LegCounters counters, Listener listener, boolean server) throws IOException {
        super(ssl, counters, listener, "tls");
        this.ssl = ssl;
        this.out = ssl.getOutputStream();
        this.server = server;
    }

    /** Runs the handshake on the calling thread and counts it. */
    void handshake() throws IOException {
        long began = System.currentTimeMillis();
        try {
            ssl.startHandshake();
        } catch (IOException e) {
            counters.handshakesFailed.increment();
            throw e;
        }
        SSLSession s = ssl.getSession();
        resumed = s.getCreationTime() < began;
        counters.handshakes.increment();
        if (resumed) {
            counters.resumed.increment();
        }
    }

    @Override
    protected void beforeReading() throws IOException {
        if (server) {
            handshake();
        }
    }

    @Override
    public String viaTransport() {
        return "TLS";
    }

    @Override
    public void send(byte[] message) throws IOException {
        synchronized (out) {
            out.write(message);
            out.flush();
        }
    }

    @Override
    public boolean resumed() {
        return resumed;
    }

    @Override
    protected byte[] decode(byte[] raw, int len) {
        return Arrays.copyOf(raw, len);
    }
}
