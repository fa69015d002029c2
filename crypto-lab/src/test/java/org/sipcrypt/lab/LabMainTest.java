package org.sipcrypt.lab;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.sipcrypt.lab.loadgen.Uas;
import org.sipcrypt.server.transport.Transport;
import picocli.CommandLine;

/** The command line: exit codes and the JSON file of a run. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class LabMainTest {

    @TempDir
    Path dir;

    private static int run(StringWriter out, String... args) {
        CommandLine cl = LabMain.commandLine();
        cl.setOut(new PrintWriter(out));
        cl.setErr(new PrintWriter(out));
        return cl.execute(args);
    }

    @Test
    void badArgumentsExitWithTwo() {
        assertEquals(2, run(new StringWriter(), "uac", "--target", "127.0.0.1"));
        assertEquals(2, run(new StringWriter(), "uac", "--target", "127.0.0.1:5060", "--transport", "sctp"));
        assertEquals(2, run(new StringWriter(), "uac", "--target", "127.0.0.1:5060", "--rate", "0"));
        assertEquals(2, run(new StringWriter(), "uac", "--target", "127.0.0.1:5060", "--transport", "tls",
                "--cipher", "rc4"));
        assertEquals(2, run(new StringWriter(), "uas", "--listen", "tls:127.0.0.1:0"));
        assertEquals(2, run(new StringWriter()));
    }

    @Test
    void aRunPrintsItsIntervalsAndWritesJson() throws Exception {
        try (Uas uas = new Uas()) {
            InetSocketAddress at = uas.listen(Transport.TCP, new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), null);
            StringWriter out = new StringWriter();
            Path json = dir.resolve("run.json");
            int code = run(out, "uac", "--target", "127.0.0.1:" + at.getPort(), "--transport", "tcp", "--rate", "10",
                    "--duration", "1", "--json", json.toString());
            assertEquals(0, code, out.toString());
            assertTrue(out.toString().contains("result: ok"), out.toString());
            String text = Files.readString(json);
            assertTrue(text.startsWith("{\"intervals\":[") && text.contains("\"summary\":{") && text.contains("\"passed\":true"),
                    text);
        }
    }

    @Test
    void aRunAgainstNothingExitsWithOne() {
        assertEquals(1, run(new StringWriter(), "uac", "--target", "127.0.0.1:1", "--transport", "tcp",
                "--duration", "1"));
    }
}
