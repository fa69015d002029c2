package org.sipcrypt.server.auth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.sipcrypt.server.transport.Flow;
import org.sipcrypt.server.transport.Transport;

/**
 * The flow tokens of the Record-Route (RFC 5626 §5.3) and the flow text the location service
 * stores: each reads back exactly what was written, and nothing else; a seeded fuzz of a few
 * thousand altered, truncated and random inputs finds no other text accepted and nothing thrown.
 */
@Timeout(30)
class FlowTokensTest {

    private static final byte[] SECRET = "0123456789abcdef0123456789abcdef".getBytes(StandardCharsets.US_ASCII);
    private final FlowTokens tokens = new FlowTokens(SECRET);

    private static InetSocketAddress at(String ip, int port) throws Exception {
        return new InetSocketAddress(InetAddress.getByName(ip), port);
    }

    private static Flow tls() throws Exception {
        return new Flow(Transport.TLS, at("127.0.0.1", 5061), at("192.0.2.7", 40312), 42);
    }

    private static Flow udp6() throws Exception {
        return new Flow(Transport.UDP, at("::1", 5060), at("2001:db8::7", 1024), 0);
    }

    @Test
    void tokenReadsBackWhatWasWritten() throws Exception {
        FlowTokens.Token t = new FlowTokens.Token(tls(), true, udp6(), false);
        String text = tokens.write(t);
        assertEquals(t, tokens.read(text));
        FlowTokens.Token inOnly = new FlowTokens.Token(udp6(), false, null, false);
        assertEquals(inOnly, tokens.read(tokens.write(inOnly)));
    }

    @Test
    void theOtherFlowIsChosenByTheOneARequestArrivedOn() throws Exception {
        FlowTokens.Token t = new FlowTokens.Token(tls(), true, udp6(), false);
        assertEquals(new FlowTokens.Token.Leg(udp6(), false), t.otherThan(tls()));
        assertEquals(new FlowTokens.Token.Leg(tls(), true), t.otherThan(udp6()));
        assertNull(t.otherThan(new Flow(Transport.TLS, at("127.0.0.1", 5061), at("192.0.2.7", 40312), 43)),
                "another connection from the same address is not the flow");
    }

    @Test
    void tokenOfAnotherSecretOrPaddedIsRefused() throws Exception {
        String text = tokens.write(new FlowTokens.Token(tls(), false, null, false));
        assertNull(new FlowTokens("another secret of sixteen bytes+".getBytes(StandardCharsets.US_ASCII)).read(text));
        byte[] raw = Base64.getUrlDecoder().decode(text);
        assertNull(tokens.read(Base64.getUrlEncoder().encodeToString(raw) + (raw.length % 3 == 0 ? "==" : "")),
                "padded");
        assertNull(tokens.read(Base64.getEncoder().withoutPadding().encodeToString(raw).replace('-', '+')
                .replace('_', '/') + "+"));
    }

    @Test
    void flowTextReadsBackWhatWasWrittenAndNothingElse() throws Exception {
        assertEquals(tls(), Flow.parse(tls().text()));
        assertEquals(udp6(), Flow.parse(udp6().text()));
        assertEquals("tls 127.0.0.1:5061 192.0.2.7:40312 42", tls().text());
        assertNull(Flow.parse("tls 127.0.0.1:5061 192.0.2.7:40312 0"), "a TLS flow has a connection");
        assertNull(Flow.parse("tls 127.0.0.1:5061 example.com:40312 42"), "no names to resolve");
        assertNull(Flow.parse("tls 127.0.0.1:5061 192.0.2.7:040312 42"), "one spelling only");
        assertNull(Flow.parse("tls 127.0.0.1:5061 192.0.2.7:40312 42 "));
        assertNull(Flow.parse(null));
    }

    /** Seeded: single-character changes, truncations and random text; the fuzz takes well under a second. */
    @Test
    void fuzzedTokensAndFlowTextsAreRefusedWithoutThrowing() throws Exception {
        Random random = new Random(5626);
        String alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_=+/ .:[]";
        String token = tokens.write(new FlowTokens.Token(tls(), true, udp6(), true));
        String flow = tls().text();
        int tokensAccepted = 0;
        for (int i = 0; i < 4000; i++) {
            String base = i % 2 == 0 ? token : flow;
            String mutated = switch (random.nextInt(3)) {
                case 0 -> {
                    int at = random.nextInt(base.length());
                    char c = alphabet.charAt(random.nextInt(alphabet.length()));
                    yield base.substring(0, at) + c + base.substring(at + 1);
                }
                case 1 -> base.substring(0, random.nextInt(base.length()));
                default -> {
                    StringBuilder sb = new StringBuilder();
                    int n = random.nextInt(160);
                    for (int k = 0; k < n; k++) {
                        sb.append(alphabet.charAt(random.nextInt(alphabet.length())));
                    }
                    yield sb.toString();
                }
            };
            if (mutated.equals(base)) {
                continue;
            }
            FlowTokens.Token t = tokens.read(mutated);
            Flow f = Flow.parse(mutated);
            if (t != null) {
                tokensAccepted++;
                assertEquals(mutated, tokens.write(t), "a token is accepted only in its one canonical text");
            }
            if (f != null) {
                // a changed digit of the flow text can be another valid flow (another port): fine, if canonical
                assertEquals(mutated, f.text(), "a flow is read only from its one canonical text");
            }
        }
        assertNotNull(tokens.read(token));
        // a signed token changed anywhere is never accepted: its MAC covers every bit, its text is canonical
        assertEquals(0, tokensAccepted);
    }
}
