package org.sipcrypt.lab.store;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.sipcrypt.lab.metrics.Interval;
import org.sipcrypt.lab.metrics.RunSummary;
import org.sipcrypt.lab.runner.IdleHeap;
import org.sipcrypt.lab.runner.PeakSearch;
import org.sipcrypt.lab.runner.PointRun;
import org.sipcrypt.lab.runner.RoleCpu;
import org.sipcrypt.lab.runner.ServerSample;
import org.sipcrypt.lab.runner.Studies;
import org.sipcrypt.lab.runner.Study;

/** The lab database on H2 in a temporary directory: round trips, listing, deleting, SQL on samples. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ResultStoreTest {

    @TempDir
    Path dir;

    private ResultStore open() throws IOException {
        return ResultStore.open(Studies.h2Url(dir), ResultStore.DEFAULT_USER, "");
    }

    /** Three ciphers at 200 calls/s with a ramp each, plus an invalid point with failures and nothing known of its server. */
    static Study study(String scenario, Instant started) {
        Study s = Studies.study(scenario, List.of("aes", "camellia", "udp"), 200, 500, 800, 250);
        List<PointRun> fixed = new ArrayList<>(s.fixed());
        PointRun p = s.fixed().get(0);
        RunSummary failing = Studies.summary(200, 10, 1900, 100, 40);
        fixed.add(new PointRun(scenario, "aes", "fixed", 4, 200, failing, 12, 3, 777, ServerSample.UNKNOWN, p.samples(),
                "saturated generator"));
        return new Study(0, scenario, s.scenarioText(), s.ciphers(), started, s.environment(), fixed, s.peaks());
    }

    private static int points(Study s) {
        return s.fixed().size() + s.peaks().stream().mapToInt(r -> r.steps().size()).sum();
    }

    private static int samples(Study s) {
        int n = s.fixed().stream().mapToInt(p -> p.samples().size()).sum();
        for (PeakSearch r : s.peaks()) {
            n += r.steps().stream().mapToInt(p -> p.samples().size()).sum();
        }
        return n;
    }

    /** Records holding arrays are equal by value when their JSON is; the rest is compared as records too. */
    private static void assertSameStudy(Study expected, Study actual) {
        assertEquals(LabJson.write(expected), LabJson.write(actual));
        assertEquals(expected.id(), actual.id());
        assertEquals(expected.started(), actual.started());
        assertEquals(expected.scenario(), actual.scenario());
        assertEquals(expected.scenarioText(), actual.scenarioText());
        assertEquals(expected.ciphers(), actual.ciphers());
        assertEquals(expected.environment(), actual.environment());
        assertEquals(expected.fixed().size(), actual.fixed().size());
        assertEquals(expected.peaks().size(), actual.peaks().size());
        for (int i = 0; i < expected.fixed().size(); i++) {
            PointRun e = expected.fixed().get(i);
            PointRun a = actual.fixed().get(i);
            assertEquals(e.server(), a.server());
            assertEquals(e.labCpu(), a.labCpu());
            assertEquals(e.invalid(), a.invalid());
            assertEquals(e.uac().causes(), a.uac().causes());
            assertArrayEquals(e.uac().buckets(), a.uac().buckets());
            assertEquals(e.samples().size(), a.samples().size());
            for (int j = 0; j < e.samples().size(); j++) {
                assertArrayEquals(e.samples().get(j).generator().buckets(), a.samples().get(j).generator().buckets());
                assertEquals(e.samples().get(j).serverCpuPercent(), a.samples().get(j).serverCpuPercent());
            }
        }
        for (int i = 0; i < expected.peaks().size(); i++) {
            PeakSearch e = expected.peaks().get(i);
            PeakSearch a = actual.peaks().get(i);
            assertEquals(List.of(e.scenario(), e.cipher(), e.repetition(), e.peakRate(), e.sustainableRate(), e.stoppedBy()),
                    List.of(a.scenario(), a.cipher(), a.repetition(), a.peakRate(), a.sustainableRate(), a.stoppedBy()));
            assertEquals(e.steps().size(), a.steps().size());
        }
    }

    @Test
    void aSavedStudyLoadsBackExactlyWithItsSamples() throws IOException {
        // with its generator's handshake latencies, which travel in the point's JSON column
        Study s = Studies.withHandshakeTimes(study("chain", Instant.parse("2026-11-22T10:00:00.123456789Z")), "aes",
                40, 4);
        try (ResultStore store = open()) {
            long id = store.save(s);
            assertTrue(id > 0, "id " + id);
            Study loaded = store.load(id).orElseThrow();
            assertSameStudy(s.withId(id), loaded);
            assertEquals(3, loaded.peaks().get(0).steps().get(0).samples().size());
            assertEquals(s.fixed().get(0).uac().handshakeTimes(true), loaded.fixed().get(0).uac().handshakeTimes(true));
            assertEquals(100, loaded.fixed().get(0).uac().handshakeTimes(false).getTotalCount());
        }
    }

    @Test
    void aStudysPeakFractionLoadsBack() throws IOException {
        Study s = study("chain", Instant.parse("2026-11-22T10:00:00Z"));
        Study atHalf = new Study(0, s.scenario(), s.scenarioText(), s.ciphers(), s.started(), s.environment(), s.fixed(),
                s.peaks(), 0.5);
        try (ResultStore store = open()) {
            long id = store.save(atHalf);
            Study loaded = store.load(id).orElseThrow();
            assertEquals(0.5, loaded.peakFraction());
            assertSameStudy(atHalf.withId(id), loaded);
            assertEquals(0, store.load(store.save(s)).orElseThrow().peakFraction(), "at the scenario's rate");
        }
    }

    @Test
    void aStudysHeapsPerIdleConnectionLoadBackAndAreQueryableWithSql() throws IOException, SQLException {
        Study s = study("handshakes", Instant.parse("2026-11-30T10:00:00Z")).withIdle(List.of(
                new IdleHeap("tcp", "tcp", 1000, 1000, 0, null, 0.4, new IdleHeap.Snapshot(10_000_000, 90_000, -1, 1),
                        new IdleHeap.Snapshot(12_800_000, 150_000, -1, 1001),
                        new IdleHeap.Snapshot(10_100_000, 90_100, -1, 1), List.of(), null),
                new IdleHeap("aes", "tls", 1000, 0, 1000, "refused", 0.2, null, null, null, List.of(),
                        "no connection held: refused")));
        try (ResultStore store = open()) {
            long id = store.save(s);
            Study loaded = store.load(id).orElseThrow();
            // read back by cipher name
            assertEquals(List.of(s.idle().get(1), s.idle().get(0)), loaded.idle());
            assertEquals(2800, count("SELECT bytes_per_connection FROM idle_heap WHERE study_id = " + id
                    + " AND cipher = 'tcp' AND valid AND connections = 1000"));
            assertEquals(1, count("SELECT COUNT(*) FROM idle_heap WHERE NOT valid AND bytes_per_connection = -1"));
            assertEquals(List.of(), store.load(store.save(study("chain", Instant.parse("2026-11-30T11:00:00Z"))))
                    .orElseThrow().idle(), "a study without");
            assertTrue(store.delete(id));
            assertEquals(0, count("SELECT COUNT(*) FROM idle_heap"), "deleted with its study");
        }
    }

    @Test
    void aStudyWithoutEnvironmentOrScenarioTextLoadsBack() throws IOException {
        Study full = Studies.study("inbound", List.of(), 100);
        Study s = new Study(0, "inbound", null, List.of(), full.started(), null, List.of(), List.of());
        try (ResultStore store = open()) {
            long id = store.save(s);
            assertSameStudy(s.withId(id), store.load(id).orElseThrow());
            StudyHeader h = store.list().get(0);
            assertEquals(List.of(-1, "unknown", 0, 0), List.of(h.cores(), h.cpuModel(), h.points(), h.ramps()));
        }
    }

    @Test
    void anUnknownIdLoadsNothing() throws IOException {
        try (ResultStore store = open()) {
            assertTrue(store.load(42).isEmpty());
            assertFalse(store.delete(42));
        }
    }

    @Test
    void listIsNewestFirstWithCounts() throws IOException {
        Study older = study("chain", Instant.parse("2026-11-20T08:00:00Z"));
        Study newer = Studies.study("inbound", List.of("seed"), 50, 900);
        try (ResultStore store = open()) {
            long newerId = store.save(newer);
            long olderId = store.save(older);
            List<StudyHeader> list = store.list();
            assertEquals(2, list.size());
            assertEquals(new StudyHeader(newerId, newer.started(), "inbound", List.of("seed"), points(newer), 1, 2,
                    "test CPU"), list.get(0));
            assertEquals(new StudyHeader(olderId, older.started(), "chain", List.of("aes", "camellia", "udp"),
                    points(older), 3, 2, "test CPU"), list.get(1));
        }
    }

    @Test
    void deleteRemovesOneStudyWithItsPointsRampsAndSamples() throws IOException, SQLException {
        Study first = study("chain", Instant.parse("2026-11-20T08:00:00Z"));
        Study second = study("outbound", Instant.parse("2026-11-21T08:00:00Z"));
        try (ResultStore store = open()) {
            long firstId = store.save(first);
            long secondId = store.save(second);
            assertTrue(store.delete(firstId));
            assertTrue(store.load(firstId).isEmpty());
            assertSameStudy(second.withId(secondId), store.load(secondId).orElseThrow());
            assertEquals(List.of(secondId), store.list().stream().map(StudyHeader::id).toList());
            assertEquals(samples(second), count("SELECT COUNT(*) FROM sample"));
            assertEquals(points(second), count("SELECT COUNT(*) FROM point"));
            assertEquals(second.peaks().size(), count("SELECT COUNT(*) FROM ramp"));
            assertFalse(store.delete(firstId));
        }
    }

    @Test
    void pointsAndSamplesAreQueryableWithSql() throws IOException, SQLException {
        Study s = study("chain", Instant.parse("2026-11-20T08:00:00Z"));
        try (ResultStore store = open()) {
            long id = store.save(s);
            // aes at 200 calls/s, repetitions 1 to 3: two measured intervals each of 200 completed calls
            assertEquals(1200, count("SELECT SUM(s.completed) FROM sample s JOIN point p ON p.id = s.point_id"
                    + " WHERE p.study_id = " + id + " AND p.kind = 'fixed' AND p.cipher = 'aes' AND p.valid"
                    + " AND NOT s.warmup AND s.\"second\" > 1"));
            assertEquals(800, count("SELECT server_cpu_us_per_call FROM point WHERE kind = 'fixed'"
                    + " AND cipher = 'camellia' AND repetition = 2"));
            // the fixture's generator spends a quarter of the server's CPU per call, its UAS a fifth
            assertEquals(200, count("SELECT generator_cpu_us_per_call FROM point WHERE kind = 'fixed'"
                    + " AND cipher = 'camellia' AND repetition = 2"));
            assertEquals(160, count("SELECT uas_cpu_us_per_call FROM point WHERE kind = 'fixed'"
                    + " AND cipher = 'camellia' AND repetition = 2"));
            assertEquals(1, count("SELECT COUNT(*) FROM point WHERE invalid_reason = 'saturated generator'"
                    + " AND generator_cpu_us_per_call = -1 AND uas_cpu_us_per_call = -1"));
            assertEquals(1, count("SELECT COUNT(*) FROM point WHERE invalid_reason = 'saturated generator'"
                    + " AND NOT valid AND failed_pct = 5"));
            assertEquals(s.peaks().get(0).steps().size(), count("SELECT COUNT(*) FROM point p JOIN ramp r"
                    + " ON r.id = p.ramp_id WHERE p.kind = 'step' AND r.cipher = 'aes' AND r.peak_rate = 2000"));
        }
    }

    @Test
    void studiesSurviveReopeningAndTheSchemaIsAppliedOnce() throws IOException, SQLException {
        Study s = study("chain", Instant.parse("2026-11-20T08:00:00Z"));
        long id;
        try (ResultStore store = open()) {
            id = store.save(s);
        }
        try (ResultStore store = open()) {
            assertSameStudy(s.withId(id), store.load(id).orElseThrow());
            assertEquals(1, count("SELECT COUNT(*) FROM schema_version WHERE version = 1"));
            assertEquals(LabSchema.latestVersion(), count("SELECT COUNT(*) FROM schema_version"));
        }
    }

    @Test
    void aDatabaseOfTheFirstSchemaGainsTheLabCpuColumnsAndItsPointsReadAsUnknown() throws IOException, SQLException {
        Study s = study("chain", Instant.parse("2026-11-20T08:00:00Z"));
        long id;
        try (ResultStore store = open()) {
            id = store.save(s);
        }
        // what a lab before schema version 2 wrote: neither the columns nor labCpu in the points' JSON
        execute("ALTER TABLE point DROP COLUMN generator_cpu_us_per_call");
        execute("ALTER TABLE point DROP COLUMN uas_cpu_us_per_call");
        execute("DELETE FROM schema_version WHERE version = 2");
        try (Connection c = connect(); Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("SELECT id, summary_json FROM point");
             PreparedStatement update = c.prepareStatement("UPDATE point SET summary_json = ? WHERE id = ?")) {
            while (rs.next()) {
                String older = rs.getString(2).replaceAll("\"labCpu\":\\{[^}]*},", "");
                assertFalse(older.contains("labCpu"), older);
                update.setString(1, older);
                update.setLong(2, rs.getLong(1));
                update.executeUpdate();
            }
        }
        try (ResultStore store = open()) {
            assertEquals(LabSchema.latestVersion(), count("SELECT COUNT(*) FROM schema_version"));
            assertEquals(points(s), count("SELECT COUNT(*) FROM point WHERE generator_cpu_us_per_call = -1"
                    + " AND uas_cpu_us_per_call = -1"));
            Study loaded = store.load(id).orElseThrow();
            assertEquals(RoleCpu.UNKNOWN, loaded.fixed().get(0).labCpu());
            assertEquals(s.fixed().get(0).server(), loaded.fixed().get(0).server());
            // and a study saved now has its figures
            long newer = store.save(s);
            assertEquals(s.fixed().get(0).labCpu(), store.load(newer).orElseThrow().fixed().get(0).labCpu());
        }
    }

    @Test
    void aDatabaseWithANewerSchemaIsRefused() throws IOException, SQLException {
        try (ResultStore store = open()) {
            assertEquals(0, store.list().size());
            execute("INSERT INTO schema_version (version, applied_at) VALUES (" + (LabSchema.latestVersion() + 1)
                    + ", 0)");
        }
        IOException e = assertThrows(IOException.class, this::open);
        assertTrue(e.getMessage().contains(Studies.h2Url(dir)) && e.getMessage().contains("newer"), e.getMessage());
    }

    @Test
    void aDatabaseThatCannotBeOpenedNamesItsUrl() throws IOException {
        Path blocker = Files.writeString(dir.resolve("blocker"), "a file, not a directory");
        // no trace file either: H2 would print its failure to create one on stderr
        String url = "jdbc:h2:file:" + blocker.toAbsolutePath() + "/lab;TRACE_LEVEL_FILE=0";
        IOException e = assertThrows(IOException.class, () -> ResultStore.open(url, "sa", ""));
        assertTrue(e.getMessage().startsWith("cannot open lab database " + url + ": "), e.getMessage());
        IOException noDriver = assertThrows(IOException.class, () -> ResultStore.open("jdbc:nosuch:x;password=secret",
                "sa", "secret"));
        assertTrue(noDriver.getMessage().contains("jdbc:nosuch:x;password=<masked>"), noDriver.getMessage());
        assertFalse(noDriver.getMessage().contains("secret"), noDriver.getMessage());
    }

    @Test
    void aCipherNameWithACommaIsRefused() throws IOException {
        Study s = Studies.study("chain", List.of("aes,camellia"), 100, 500);
        try (ResultStore store = open()) {
            assertThrows(IllegalArgumentException.class, () -> store.save(s));
            assertEquals(List.of(), store.list());
        }
    }

    @Test
    void theJsonColumnsHoldTheRecordsWithoutTheSamplesOfAPoint() throws IOException, SQLException {
        Study s = study("chain", Instant.parse("2026-11-20T08:00:00Z"));
        try (ResultStore store = open()) {
            store.save(s);
            try (Connection c = connect(); Statement st = c.createStatement();
                 ResultSet rs = st.executeQuery("SELECT summary_json FROM point WHERE invalid_reason IS NOT NULL")) {
                assertTrue(rs.next());
                JsonNode point = LabJson.reader(PointRun.class).readTree(rs.getString(1));
                assertFalse(point.has("samples"), point.toString());
                assertEquals("saturated generator", point.get("invalid").asText());
                assertEquals(100, point.get("uac").get("causes").get("timeout").asLong());
            }
            try (Connection c = connect(); Statement st = c.createStatement();
                 ResultSet rs = st.executeQuery("SELECT interval_json FROM sample ORDER BY point_id, seq")) {
                assertTrue(rs.next());
                Interval first = LabJson.read(rs.getString(1), Interval.class);
                assertEquals(LabJson.write(s.fixed().get(0).samples().get(0).generator()), LabJson.write(first));
            }
        }
    }

    private Connection connect() throws SQLException {
        return DriverManager.getConnection(Studies.h2Url(dir), ResultStore.DEFAULT_USER, "");
    }

    private long count(String sql) throws SQLException {
        try (Connection c = connect(); Statement st = c.createStatement(); ResultSet rs = st.executeQuery(sql)) {
            assertTrue(rs.next(), sql);
            return rs.getLong(1);
        }
    }

    private void execute(String sql) throws SQLException {
        try (Connection c = connect(); Statement st = c.createStatement()) {
            st.execute(sql);
        }
    }
}
