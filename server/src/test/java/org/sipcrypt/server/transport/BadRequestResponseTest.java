package org.sipcrypt.server.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

@Timeout(value = 10, unit = TimeUnit.SECONDS)
class BadRequestResponseTest {

    @ParameterizedTest(name = "line end {0}")
    @ValueSource(strings = {"\n", "\r"})
    void bareLineEndInTheRequestEndsALineOfTheAnswerWithCrlf(String lineEnd) {
        // found by SipInputFuzzer: the Via line was copied with its bare LF inside it
        String request = "REGISTER sip:example.com SIP/2.0\r\n"
                + "Via: SIP/2.0/TCP 192.0.2.10:5060;branch=z9hG4bK1" + lineEnd + "X-Injected: 1\r\n"
                + "From: <sip:alice@example.com>;tag=1\r\n"
                + "To: <sip:alice@example.com>\r\n"
                + "Call-ID: c1\r\n"
                + "CSeq: 1 REGISTER\r\n"
                + "Content-Length: 0\r\n\r\n";
        byte[] answer = BadRequestResponse.build(request.getBytes(StandardCharsets.UTF_8), 400, "Bad Via header");
        assertEquals("SIP/2.0 400 Bad Via header\r\n"
                + "Via: SIP/2.0/TCP 192.0.2.10:5060;branch=z9hG4bK1\r\n"
                + "From: <sip:alice@example.com>;tag=1\r\n"
                + "To: <sip:alice@example.com>;tag=sc400\r\n"
                + "Call-ID: c1\r\n"
                + "CSeq: 1 REGISTER\r\n"
                + "Content-Length: 0\r\n\r\n", new String(answer, StandardCharsets.UTF_8));
    }
}
