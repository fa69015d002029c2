package org.sipcrypt.server.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.sipcrypt.server.testing.NatNetwork;
import org.sipcrypt.server.testing.TestServer;

/**
 * A client behind a real NAT ({@link NatNetwork}: network namespaces and iptables masquerading):
 * the server answers it at the address and port the NAT gave it, and says so in the Via
 * ({@code received}, {@code rport}: RFC 3261 §18.2.1, RFC 3581), over UDP and TCP. The client is a
 * few lines of Python's socket module run in the phone's namespace, which sends what it is given and
 * prints what comes back.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class BehindNatIT {

    /** Sends argv[4] (with \n as CRLF) to argv[2]:argv[3] over argv[1], prints the first message back. */
    private static final String CLIENT = String.join("\n",
            "import socket, sys",
            "transport, host, port, text = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]",
            "data = text.replace('\\n', '\\r\\n').encode()",
            "kind = socket.SOCK_DGRAM if transport == 'udp' else socket.SOCK_STREAM",
            "s = socket.socket(socket.AF_INET, kind)",
            "s.settimeout(20)",
            "s.bind(('" + NatNetwork.PHONE + "', 0))",
            "s.connect((host, port))",
            "s.send(data)",
            "print(s.recv(65535).decode(errors='replace'), flush=True)",
            "");

    @TempDir
    Path dir;

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"udp", "tcp"})
    void answersReachTheClientAtTheAddressItsNatGaveIt(String transport) throws Exception {
        try (NatNetwork nat = NatNetwork.create();
             TestServer server = TestServer.start(dir, "listen", "udp:" + NatNetwork.SERVER + ":0",
                     "listen", "tcp:" + NatNetwork.SERVER + ":0")) {
            int port = server.address(Transport.valueOf(transport.toUpperCase(java.util.Locale.ROOT))).getPort();
            String request = "OPTIONS sip:" + NatNetwork.SERVER + ":" + port + " SIP/2.0\n"
                    + "Via: SIP/2.0/" + transport.toUpperCase(java.util.Locale.ROOT) + " " + NatNetwork.PHONE
                    + ":5060;branch=z9hG4bK-nat-" + transport + ";rport\n"
                    + "Max-Forwards: 70\n"
                    + "From: <sip:alice@" + NatNetwork.SERVER + ">;tag=nat\n"
                    + "To: <sip:" + NatNetwork.SERVER + ">\n"
                    + "Call-ID: behind-nat-" + transport + "\n"
                    + "CSeq: 1 OPTIONS\n"
                    + "Contact: <sip:alice@" + NatNetwork.PHONE + ":5060>\n"
                    + "Content-Length: 0\n\n";
            String answer = runClient(nat, transport, port, request);
            assertTrue(answer.startsWith("SIP/2.0 200"), answer);
            Matcher via = Pattern.compile("(?m)^Via: [^\r\n]*$").matcher(answer);
            assertTrue(via.find(), answer);
            // the phone's own address is unreachable from here: the answer went to the NAT's
            assertTrue(via.group().contains("received=" + NatNetwork.NAT), via.group());
            Matcher rport = Pattern.compile("rport=(\\d+)").matcher(via.group());
            assertTrue(rport.find(), via.group());
            assertTrue(Integer.parseInt(rport.group(1)) > 0, via.group());
        }
    }

    @Test
    void withoutTheNatTheNetworkIsGone() throws Exception {
        // what close() leaves: no namespace or interface of ours
        String before = run(List.of("ip", "-o", "link", "show"));
        try (NatNetwork nat = NatNetwork.create()) {
            assertTrue(run(List.of("ip", "-o", "addr", "show")).contains(NatNetwork.SERVER + "/24"));
        }
        assertEquals(before.lines().filter(l -> l.contains("scn1")).count(),
                run(List.of("ip", "-o", "link", "show")).lines().filter(l -> l.contains("scn1")).count());
        assertTrue(run(List.of("ip", "netns", "list")).lines().noneMatch(l -> l.startsWith("scphone")
                && l.contains(Long.toString(ProcessHandle.current().pid() % 10_000))));
    }

    private String runClient(NatNetwork nat, String transport, int port, String request) throws Exception {
        Path script = dir.resolve("client.py");
        Files.writeString(script, CLIENT, StandardCharsets.UTF_8);
        Process p = new ProcessBuilder(nat.inPhone(List.of("python3", script.toString(), transport,
                NatNetwork.SERVER, Integer.toString(port), request))).redirectErrorStream(true).start();
        try {
            assertTrue(p.waitFor(60, TimeUnit.SECONDS), "the client behind the NAT did not end");
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertEquals(0, p.exitValue(), out);
            return out;
        } finally {
            p.destroyForcibly();
        }
    }

    private static String run(List<String> command) throws Exception {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        p.waitFor(30, TimeUnit.SECONDS);
        return out;
    }
}
