package org.sipcrypt.server.auth;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The relay fuzz never sends a mutant that names an address off the loopback addresses it was given. */
class RelayFuzzerTest {

    private static final String SEED = "BYE sip:bob@127.0.0.2:5002 SIP/2.0\r\n"
            + "Via: SIP/2.0/UDP 127.0.0.1:5001;branch=z9hG4bK-sc-0a1b.k.7f;rport\r\n"
            + "Route: <sip:127.0.0.1:5060;transport=udp;lr;sc-dlg=AbC>\r\nMax-Forwards: 70\r\n"
            + "From: <sip:alice@127.0.0.1>;tag=a\r\nTo: <sip:bob@127.0.0.2:5002>;tag=b\r\nCall-ID: c\r\n"
            + "CSeq: 3 BYE\r\nContent-Length: 0\r\n\r\n";
    private final RelayFuzzer fuzzer = new RelayFuzzer(List.of("127.0.0.1", "127.0.0.2", "127.0.0.3"),
            List.of("c", "a", "b", "x"));

    @Test
    void theSeedAndItsLoopbackMutantsAreSafe() {
        assertTrue(fuzzer.safe(SEED));
        List<String> addresses = List.of("127.0.0.1:5060", "127.0.0.3:5003");
        long safe = 0;
        for (long i = 0; i < 2_000; i++) {
            if (fuzzer.safe(fuzzer.mutate(SEED, 1, i, addresses))) {
                safe++;
            }
        }
        assertTrue(safe > 1_900, "mutations of loopback addresses stay safe: " + safe);
    }

    @ParameterizedTest
    @ValueSource(strings = {"sip:bob@192.0.2.1", "sip:bob@1.1", "sip:bob@example.com", "sip:127.0.0.9:5060",
            "SIP/2.0/UDP 198.51.100.7:5060", "SIP/2.0/TCP host.example", ";received=203.0.113.1", ";maddr=10.1.2.3",
            "sip:bob@127.0.0.01", "sip:bob@127.1", "sip:bob@[::1]", "sip:bob@%31%32%37.0.0.1", "x 203.0.113.9 y",
            "sips:bob@127.0.0.2x"})
    void aMutantNamingAnyOtherHostIsNotSent(String fragment) {
        assertFalse(fuzzer.safe(SEED.replace("Call-ID: c", "Call-ID: c\r\nContact: <" + fragment + ">")), fragment);
    }
}
