package org.sipcrypt.jmh;

import java.io.IOException;

/**
 * A TLS connection pair after its handshake, seen as a record layer: the client side protects
 * application data into records, the server side unprotects them, each through its engine's own
 * API as the server's transport calls it. Records must be unprotected in the order they were
 * protected (TLS sequence numbers), each once.
 * Threading: confined to one thread (a JMH thread-scoped state).
 */
interface RecordChannel {

    /** Protects {@code payload} into one record on the client side; returns the record's length in bytes. */
    int protect(byte[] payload) throws IOException;

    /** Protects {@code payload} into one record and returns a copy of the record, to be unprotected later. */
    byte[] protectToArray(byte[] payload) throws IOException;

    /**
     * Unprotects one whole record on the server side; returns the plaintext length.
     *
     * @throws IllegalStateException the record did not yield application data
     */
    int unprotect(byte[] record) throws IOException;

    /** The plaintext of the last record unprotected (a copy). */
    byte[] lastPlaintext();

    /** The negotiated suite as the engine names it. */
    String negotiatedSuite();
}
