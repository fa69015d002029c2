package org.sipcrypt.lab.loadgen;

import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.util.Arrays;

/**
 * SIP over plain TCP.
 * Threading: as {@link StreamConnection}; writes are serialised on the output stream.
 */
final class PlainStream extends StreamConnection {

    private final OutputStream out;

    PlainStream(Socket socket, LegCounters counters, Listener listener) throws IOException {
        super(socket, counters, listener, "tcp");
        this.out = socket.getOutputStream();
    }

    @Override
    public String viaTransport() {
        return "TCP";
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
        return false;
    }

    @Override
    protected byte[] decode(byte[] raw, int len) {
        return Arrays.copyOf(raw, len);
    }
}
