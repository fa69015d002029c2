package org.sipcrypt.server.testing;

import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import org.sipcrypt.server.tls.PemFiles;

/**
 * An authenticated call through a server started as users start it (the jar, the WAR), with raw
 * SIP sockets: the two user agents answer digest challenges with qop=auth credentials.
 * Threading: one test thread.
 */
public final class DigestCall {

    private DigestCall() {
    }

    /** A client TLS context trusting the CA certificates of a PEM file. */
    public static SSLContext trusting(Path ca) throws Exception {
        java.security.KeyStore trust = java.security.KeyStore.getInstance("PKCS12");
        trust.load(null, null);
        int i = 0;
        for (java.security.cert.X509Certificate c : PemFiles.readCertificates(ca)) {
            trust.setCertificateEntry("ca" + i++, c);
        }
        TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        tmf.init(trust);
        SSLContext ctx = SSLContext.getInstance("TLS");
        ctx.init(null, tmf.getTrustManagers(), null);
        return ctx;
    }


    /** Header lines of {@code name} in {@code message}, whole lines with their CRLF. */
    private static String lines(String message, String name) {
        StringBuilder sb = new StringBuilder();
        for (String line : message.split("\r\n")) {
            if (line.regionMatches(true, 0, name + ":", 0, name.length() + 1)) {
                sb.append(line).append("\r\n");
            }
        }
        return sb.toString();
    }

    private static String value(String message, String name) {
        String l = lines(message, name);
        return l.isEmpty() ? null : l.substring(name.length() + 1, l.indexOf("\r\n")).trim();
    }

    /**
     * bob (password b0b) registers and alice (password secret) calls him through the proxy, each answering the first challenge
     * offered (SHA-256 by default) with qop=auth credentials; the call is answered, acknowledged and
     * hung up along the proxy's Record-Route.
     */
    public static void callWithDigestCredentials(InetSocketAddress proxy) throws IOException {
        Duration t = TestUa.TIMEOUT;
        String domain = "127.0.0.1:" + proxy.getPort();
        try (SipSocket bob = SipSocket.udp(proxy); SipSocket alice = SipSocket.udp(proxy)) {
            bob.send(bob.request("REGISTER", "sip:" + domain, "bob", "bob@" + domain, "jar-reg", 1,
                    bob.contact("bob") + "Expires: 600\r\n"));
            String challenge = bob.awaitMessage("SIP/2.0 401", t);
            assertNotNull(challenge, "REGISTER challenged with 401");
            String www = value(challenge, "WWW-Authenticate");
            assertTrue(www.contains("algorithm=SHA-256"), "SHA-256 offered first: " + www);
            bob.send(bob.request("REGISTER", "sip:" + domain, "bob", "bob@" + domain, "jar-reg", 2,
                    bob.contact("bob") + "Expires: 600\r\n"
                            + DigestClient.answer("Authorization", www, "bob", "b0b", "REGISTER", "sip:" + domain, 1)));
            String registered = bob.awaitMessage("SIP/2.0 ", t);
            assertTrue(registered != null && registered.startsWith("SIP/2.0 200"), "REGISTER: " + registered);

            String target = "sip:bob@" + domain;
            alice.send(alice.request("INVITE", target, "alice", "bob@" + domain, "jar-call", 1,
                    alice.contact("alice")));
            String proxyChallenge = alice.awaitMessage("SIP/2.0 407", t);
            assertNotNull(proxyChallenge, "INVITE challenged with 407");
            alice.send(alice.request("ACK", target, "alice", "bob@" + domain, "jar-call", 1, "")
                    .replace("To: <" + target + ">", "To: " + value(proxyChallenge, "To")));
            String pa = value(proxyChallenge, "Proxy-Authenticate");
            alice.send(alice.request("INVITE", target, "alice", "bob@" + domain, "jar-call", 2,
                    alice.contact("alice") + DigestClient.answer("Proxy-Authorization", pa, "alice", "secret",
                            "INVITE", target, 1)));

            String invite = bob.awaitMessage("INVITE ", t);
            assertNotNull(invite, "the authenticated INVITE reaches bob");
            assertTrue(lines(invite, "Proxy-Authorization").isEmpty(), "credentials for the proxy's realm are consumed");
            String ok = SipSocket.response(invite, "200 OK");
            ok = ok.replace("Content-Length: 0\r\n", lines(invite, "Record-Route") + bob.contact("bob")
                    + "Content-Length: 0\r\n");
            bob.send(ok);
            String answered = alice.awaitMessage("SIP/2.0 200", t);
            assertNotNull(answered, "alice gets the 200");

            // RFC 3261 §12.1.2: the route set is the Record-Route of the 2xx in reverse order
            List<String> rr = new ArrayList<>();
            for (String line : lines(answered, "Record-Route").split("\r\n")) {
                if (!line.isEmpty()) {
                    rr.add(0, line.substring("Record-Route:".length()).trim());
                }
            }
            String route = rr.isEmpty() ? "" : "Route: " + String.join(", ", rr) + "\r\n";
            String bobContact = value(answered, "Contact").replaceAll("^<|>.*$", "");
            String toWithTag = "To: " + value(answered, "To");
            alice.send(alice.request("ACK", bobContact, "alice", "bob@" + domain, "jar-call", 2, route)
                    .replace("To: <sip:bob@" + domain + ">", toWithTag));
            assertNotNull(bob.awaitMessage("ACK ", t), "the ACK reaches bob");
            alice.send(alice.request("BYE", bobContact, "alice", "bob@" + domain, "jar-call", 3, route)
                    .replace("To: <sip:bob@" + domain + ">", toWithTag));
            String bye = bob.awaitMessage("BYE ", t);
            assertNotNull(bye, "the BYE reaches bob");
            bob.send(SipSocket.response(bye, "200 OK"));
            String byeOk = alice.awaitMessage("SIP/2.0 200", t);
            assertTrue(byeOk != null && byeOk.contains("BYE"), "BYE answered: " + byeOk);
        }
    }
}
