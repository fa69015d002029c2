package org.sipcrypt.server.testing;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

@Timeout(60)
class SippTest {

    @Test
    void uacCompletesFiftyCallsAgainstUasOverUdp() throws Exception {
        assertUacCompletesCallsAgainstUas(Sipp.Mode.UDP, 50);
    }

    @ParameterizedTest(name = "over {0}")
    @EnumSource(value = Sipp.Mode.class, names = {"TCP", "TCP_PER_CALL"})
    void uacCompletesCallsAgainstUasOverTcp(Sipp.Mode mode) throws Exception {
        assertUacCompletesCallsAgainstUas(mode, 20);
    }

    private static void assertUacCompletesCallsAgainstUas(Sipp.Mode mode, int calls) throws Exception {
        try (Sipp.Running uas = Sipp.startUas(mode, 0, calls, Duration.ofSeconds(40))) {
            Sipp.Result uac = Sipp.scenario("uac.xml")
                    .mode(mode)
                    .remote("127.0.0.1", uas.port())
                    .service("alice")
                    .rate(50)
                    .calls(calls)
                    .timeout(Duration.ofSeconds(30))
                    .run();

            assertTrue(uac.allCallsSucceeded(), uac::describe);
            assertEquals(calls, uac.successfulCalls(), uac::describe);
            Sipp.Result server = uas.stop();
            assertEquals(0, server.failedCalls(), server::describe);
            assertFalse(uas.isAlive());
        }
    }

    @Test
    void commandIsBoundedAndLoopbackOnly() {
        List<String> cmd = Sipp.scenario("register.xml")
                .mode(Sipp.Mode.TCP_PER_CALL)
                .remote("127.0.0.1", 5060)
                .localPort(5070)
                .service("bob")
                .rate(2.5)
                .calls(3)
                .maxConcurrentCalls(2)
                .key("contact_port", "5080")
                .timeout(Duration.ofSeconds(20))
                .command();

        assertEquals("127.0.0.1:5060", cmd.get(cmd.size() - 1));
        assertOption(cmd, "-t", "tn");
        assertOption(cmd, "-m", "3");
        assertOption(cmd, "-r", "2.5");
        assertOption(cmd, "-l", "2");
        assertOption(cmd, "-timeout", "20s");
        assertOption(cmd, "-i", "127.0.0.1");
        assertOption(cmd, "-ci", "127.0.0.1");
        assertOption(cmd, "-s", "bob");
        assertOption(cmd, "-p", "5070");
        int key = cmd.indexOf("-key");
        assertEquals(List.of("-key", "contact_port", "5080"), cmd.subList(key, key + 3));
        assertTrue(cmd.contains("-trace_stat") && cmd.contains("-trace_err"), cmd::toString);
    }

    @Test
    void aRunWithoutCallLimitIsRefused() {
        Sipp sipp = Sipp.scenario("uac.xml").remote("127.0.0.1", 5060);

        assertThrows(IllegalStateException.class, sipp::command);
    }

    @Test
    void unknownScenarioIsRefused() {
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> Sipp.scenario("no-such.xml"));

        assertTrue(e.getMessage().contains("no-such.xml"), e::getMessage);
    }

    @Test
    void finalCountsComeFromTheLastStatisticsLine(@TempDir Path dir) throws Exception {
        Path stat = dir.resolve("stat.csv");
        String header = "StartTime;TotalCallCreated;CurrentCall;SuccessfulCall(P);SuccessfulCall(C);"
                + "FailedCall(P);FailedCall(C);";
        Files.writeString(stat, header + "\n"
                + "t0;10;2;8;8;0;0;\n"
                + "t1;50;0;39;47;3;3;\n", StandardCharsets.ISO_8859_1);

        assertArrayEquals(new long[] {47, 3}, Sipp.finalCounts(stat));
    }

    @Test
    void finalCountsAreZeroWithoutStatistics(@TempDir Path dir) {
        assertArrayEquals(new long[] {0, 0}, Sipp.finalCounts(dir.resolve("missing.csv")));
    }

    @Test
    void repositoryRootHoldsTheScenarios() {
        Path root = Sipp.repositoryRoot();

        assertTrue(Files.isRegularFile(root.resolve(Sipp.SCENARIO_DIR).resolve("uac.xml")), root::toString);
    }

    private static void assertOption(List<String> cmd, String option, String value) {
        int i = cmd.indexOf(option);
        assertTrue(i >= 0 && i + 1 < cmd.size(), () -> option + " missing from " + cmd);
        assertEquals(value, cmd.get(i + 1), () -> option + " in " + cmd);
        assertEquals(1, Collections.frequency(cmd, option), () -> option + " more than once in " + cmd);
    }
}
