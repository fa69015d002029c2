package org.sipcrypt.jmh;

import java.io.IOException;
import org.sipcrypt.server.tls.bc.BcTlsConnection;
import org.sipcrypt.server.tls.bc.BcTlsSetup;

/**
 * The record layer of the bc engine: a client and a server {@code BcTlsConnection} from the
 * server's {@link BcTlsSetup}, so records go through the {@code TlsCipher} that the configured
 * {@code TlsCrypto} built for the suite (BC lightweight or JCA), exactly as on a live connection.
 * A record is protected by {@code write} + {@code takeOutput} and unprotected by {@code offer} +
 * {@code takeInput}, the calls the server's Netty handler makes (each returns a new array, as there).
 * Threading: confined to one thread.
 */
final class BcRecordChannel implements RecordChannel {

    private final BcTlsConnection client;
    private final BcTlsConnection server;
    private final String suite;
    private byte[] lastRecord;
    private byte[] lastPlain;

    BcRecordChannel(BcTlsSetup clientSetup, BcTlsSetup serverSetup) throws IOException {
        BcHandshake h = BcHandshake.run(clientSetup, serverSetup, LabFixture.SERVER);
        this.client = h.client;
        this.server = h.server;
        this.suite = String.format("0x%04X", server.cipherSuite());
    }

    @Override
    public int protect(byte[] payload) throws IOException {
        client.write(payload, 0, payload.length);
        lastRecord = client.takeOutput();
        return lastRecord.length;
    }

    @Override
    public byte[] protectToArray(byte[] payload) throws IOException {
        protect(payload);
        return lastRecord;
    }

    @Override
    public int unprotect(byte[] record) throws IOException {
        server.offer(record, 0, record.length);
        byte[] plain = server.takeInput();
        if (plain == null) {
            throw new IllegalStateException("bc: a record of " + record.length + " bytes gave no application data");
        }
        lastPlain = plain;
        return plain.length;
    }

    @Override
    public byte[] lastPlaintext() {
        return lastPlain.clone();
    }

    @Override
    public String negotiatedSuite() {
        return suite;
    }
}
