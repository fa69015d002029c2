package org.sipcrypt.lab.metrics;

/**
 * How large the opening of one TLS handshake is on the wire, as the client saw it below TLS: the
 * ClientHello (the TLS records carrying it, 5-byte record headers included) and the server's first
 * flight (every record the server sent before the client's second flight: ServerHello through
 * ServerHelloDone in TLS 1.2, ServerHello through the server's Finished in TLS 1.3, counted by record
 * length, not decrypted), and the TCP segments each takes at Ethernet's MSS: computed as
 * ceil(bytes / {@value #ETHERNET_MSS_BYTES}) for a flight written at once, not captured (loopback's
 * MSS of 65,483 bytes would hide what a deployment sees).
 * Threading: immutable.
 *
 * @param clientHelloBytes  the ClientHello's records, headers included
 * @param serverFlightBytes the server's first flight's records, headers included
 */
public record TlsFlights(int clientHelloBytes, int serverFlightBytes) {

    /** The TCP MSS of an Ethernet path with a 1,500-byte MTU (IPv4, no TCP options). */
    public static final int ETHERNET_MSS_BYTES = 1460;

    public TlsFlights {
        if (clientHelloBytes <= 0 || serverFlightBytes <= 0) {
            throw new IllegalArgumentException("clientHelloBytes " + clientHelloBytes + ", serverFlightBytes "
                    + serverFlightBytes + " (expected both above 0)");
        }
    }

    /** TCP segments of the ClientHello at {@value #ETHERNET_MSS_BYTES} bytes each. */
    public int clientHelloSegments() {
        return segments(clientHelloBytes);
    }

    /** TCP segments of the server's first flight at {@value #ETHERNET_MSS_BYTES} bytes each. */
    public int serverFlightSegments() {
        return segments(serverFlightBytes);
    }

    /** ceil(bytes / {@value #ETHERNET_MSS_BYTES}). */
    public static int segments(int bytes) {
        return (bytes + ETHERNET_MSS_BYTES - 1) / ETHERNET_MSS_BYTES;
    }
}
