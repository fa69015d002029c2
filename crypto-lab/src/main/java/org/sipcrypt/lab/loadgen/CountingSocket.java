package org.sipcrypt.lab.loadgen;

import java.io.FilterInputStream;
import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;

/**
 * A TCP socket whose streams count the bytes that cross them, so TLS record overhead is counted
 * the same way for every TLS engine (SunJSSE's {@code SSLSocket} is layered over it).
 * Threading: as {@link Socket}: one reader and one writer at a time.
 */
final class CountingSocket extends Socket {

    private final LegCounters counters;
    private InputStream in;
    private OutputStream out;

    CountingSocket(LegCounters counters) {
        this.counters = counters;
    }

    @Override
    public synchronized InputStream getInputStream() throws IOException {
        if (in == null) {
            in = new FilterInputStream(super.getInputStream()) {
                @Override
                public int read() throws IOException {
                    int b = super.read();
                    if (b >= 0) {
                        counters.bytesReceived.increment();
                    }
                    return b;
                }

                @Override
                public int read(byte[] b, int off, int len) throws IOException {
                    int n = super.read(b, off, len);
                    if (n > 0) {
                        counters.bytesReceived.add(n);
                    }
                    return n;
                }
            };
        }
        return in;
    }

    @Override
    public synchronized OutputStream getOutputStream() throws IOException {
        if (out == null) {
            out = new FilterOutputStream(super.getOutputStream()) {
                @Override
                public void write(int b) throws IOException {
                    out.write(b);
                    counters.bytesSent.increment();
                }

                @Override
                public void write(byte[] b, int off, int len) throws IOException {
                    out.write(b, off, len);
                    counters.bytesSent.add(len);
                }
            };
        }
        return out;
    }
}
