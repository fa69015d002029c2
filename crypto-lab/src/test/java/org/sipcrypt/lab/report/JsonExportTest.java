package org.sipcrypt.lab.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.sipcrypt.lab.metrics.TlsFlights;
import org.sipcrypt.lab.runner.PointRun;
import org.sipcrypt.lab.runner.RoleCpu;
import org.sipcrypt.lab.runner.Studies;
import org.sipcrypt.lab.runner.Study;
import org.sipcrypt.lab.store.LabJson;

/** results.json written and read back. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class JsonExportTest {

    @TempDir
    Path dir;

    private static List<Study> studies() {
        Study a = Studies.study("chain", List.of("aes", "camellia", "udp"), 200, 500, 800, 250).withId(1);
        Study b = Studies.study("inbound", List.of("seed"), 50, 900).withId(2);
        b = new Study(b.id(), b.scenario(), b.scenarioText(), b.ciphers(), Instant.parse("2026-11-23T07:08:09.123456789Z"),
                b.environment(), b.fixed(), b.peaks());
        return List.of(a, b);
    }

    @Test
    void studiesReadBackEqual() throws IOException {
        List<Study> studies = studies();
        Path file = JsonExport.write(studies, dir.resolve("results"));
        assertEquals(dir.resolve("results").resolve(JsonExport.FILE_NAME), file);
        List<Study> read = JsonExport.read(file);
        assertEquals(studies.size(), read.size());
        for (int i = 0; i < studies.size(); i++) {
            // records holding long[] (RunSummary, Interval) are equal by value when their JSON is
            assertEquals(LabJson.write(studies.get(i)), LabJson.write(read.get(i)));
            assertEquals(studies.get(i).started(), read.get(i).started());
            assertEquals(studies.get(i).environment(), read.get(i).environment());
            assertEquals(studies.get(i).fixed().get(0).samples().size(), read.get(i).fixed().get(0).samples().size());
        }
    }

    @Test
    void theFileIsAnObjectOfStudiesWithIsoInstants() throws IOException {
        String text = Files.readString(JsonExport.write(studies(), dir));
        assertTrue(text.startsWith("{") && text.contains("\"studies\" : [ {"), text.substring(0, 200));
        assertTrue(text.contains("\"started\" : \"2026-11-22T10:00:00Z\""), text.substring(0, 400));
        assertTrue(text.contains("\"started\" : \"2026-11-23T07:08:09.123456789Z\""));
        assertTrue(text.contains("\"samples\" : [ {"));
    }

    @Test
    void pointsHoldTheLabsCpuPerCallAndOlderFilesWithoutItReadAsUnknown() throws IOException {
        Path file = JsonExport.write(studies(), dir);
        JsonNode root = LabJson.reader(Object.class).readTree(Files.readString(file));
        JsonNode first = root.path("studies").get(0).path("fixed").get(0);
        // the fixture's first point: the server at 490 µs per call, the generator a quarter, the UAS a fifth
        assertEquals(122.5, first.path("labCpu").path("generatorMicrosPerCall").asDouble(), 1e-9);
        assertEquals(98, first.path("labCpu").path("uasMicrosPerCall").asDouble(), 1e-9);
        // a file written before the lab measured its roles has no labCpu
        for (JsonNode study : root.path("studies")) {
            for (JsonNode point : study.path("fixed")) {
                ((ObjectNode) point).remove("labCpu");
            }
            for (JsonNode ramp : study.path("peaks")) {
                for (JsonNode step : ramp.path("steps")) {
                    ((ObjectNode) step).remove("labCpu");
                }
            }
        }
        Path older = Files.writeString(dir.resolve("older.json"), LabJson.write(root));
        assertFalse(Files.readString(older).contains("labCpu"));
        Study read = JsonExport.read(older).get(0);
        assertEquals(RoleCpu.UNKNOWN, read.fixed().get(0).labCpu());
        assertEquals(RoleCpu.UNKNOWN, read.peaks().get(0).steps().get(0).labCpu());
        assertEquals(studies().get(0).fixed().get(0).server(), read.fixed().get(0).server());
    }

    @Test
    void handshakeSizesAndLatenciesReadBackAndOlderFilesWithoutThemReadAsNone() throws IOException {
        Study s = Studies.withHandshakeTimes(Studies.withHandshakes(studies().get(0), "aes", new TlsFlights(236, 867),
                new TlsFlights(268, 150)), "aes", 50, 5);
        PointRun timed = s.fixed().stream().filter(p -> p.cipher().equals("aes")).findFirst().orElseThrow();
        int at = s.fixed().indexOf(timed);
        Path file = JsonExport.write(List.of(s), dir);
        PointRun back = JsonExport.read(file).get(0).fixed().get(at);
        assertEquals(new TlsFlights(236, 867), back.uac().fullHandshake());
        assertEquals(new TlsFlights(268, 150), back.uac().resumedHandshake());
        assertEquals(timed.uac().handshakeTimes(false), back.uac().handshakeTimes(false));
        assertEquals(timed.uac().handshakeTimes(true), back.uac().handshakeTimes(true));
        assertEquals(100, back.uac().handshakeTimes(true).getTotalCount());
        List<String> added = List.of("fullHandshake", "resumedHandshake", "fullHandshakeTimes", "resumedHandshakeTimes");
        JsonNode root = LabJson.reader(Object.class).readTree(Files.readString(file));
        for (JsonNode point : root.path("studies").get(0).path("fixed")) {
            ((ObjectNode) point.path("uac")).remove(added);
        }
        for (JsonNode ramp : root.path("studies").get(0).path("peaks")) {
            for (JsonNode step : ramp.path("steps")) {
                ((ObjectNode) step.path("uac")).remove(added);
            }
        }
        Path older = Files.writeString(dir.resolve("older.json"), LabJson.write(root));
        assertFalse(Files.readString(older).contains("Handshake\"") || Files.readString(older).contains("Times\""));
        PointRun old = JsonExport.read(older).get(0).fixed().get(at);
        assertNull(old.uac().fullHandshake());
        assertNull(old.uac().resumedHandshake());
        assertNull(old.uac().fullHandshakeTimes());
        assertEquals(0, old.uac().handshakeTimes(true).getTotalCount());
    }

    @Test
    void pointsSayTheServersHandshakesBySideAndKindAndReadBackWithOrWithoutThem() throws IOException {
        Study plain = studies().get(0);
        PointRun first = plain.fixed().get(0);
        // 2000 calls: the generator's connections 2000 handshakes, 1800 resumed; the server's to the UAS 500 full
        PointRun counted = Studies.withHandshakeCounts(first, 2000, 1800, 500, 0);
        List<PointRun> fixed = new java.util.ArrayList<>(plain.fixed());
        fixed.set(0, counted);
        Study s = new Study(plain.id(), plain.scenario(), plain.scenarioText(), plain.ciphers(), plain.started(),
                plain.environment(), fixed, plain.peaks());
        Path file = JsonExport.write(List.of(s), dir);
        JsonNode point = LabJson.reader(Object.class).readTree(Files.readString(file)).path("studies").get(0)
                .path("fixed").get(0);
        assertEquals(List.of(200L, 1800L, 500L, 0L), List.of(point.path("serverHandshakes").path("asServerFull").asLong(),
                point.path("serverHandshakes").path("asServerResumed").asLong(),
                point.path("serverHandshakes").path("asClientFull").asLong(),
                point.path("serverHandshakes").path("asClientResumed").asLong()));
        JsonNode perCall = point.path("serverHandshakesPerCall");
        assertEquals(List.of(0.1, 0.9, 0.25, 0.0), List.of(perCall.path("asServerFull").asDouble(),
                perCall.path("asServerResumed").asDouble(), perCall.path("asClientFull").asDouble(),
                perCall.path("asClientResumed").asDouble()));
        // made from the point's counts: read back as they were, and a file without them reads the same
        PointRun back = JsonExport.read(file).get(0).fixed().get(0);
        assertEquals(counted.serverHandshakes(), back.serverHandshakes());
        assertEquals(LabJson.write(counted), LabJson.write(back));
        JsonNode root = LabJson.reader(Object.class).readTree(Files.readString(file));
        ((ObjectNode) root.path("studies").get(0).path("fixed").get(0)).remove(List.of("serverHandshakes",
                "serverHandshakesPerCall"));
        Path older = Files.writeString(dir.resolve("older.json"), LabJson.write(root));
        assertEquals(counted.serverHandshakes(), JsonExport.read(older).get(0).fixed().get(0).serverHandshakes());
    }

    @Test
    void pointsSayTheServersTlsEnginesAndOlderFilesWithoutThemReadAsNone() throws IOException {
        Study s = Studies.withTlsEngines(studies().get(0), (cipher, rep) -> cipher.equals("aes")
                ? List.of("openssl") : cipher.equals("camellia") ? List.of("jsse", "bc") : List.of());
        Path file = JsonExport.write(List.of(s), dir);
        JsonNode root = LabJson.reader(Object.class).readTree(Files.readString(file));
        JsonNode fixed = root.path("studies").get(0).path("fixed");
        int aes = indexOf(s, "aes");
        int camellia = indexOf(s, "camellia");
        assertEquals("[\"openssl\"]", fixed.get(aes).path("server").path("tlsEngines").toString());
        assertEquals("[\"bc\",\"jsse\"]", fixed.get(camellia).path("server").path("tlsEngines").toString(), "sorted");
        Study back = JsonExport.read(file).get(0);
        assertEquals(List.of("bc", "jsse"), back.fixed().get(camellia).server().tlsEngines());
        assertEquals(LabJson.write(s), LabJson.write(back));
        for (JsonNode point : fixed) {
            ((ObjectNode) point.path("server")).remove("tlsEngines");
        }
        for (JsonNode ramp : root.path("studies").get(0).path("peaks")) {
            for (JsonNode step : ramp.path("steps")) {
                ((ObjectNode) step.path("server")).remove("tlsEngines");
            }
        }
        Path older = Files.writeString(dir.resolve("older.json"), LabJson.write(root));
        assertFalse(Files.readString(older).contains("tlsEngines"));
        assertEquals(List.of(), JsonExport.read(older).get(0).fixed().get(aes).server().tlsEngines());
    }

    private static int indexOf(Study s, String cipher) {
        return s.fixed().indexOf(s.fixed().stream().filter(p -> p.cipher().equals(cipher)).findFirst().orElseThrow());
    }

    @Test
    void anEmptyListIsWrittenAndReadBack() throws IOException {
        assertEquals(List.of(), JsonExport.read(JsonExport.write(List.of(), dir)));
    }

    @Test
    void aFileThatIsNotResultsIsRefusedNamingIt() throws IOException {
        Path other = Files.writeString(dir.resolve("other.json"), "{\"points\":[]}");
        IOException e = assertThrows(IOException.class, () -> JsonExport.read(other));
        assertTrue(e.getMessage().startsWith(other + ": not a results file"), e.getMessage());
        Path broken = Files.writeString(dir.resolve("broken.json"), "{\"studies\":[{\"id\":1,");
        IOException b = assertThrows(IOException.class, () -> JsonExport.read(broken));
        assertTrue(b.getMessage().startsWith(broken + ": not a results file"), b.getMessage());
    }
}
