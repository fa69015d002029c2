package org.sipcrypt.server.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.sipcrypt.server.testing.Await;
import org.sipcrypt.server.testing.TestPki;
import org.sipcrypt.server.testing.TestServer;

/**
 * The tls listener on the bc engine (Bouncy Castle's TLS API): besides what every engine must do,
 * each built-in suite openssl speaks forced as the only one (Camellia, SEED with openssl's legacy
 * provider, AES CBC, GCM and ECDHE), on both crypto engines where the provider has both, and
 * handshakes on handshake threads instead of the event loops, and TLS 1.2 session tickets.
 */
class BcTlsListenerIT extends TlsListenerContract {

    /** Bouncy Castle 1.82's TLS 1.3 server sends no certificate status: stapling is TLS 1.2 only. */
    @Override
    String staplingVersion() {
        return "-tls1_2";
    }

    @Override
    String engine() {
        return "bc";
    }

    @ParameterizedTest(name = "{0} on {1} crypto")
    @CsvSource({
        "AES128-SHA, jca, aes", "AES128-SHA, bc, aes", "AES256-SHA, bc, aes", "AES128-GCM-SHA256, jca, aes",
        "ECDHE-RSA-AES256-GCM-SHA384, bc, aes", "CAMELLIA128-SHA, bc, camellia", "CAMELLIA256-SHA, bc, camellia",
        "SEED-SHA, bc, seed"})
    void opensslForcedToOneSuiteGetsOptionsAnswered(String suite, String crypto, String provider) throws Exception {
        try (TestServer server = start("tls.ciphers", provider, "tls.crypto", crypto)) {
            int port = server.address(Transport.TLS).getPort();
            // openssl 3 keeps SEED in its legacy provider and below its default security level
            String[] legacy = suite.equals("SEED-SHA") ? new String[] {"-provider", "legacy", "-provider", "default"}
                    : new String[0];
            String cipher = suite.equals("SEED-SHA") ? suite + ":@SECLEVEL=0" : suite;
            String[] args = {"-connect", "127.0.0.1:" + port, "-tls1_2", "-cipher", cipher, "-CAfile", "ca.pem",
                "-verify_return_error", "-brief"};
            String[] all = java.util.Arrays.copyOf(legacy, legacy.length + args.length);
            System.arraycopy(args, 0, all, legacy.length, args.length);
            String out = openssl(options(port, "bc-" + suite), "SIP/2.0 200", all);
            assertTrue(out.contains("SIP/2.0 200 OK"), out);
            assertTrue(out.contains("Ciphersuite: " + suite), "negotiated suite: " + out);
        }
    }

    @Test
    void jdkClientsOnTls12AndTls13WithHandshakeThreads() throws Exception {
        try (TestServer server = start("tls.handshakeThreads", "2", "tls.crypto", "aes:bc")) {
            int port = server.address(Transport.TLS).getPort();
            var ctx = TestPki.sslContext(certs, null, null);
            String v12 = jdkOptions(ctx, port, "bc-jdk-12", "TLSv1.2");
            assertTrue(v12.startsWith("TLSv1.2 TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256") && v12.contains("\nSIP/2.0 200 OK"), v12);
            String v13 = jdkOptions(ctx, port, "bc-jdk-13", "TLSv1.3");
            assertTrue(v13.startsWith("TLSv1.3 TLS_AES_128_GCM_SHA256") && v13.contains("\nSIP/2.0 200 OK"), v13);
            Await.until(() -> server.server().transportCounters().value("tls.handshakes", "kind", "full") >= 2,
                    Duration.ofSeconds(5), () -> server.server().statsLine());
        }
    }

    /**
     * TLS 1.2 session tickets (RFC 5077) against {@code openssl s_client}: a client that asks gets a
     * ticket, and a later client given that session ({@code -sess_out}, {@code -sess_in}) resumes by
     * it. OpenSSL offers the ticket with the SHA-256 of the ticket as its session ID, an ID the
     * server never granted, so only the ticket can resume it. With reuse off no ticket is issued.
     */
    @Test
    void opensslResumesATls12SessionByItsTicket() throws Exception {
        try (TestServer server = start()) {
            int port = server.address(Transport.TLS).getPort();
            String first = openssl(options(port, "ticket-1"), "SIP/2.0 200", "-connect", "127.0.0.1:" + port,
                    "-tls1_2", "-CAfile", "ca.pem", "-sess_out", "ticket.pem");
            assertTrue(first.contains("SIP/2.0 200 OK") && first.contains("\nNew, "), first);
            assertTrue(first.contains("TLS session ticket lifetime hint: 3600 (seconds)"), first);
            String again = openssl(options(port, "ticket-2"), "SIP/2.0 200", "-connect", "127.0.0.1:" + port,
                    "-tls1_2", "-CAfile", "ca.pem", "-sess_in", "ticket.pem");
            assertTrue(again.contains("SIP/2.0 200 OK") && again.contains("\nReused, "), again);
            Await.until(() -> server.server().transportCounters().value("tls.handshakes", "kind", "resumed") == 1
                    && server.server().transportCounters().value("tls.handshakes", "kind", "full") == 1,
                    Duration.ofSeconds(5), () -> server.server().statsLine());
        }
        try (TestServer server = start("tls.sessionReuse", "off")) {
            int port = server.address(Transport.TLS).getPort();
            String out = openssl(options(port, "no-ticket"), "SIP/2.0 200", "-connect", "127.0.0.1:" + port,
                    "-tls1_2", "-CAfile", "ca.pem");
            assertTrue(out.contains("SIP/2.0 200 OK"), out);
            assertFalse(out.contains("TLS session ticket lifetime hint"), out);
        }
    }
}
