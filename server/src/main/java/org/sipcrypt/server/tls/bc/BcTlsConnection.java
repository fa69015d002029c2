package org.sipcrypt.server.tls.bc;

import java.io.IOException;
import java.security.cert.X509Certificate;
import java.util.Locale;
import org.bouncycastle.tls.AlertDescription;
import org.bouncycastle.tls.NamedGroup;
import org.bouncycastle.tls.TlsClientProtocol;
import org.bouncycastle.tls.TlsProtocol;
import org.bouncycastle.tls.TlsServerProtocol;
import org.sipcrypt.server.tls.KeyExchangeGroup;

/**
 * One TLS connection on Bouncy Castle's TLS API in non-blocking mode: bytes from the network go in
 * with {@link #offer}, bytes for the network come out of {@link #takeOutput}, decrypted application
 * data out of {@link #takeInput}, and application data to send goes in with {@link #write}. Knows
 * nothing of sockets; the transport moves the bytes.
 * Threading: confined to one thread at a time (the connection's event loop).
 */
public final class BcTlsConnection {

    /** TLS record content types: change_cipher_spec, alert, handshake, application_data, heartbeat. */
    private static final int FIRST_CONTENT_TYPE = 20;
    private static final int LAST_CONTENT_TYPE = 24;

    private final TlsProtocol protocol;
    private final Outcome outcome;
    /** The protocol's first step with its peer: a server protocol accepts, a client protocol connects. */
    private final Start start;
    private boolean sawInput;
    private boolean notTls;

    /** An accepted connection: a server protocol with {@code server} as its peer. */
    BcTlsConnection(ServerPeer server) {
        TlsServerProtocol accepting = new TlsServerProtocol();
        this.protocol = accepting;
        this.outcome = server.outcome;
        this.start = () -> accepting.accept(server);
    }

    /** An outgoing connection: a client protocol with {@code client} as its peer. */
    BcTlsConnection(ClientPeer client) {
        TlsClientProtocol connecting = new TlsClientProtocol();
        this.protocol = connecting;
        this.outcome = client.outcome;
        this.start = () -> connecting.connect(client);
    }

    /** How the handshake begins, bound to the protocol and its peer when the connection is made. */
    @FunctionalInterface
    private interface Start {
        void run() throws IOException;
    }

    /** Begins the handshake; a client's ClientHello is then in {@link #takeOutput}. */
    public void start() throws IOException {
        start.run();
    }

    /**
     * Bytes received from the peer; any complete records are processed.
     *
     * @throws IOException the connection failed (an alert to send may be in {@link #takeOutput})
     */
    public void offer(byte[] bytes, int off, int len) throws IOException {
        if (!sawInput && len > 0) {
            sawInput = true;
            int type = bytes[off] & 0xFF;
            notTls = type < FIRST_CONTENT_TYPE || type > LAST_CONTENT_TYPE;
        }
        protocol.offerInput(bytes, off, len);
    }

    /** TLS bytes to send to the peer, or null when there are none. */
    public byte[] takeOutput() {
        return take(protocol.getAvailableOutputBytes(), protocol::readOutput);
    }

    /** Decrypted application data, or null when there is none. */
    public byte[] takeInput() {
        return take(protocol.getAvailableInputBytes(), protocol::readInput);
    }

    /** Reads bytes the protocol holds: its output records or its decrypted input. */
    @FunctionalInterface
    private interface Reader {
        int read(byte[] buffer, int off, int len);
    }

    private static byte[] take(int available, Reader reader) {
        if (available == 0) {
            return null;
        }
        byte[] bytes = new byte[available];
        reader.read(bytes, 0, available);
        return bytes;
    }

    /** Encrypts application data; the records are then in {@link #takeOutput}. Only after the handshake. */
    public void write(byte[] bytes, int off, int len) throws IOException {
        protocol.writeApplicationData(bytes, off, len);
    }

    /** Sends close_notify (then in {@link #takeOutput}) and closes this side. */
    public void close() throws IOException {
        if (!protocol.isClosed()) {
            protocol.close();
        }
    }

    /** Whether the handshake has completed. */
    public boolean handshakeComplete() {
        return outcome.complete;
    }

    /** Whether this is the client's side of the connection (one opened to a peer). */
    public boolean client() {
        return protocol instanceof TlsClientProtocol;
    }

    /** Whether the handshake resumed an earlier session. */
    public boolean resumed() {
        return outcome.resumed;
    }

    /** Whether the peer tried to renegotiate (refused with a no_renegotiation warning). */
    public boolean renegotiationRefused() {
        return outcome.renegotiationRefused;
    }

    /** Whether the connection is closed (by close_notify either way, or by a failure). */
    public boolean isClosed() {
        return protocol.isClosed();
    }

    /** The negotiated suite's IANA code, or -1 before the handshake completed. */
    public int cipherSuite() {
        return outcome.suite;
    }

    /**
     * The key-exchange group of the handshake by its {@code tls.groups} name ({@code x25519mlkem768}),
     * {@code none} when it used none (RSA key exchange, a resumed TLS 1.2 session), {@code unknown}
     * where this side cannot tell (the dialling side) or before the handshake completed.
     */
    public String keyExchangeGroup() {
        if (outcome.group == Outcome.NO_GROUP) {
            return "none";
        }
        if (outcome.group < 0) {
            return "unknown";
        }
        KeyExchangeGroup g = KeyExchangeGroup.ofCode(outcome.group);
        return g != null ? g.configName() : String.valueOf(NamedGroup.getName(outcome.group)).toLowerCase(Locale.ROOT);
    }

    /** The peer's chain (a server's, or a client certificate; verified unless peer checks are off), or null. */
    public X509Certificate[] peerCertificates() {
        return outcome.peerChain == null ? null : outcome.peerChain.clone();
    }

    /**
     * Why the handshake failed, as a metric tag: {@code not_tls}, {@code no_shared_cipher},
     * {@code bad_certificate} or {@code handshake}.
     */
    public String failureReason() {
        if (notTls) {
            return "not_tls";
        }
        if (outcome.alert == AlertDescription.handshake_failure || outcome.alert == AlertDescription.insufficient_security) {
            String m = String.valueOf(outcome.alertMessage).toLowerCase(java.util.Locale.ROOT);
            return m.contains("cipher") || !outcome.alertSent ? "no_shared_cipher" : "handshake";
        }
        return switch (outcome.alert) {
            case AlertDescription.bad_certificate, AlertDescription.certificate_unknown, AlertDescription.unknown_ca,
                 AlertDescription.certificate_expired, AlertDescription.certificate_required,
                 AlertDescription.unsupported_certificate -> "bad_certificate";
            case AlertDescription.certificate_revoked -> "revoked";
            case AlertDescription.unrecognized_name -> "unrecognized_name";
            default -> "handshake";
        };
    }

    /** The last alert sent or received, for the log: {@code sent handshake_failure(40): ...}. */
    public String lastAlert() {
        if (outcome.alert < 0) {
            return "no alert";
        }
        return (outcome.alertSent ? "sent " : "received ") + AlertDescription.getText(outcome.alert)
                + (outcome.alertMessage == null ? "" : ": " + outcome.alertMessage);
    }
}
