package org.sipcrypt.lab.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.sipcrypt.lab.metrics.TlsFlights;
import org.sipcrypt.lab.runner.HandshakeMatrix;
import org.sipcrypt.lab.runner.IdleHeap;
import org.sipcrypt.lab.runner.PointRun;
import org.sipcrypt.lab.runner.ServerHandshakes;
import org.sipcrypt.lab.runner.Studies;
import org.sipcrypt.lab.runner.Study;

/**
 * The cross-combination table of {@code compare --handshakes}, from studies made of given numbers:
 * a row per combination, per cipher the same-round ratio to tcp, the estimated CPU per handshake,
 * with the kind of handshake it divides by, the full handshakes' p50 and the ClientHello's size,
 * the server's TLS engines,
 * "skipped" with the reason where a combination did not run a cipher; in both reports, and not at
 * all for studies of one combination.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class CrossCombinationsTest {

    private static final String SCENARIO = "name: handshakes\nleft: {transport: tls, connection: per-call,"
            + " sessionReuse: false}\n";

    /**
     * 1.2/rsa: tcp 100 µs, aes 300 µs per call (chacha20 not run: no RSA suite); 1.3/ecdhe-x25519: tcp 110,
     * aes 220, chacha20 275; every TLS call one handshake. Each cipher's repetitions differ by ±2 %
     * together with tcp's.
     */
    static List<Study> studies() {
        Study rsa = Studies.study("handshakes", List.of("tcp", "aes"), 100, 100, 300);
        rsa = new Study(0, rsa.scenario(), SCENARIO, rsa.ciphers(), rsa.started(), rsa.environment(), rsa.fixed(),
                rsa.peaks());
        rsa = Studies.underHandshake(rsa, HandshakeMatrix.parseOne("1.2/rsa"), 1);
        rsa = Studies.withHandshakeTimes(Studies.withHandshakes(rsa, "aes", new TlsFlights(182, 1955), null), "aes",
                200, 30);
        Study x25519 = Studies.study("handshakes", List.of("tcp", "aes", "chacha20"), 100, 110, 220, 275);
        x25519 = new Study(0, x25519.scenario(), SCENARIO, x25519.ciphers(), x25519.started().plusSeconds(600),
                x25519.environment(), x25519.fixed(), x25519.peaks());
        x25519 = Studies.underHandshake(x25519, HandshakeMatrix.parseOne("1.3/ecdhe-x25519"), 1);
        x25519 = Studies.withHandshakes(x25519, "chacha20", new TlsFlights(253, 1312), null);
        // the server's engine on auto: openssl for aes under 1.2/rsa, bc under 1.3 (chacha20 too)
        rsa = Studies.withTlsEngines(rsa, (cipher, rep) -> cipher.equals("aes") ? List.of("openssl") : List.of());
        x25519 = Studies.withTlsEngines(x25519, (cipher, rep) -> cipher.equals("tcp") ? List.of() : List.of("bc"));
        return List.of(rsa, x25519);
    }

    @Test
    void aRowPerCombinationAndPerCipherItsRatioCostPerHandshakeLatencyAndClientHello() {
        List<CrossCombinations.Section> sections = CrossCombinations.sections(studies());
        assertEquals(1, sections.size());
        Tables.Table t = sections.get(0).table();
        assertEquals(List.of("combination", "tcp µs/call", "aes server TLS engine", "aes CPU/call vs tcp",
                "aes µs/handshake (est.)", "aes handshake p50 ms", "aes ClientHello bytes",
                "chacha20 server TLS engine", "chacha20 CPU/call vs tcp", "chacha20 µs/handshake (est.)",
                "chacha20 handshake p50 ms", "chacha20 ClientHello bytes"), t.header());
        assertEquals("lrlrrrrlrrrr", t.align(), "the engines are text");
        assertEquals(2, t.rows().size());
        List<String> rsa = t.rows().get(0);
        assertEquals("1.2/rsa", rsa.get(0));
        // tcp: 98, 100, 102 µs
        assertEquals("100 ± 5", rsa.get(1));
        // aes / tcp = 3 in every round; (300 − 100) × (1 ± 0.02) per handshake: 196, 200, 204, t(2) × 4 / √3 = 9.9
        assertEquals("openssl", rsa.get(2));
        assertEquals("×3.000 ± 0.000", rsa.get(3));
        assertEquals("200 ± 10 (as server, full)", rsa.get(4), "every handshake the generator's, full");
        assertFalse(rsa.get(5).equals("n/a"), "the full handshakes were timed: " + rsa);
        assertEquals("182", rsa.get(6));
        assertEquals(List.of("skipped", "skipped", "skipped", "skipped", "skipped"), rsa.subList(7, 12));
        List<String> x25519 = t.rows().get(1);
        assertEquals("1.3/ecdhe-x25519", x25519.get(0));
        assertEquals("bc", x25519.get(2), "aes on another engine under this combination");
        assertEquals("×2.000 ± 0.000", x25519.get(3));
        assertEquals("110 ± 5 (as server, full)", x25519.get(4));
        assertEquals(List.of("n/a", "n/a"), x25519.subList(5, 7), "aes made no handshake the generator measured");
        assertEquals("bc", x25519.get(7));
        assertEquals("×2.500 ± 0.000", x25519.get(8));
        assertEquals("165 ± 8 (as server, full)", x25519.get(9));
        assertEquals("253", x25519.get(11));
        assertEquals(List.of("1.2/rsa: chacha20 skipped: no suite for TLS 1.2, rsa (a TLS_RSA_WITH_ suite)"),
                sections.get(0).skipped());
    }

    @Test
    void withIdleConnectionsMeasuredEachCipherGainsItsHeapPerIdleConnectionColumn() {
        List<Study> plain = studies();
        IdleHeap aes13 = new IdleHeap("aes", "tls", 1000, 1000, 0, null, 3, new IdleHeap.Snapshot(40_000_000, 1, -1, 1),
                new IdleHeap.Snapshot(51_234_000, 2, -1, 1001), null, List.of("bc"), null);
        IdleHeap chachaFailed = new IdleHeap("chacha20", "tls", 1000, 0, 1000, "refused", 0, null, null, null, List.of(),
                "no connection held: refused");
        List<Study> idle = List.of(plain.get(0), plain.get(1).withIdle(List.of(aes13, chachaFailed)));
        Tables.Table t = CrossCombinations.sections(idle).get(0).table();
        assertEquals(List.of("combination", "tcp µs/call", "aes server TLS engine", "aes CPU/call vs tcp",
                "aes µs/handshake (est.)", "aes handshake p50 ms", "aes ClientHello bytes", "aes heap bytes/idle connection",
                "chacha20 server TLS engine", "chacha20 CPU/call vs tcp", "chacha20 µs/handshake (est.)",
                "chacha20 handshake p50 ms", "chacha20 ClientHello bytes", "chacha20 heap bytes/idle connection"),
                t.header());
        assertEquals("lrlrrrrrlrrrrr", t.align());
        List<String> rsa = t.rows().get(0);
        assertEquals("n/a", rsa.get(7), "not measured under 1.2/rsa");
        assertEquals(List.of("skipped", "skipped", "skipped", "skipped", "skipped", "skipped"), rsa.subList(8, 14));
        List<String> x25519 = t.rows().get(1);
        assertEquals("11,234", x25519.get(7));
        assertEquals("n/a", x25519.get(13), "held none: not a figure");
        assertEquals(plain.size(), CrossCombinations.sections(plain).get(0).table().rows().size());
        assertFalse(CrossCombinations.sections(plain).get(0).table().header().stream()
                .anyMatch(h -> h.contains("idle")), "no column where none was measured");
    }

    @Test
    void eachEstimateSaysWhatKindOfHandshakeItDividesBy() {
        // 1.3/ecdhe-x25519 as an inbound study: aes's handshakes all the server's own to the UAS and
        // resumed; chacha20's half the generator's, half the server's to the UAS, all full
        Study x25519 = studies().get(1);
        List<PointRun> fixed = new ArrayList<>();
        for (PointRun p : x25519.fixed()) {
            long calls = p.uac().completed();
            fixed.add(switch (p.cipher()) {
                case "aes" -> Studies.withHandshakeCounts(p, 0, 0, calls, calls);
                case "chacha20" -> Studies.withHandshakeCounts(p, calls / 2, 0, calls - calls / 2, 0);
                default -> p;
            });
        }
        Study changed = new Study(x25519.id(), x25519.scenario(), x25519.scenarioText(), x25519.ciphers(),
                x25519.started(), x25519.environment(), fixed, x25519.peaks());
        List<Study> studies = List.of(studies().get(0), changed);
        List<String> row = CrossCombinations.sections(studies).get(0).table().rows().get(1);
        // one handshake per call still: the same estimates
        assertEquals("110 ± 5 (as client, resumed)", row.get(4));
        assertEquals("165 ± 8 (mixed)", row.get(9));
        String md = MarkdownReport.render(studies, null);
        assertTrue(md.contains("| 110 ± 5 (as client, resumed) |") && md.contains("| 165 ± 8 (mixed) |"), md);
        assertTrue(md.contains("In brackets, what it divides by"), md);
        String html = HtmlReport.render(studies, null);
        assertTrue(html.contains(">110 ± 5 (as client, resumed)<") && html.contains(">165 ± 8 (mixed)<"), html);
    }

    @Test
    void aCellWithoutAnEstimateNamesNoKind() {
        assertEquals("n/a", CrossCombinations.perHandshakeCell(Stats.Estimate.NONE, new ServerHandshakes(10, 0, 0, 0)));
        assertEquals("n/a", CrossCombinations.perHandshakeCell(Stats.Estimate.NONE, null));
    }

    @Test
    void theLatencyIsTheOneOfTheStudysHandshakeTable() {
        String md = MarkdownReport.render(studies(), null);
        String cross = md.substring(md.indexOf("## Handshake combinations: handshakes"));
        List<String> row = MarkdownReportTest.cells(MarkdownReportTest.tables(cross).get(0).get(2));
        String study = md.substring(md.indexOf("## Scenario handshakes (1.2/rsa, "));
        String handshake = study.substring(study.indexOf("### Handshake"));
        List<String> full = MarkdownReportTest.cells(MarkdownReportTest.tables(handshake).get(0).get(2));
        assertEquals("full", full.get(3));
        assertEquals(full.get(8), row.get(5));
        assertEquals(List.of("openssl", "openssl"), List.of(full.get(1), row.get(2)),
                "the server's engine as the study's handshake table names it");
        assertTrue(cross.contains("µs/handshake (est.): an estimate, not a measurement"), cross);
        assertTrue(cross.contains("- 1.2/rsa: chacha20 skipped: no suite for TLS 1.2, rsa (a TLS\\_RSA\\_WITH\\_ suite)"),
                cross);
        assertTrue(md.contains("## Scenario handshakes (1.3/ecdhe-x25519, "), "headings name the combination");
        String html = HtmlReport.render(studies(), null);
        assertTrue(html.contains("<h2>Handshake combinations: handshakes</h2>"), html);
        assertTrue(html.contains("1.2/rsa: chacha20 skipped: no suite for TLS 1.2, rsa"), html);
    }

    @Test
    void kamailiosSectionNamesTheCombinationsSipcryptRanAndItCouldNotWithWhy() {
        Study rsa = studies().get(0);
        Study x25519 = studies().get(1);
        Study hybrid = Studies.underHandshake(rsa, HandshakeMatrix.parseOne("1.3/x25519mlkem768"), 1);
        List<Study> kamailio = new ArrayList<>();
        for (Study s : List.of(rsa, x25519)) {
            kamailio.add(new Study(0, "handshakes-kamailio", SCENARIO.replace("name: handshakes", "name: handshakes-kamailio"),
                    s.ciphers(), s.started().plusSeconds(1200), s.environment(), s.fixed(), s.peaks()));
        }
        List<Study> all = new ArrayList<>(List.of(rsa, x25519, hybrid));
        all.addAll(kamailio);
        List<CrossCombinations.Section> sections = CrossCombinations.sections(all);
        assertEquals(List.of("handshakes", "handshakes-kamailio"), sections.stream().map(CrossCombinations.Section::scenario).toList());
        assertTrue(sections.get(0).skipped().stream().noneMatch(l -> l.contains("not run on")), sections.get(0).skipped().toString());
        List<String> notRun = sections.get(1).skipped().stream().filter(l -> l.contains("not run on")).toList();
        assertEquals(1, notRun.size(), sections.get(1).skipped().toString());
        assertTrue(notRun.get(0).startsWith("1.3/x25519mlkem768: not run on kamailio: ") && notRun.get(0).contains("ML-KEM"),
                notRun.get(0));
        assertTrue(MarkdownReport.render(all, null).contains("- " + notRun.get(0)));
        assertTrue(HtmlReport.render(all, null).contains(XmlText.escape(notRun.get(0))));
    }

    @Test
    void studiesOfOneCombinationHaveNoCrossTable() {
        Study one = studies().get(0);
        assertTrue(CrossCombinations.sections(List.of(one, one)).isEmpty());
        assertFalse(MarkdownReport.render(List.of(one), null).contains("Handshake combinations"));
    }
}
