package org.sipcrypt.lab.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.StringReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import javax.xml.parsers.DocumentBuilder;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.sipcrypt.lab.metrics.TlsFlights;
import org.sipcrypt.lab.model.CostModel;
import org.sipcrypt.lab.runner.IdleHeap;
import org.sipcrypt.lab.runner.PointRun;
import org.sipcrypt.lab.runner.Studies;
import org.sipcrypt.lab.runner.Study;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;
import org.xml.sax.InputSource;

/** The HTML report: well-formed, self-contained, one SVG per chart, every text escaped. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class HtmlReportTest {

    @TempDir
    Path dir;

    static Document parse(String html) throws Exception {
        DocumentBuilderFactory f = DocumentBuilderFactory.newInstance();
        f.setFeature("http://apache.org/xml/features/nonvalidating/load-external-dtd", false);
        f.setExpandEntityReferences(false);
        DocumentBuilder b = f.newDocumentBuilder();
        return b.parse(new InputSource(new StringReader(html)));
    }

    @Test
    void thePageIsWellFormedXmlWithOneSvgPerChart() throws Exception {
        List<Study> studies = MarkdownReportTest.studies();
        String html = HtmlReport.render(studies, CostModel.fit(studies));
        Path file = dir.resolve("report.html");
        Files.writeString(file, html);
        Document doc = parse(Files.readString(file));
        assertEquals("html", doc.getDocumentElement().getTagName());
        NodeList svgs = doc.getElementsByTagName("svg");
        // per study: completed cps, CPU per call, CPU per call / tcp's (every study has tcp), CRT
        // percentiles, CRT distribution, peaks; one of the model
        assertTrue(studies.stream().allMatch(s -> s.ciphers().contains("tcp")));
        assertEquals(studies.size() * 6 + 1, svgs.getLength());
        for (int i = 0; i < svgs.getLength(); i++) {
            Element svg = (Element) svgs.item(i);
            String label = svg.getAttribute("aria-label");
            assertFalse(label.isEmpty());
            assertEquals("title", ((Element) svg.getElementsByTagName("title").item(0)).getTagName());
            assertEquals(label, svg.getElementsByTagName("title").item(0).getTextContent());
            assertTrue(svg.getElementsByTagName("rect").getLength() > 0, label);
        }
    }

    @Test
    void everyTableRowHasACellPerHeader() throws Exception {
        List<Study> studies = MarkdownReportTest.studies();
        Document doc = parse(HtmlReport.render(studies, CostModel.fit(studies)));
        NodeList tables = doc.getElementsByTagName("table");
        assertTrue(tables.getLength() >= 1 + 4 * 3 + 2);
        for (int i = 0; i < tables.getLength(); i++) {
            Element t = (Element) tables.item(i);
            int columns = t.getElementsByTagName("th").getLength();
            NodeList rows = ((Element) t.getElementsByTagName("tbody").item(0)).getElementsByTagName("tr");
            assertTrue(rows.getLength() > 0);
            for (int r = 0; r < rows.getLength(); r++) {
                assertEquals(columns, ((Element) rows.item(r)).getElementsByTagName("td").getLength());
            }
        }
    }

    @Test
    void theHandshakeTableHasACellPerHeaderAndShowsOnlyWithHandshakes() throws Exception {
        Study plain = Studies.study("outbound", List.of("tcp", "aes"), 500, 200, 400);
        assertFalse(HtmlReport.render(List.of(plain), null).contains("<h3>Handshake</h3>"));
        String html = HtmlReport.render(List.of(Studies.withHandshakes(plain, "aes", new TlsFlights(236, 867), null)),
                null);
        assertTrue(html.contains("<h3>Handshake</h3>"), html);
        Element last = lastTable(html);
        assertEquals(11, last.getElementsByTagName("th").getLength());
        NodeList cells = last.getElementsByTagName("td");
        assertEquals(11, cells.getLength(), "one row: aes's full handshake");
        assertEquals("867–868", cells.item(6).getTextContent());
        assertEquals("n/a", cells.item(10).getTextContent(), "no latency timed");
    }

    @Test
    void theIdleConnectionTableHasACellPerHeaderAndShowsOnlyWhenMeasured() throws Exception {
        Study plain = Studies.study("handshakes", List.of("tcp", "aes"), 100, 2000, 4000);
        assertFalse(HtmlReport.render(List.of(plain), null).contains("<h3>Heap per idle connection</h3>"));
        IdleHeap tcp = new IdleHeap("tcp", "tcp", 500, 500, 0, null, 0.2, new IdleHeap.Snapshot(1_000_000, 9_000, -1, 0),
                new IdleHeap.Snapshot(2_400_000, 40_000, -1, 500), new IdleHeap.Snapshot(1_000_500, 9_010, -1, 0),
                List.of(), null);
        String html = HtmlReport.render(List.of(plain.withIdle(List.of(tcp))), null);
        assertTrue(html.contains("<h3>Heap per idle connection</h3>"), html);
        Element last = lastTable(html);
        assertEquals(10, last.getElementsByTagName("th").getLength());
        NodeList cells = last.getElementsByTagName("td");
        assertEquals(10, cells.getLength(), "one row: tcp");
        assertEquals("2,800", cells.item(4).getTextContent());
        assertEquals("n/a", cells.item(7).getTextContent(), "no resident set read");
    }

    /** The report's last table. */
    private static Element lastTable(String html) throws Exception {
        NodeList tables = parse(html).getElementsByTagName("table");
        return (Element) tables.item(tables.getLength() - 1);
    }

    @Test
    void aKindTimedButNotSizedHasItsRowWithTheSizesUnknown() throws Exception {
        Study plain = Studies.study("outbound", List.of("tcp", "aes"), 500, 200, 400);
        Study s = Studies.withHandshakeTimes(Studies.withHandshakes(plain, "aes", new TlsFlights(236, 867), null),
                "aes", 40, 10);
        Document doc = parse(HtmlReport.render(List.of(s), null));
        NodeList tables = doc.getElementsByTagName("table");
        NodeList rows = ((Element) tables.item(tables.getLength() - 1)).getElementsByTagName("tr");
        assertEquals(3, rows.getLength(), "header, full and resumed");
        NodeList resumed = ((Element) rows.item(2)).getElementsByTagName("td");
        assertEquals("resumed", resumed.item(3).getTextContent());
        assertEquals("n/a", resumed.item(4).getTextContent(), "no resumed handshake sized");
        assertEquals("300", resumed.item(10).getTextContent(), "100 timed in each of three repetitions");
        assertTrue(Double.parseDouble(resumed.item(8).getTextContent()) > 0);
    }

    @Test
    void theServersTlsEngineIsATextCellBesideEachCipher() throws Exception {
        String html = HtmlReport.render(MarkdownReportTest.engineStudies(), null);
        parse(html);
        assertTrue(html.contains("<th>cipher</th><th>server TLS engine</th><th>offered cps</th>"), html);
        for (String cell : List.of("<td>tcp</td><td>—</td>", "<td>aes</td><td>openssl</td>",
                "<td>camellia</td><td>mixed: bc+jsse</td>", "<td>seed</td><td>n/a</td>",
                "<td>aes</td><td>OpenSSL (Kamailio)</td>")) {
            assertTrue(html.contains(cell), cell);
        }
        assertTrue(html.contains("<p class=\"note\">server TLS engine: the TLS engine"), html);
    }

    @Test
    void nothingIsFetchedFromAnywhere() {
        List<Study> studies = MarkdownReportTest.studies();
        String html = HtmlReport.render(studies, CostModel.fit(studies));
        assertTrue(html.startsWith("<!DOCTYPE html>\n"));
        assertTrue(html.contains("<style>"));
        for (String outside : List.of("http", "//", "src=", "href=", "<script", "url(", "@import", "<link")) {
            assertFalse(html.contains(outside), outside);
        }
    }

    @Test
    void allTextIsEscaped() throws Exception {
        String name = "x<y & 'q' \"z\"";
        String html = HtmlReport.render(List.of(Studies.study(name, List.of("a>b"), 100, 300)), null);
        parse(html);
        assertFalse(html.contains(name));
        assertTrue(html.contains("x&lt;y &amp; &#39;q&#39; &quot;z&quot;"), html);
        assertTrue(html.contains("a&gt;b"));
        assertFalse(html.contains("Cost model"));
        assertEquals(5, html.split("<svg", -1).length - 1);
    }

    @Test
    void aHeavyGeneratorIsListedUnderTheTable() throws Exception {
        List<PointRun> fixed = new ArrayList<>();
        for (int rep = 1; rep <= 3; rep++) {
            fixed.add(Studies.withLabCpu(Studies.point("chain", "aes", rep, 500, 1000), 500, 100));
        }
        Study base = Studies.study("chain", List.of("aes"), 500, 1000);
        String html = HtmlReport.render(List.of(new Study(0, "chain", base.scenarioText(), List.of("aes"),
                base.started(), base.environment(), fixed, List.of())), null);
        parse(html);
        assertTrue(html.contains("<td class=\"num\">500 HEAVY</td>"), html);
        assertTrue(html.contains("<li>aes, server 1000 µs/call: generator 500 µs/call (50 %)</li>"), html);
        String fine = HtmlReport.render(List.of(base), null);
        assertFalse(fine.contains("HEAVY"), fine);
        assertTrue(fine.contains("within a third of the server&#39;s for every cipher"), fine);
    }

    @Test
    void aStudyWithoutRampsHasNoPeakChart() throws Exception {
        Study s = Studies.study("chain", List.of("udp", "aes"), 100, 100, 170);
        Study fixedOnly = new Study(0, s.scenario(), "", s.ciphers(), s.started(), s.environment(), s.fixed(), List.of());
        Document doc = parse(HtmlReport.render(List.of(fixedOnly), null));
        assertEquals(4, doc.getElementsByTagName("svg").getLength());
    }

    /**
     * The cross-combination section's four charts: per cipher a bar per combination, heights in the
     * proportion of the table's figures on one foot, the intervals as whiskers where there are
     * some, and chacha20 under 1.2/rsa (skipped) drawn as no bar, "skipped" in its place and the
     * reason in every chart's caption.
     */
    @Test
    void theCrossCombinationChartsHaveABarPerCombinationAndNoneWhereSkipped() throws Exception {
        Document doc = parse(HtmlReport.render(CrossCombinationsTest.studies(), null));
        List<Element> charts = new ArrayList<>();
        NodeList svgs = doc.getElementsByTagName("svg");
        for (int i = 0; i < svgs.getLength(); i++) {
            if (((Element) svgs.item(i)).getAttribute("aria-label").startsWith("handshakes: ")) {
                charts.add((Element) svgs.item(i));
            }
        }
        assertEquals(List.of("handshakes: server CPU per call / tcp's in the same round",
                "handshakes: server CPU per handshake (estimate, an upper bound)",
                "handshakes: full handshake latency p50 (generator)",
                "handshakes: ClientHello bytes (first full handshake)"),
                charts.stream().map(c -> c.getAttribute("aria-label")).toList());
        String reason = "1.2/rsa: chacha20 skipped: no suite for TLS 1.2, rsa (a TLS_RSA_WITH_ suite)";
        for (Element chart : charts) {
            assertFalse(bars(chart).containsKey("chacha20 1.2/rsa"), "skipped is no bar, not a zero one");
            assertTrue(texts(chart).contains("skipped"), chart.getAttribute("aria-label"));
            assertTrue(texts(chart).contains(reason), chart.getAttribute("aria-label") + ": " + texts(chart));
            assertTrue(texts(chart).containsAll(List.of("1.2/rsa", "1.3/ecdhe-x25519")), "the legend");
        }
        // ratios 3, 2 and 2.5 (each ± 0: whiskers of no length)
        Map<String, double[]> ratio = bars(charts.get(0));
        assertEquals(List.of("aes 1.2/rsa", "aes 1.3/ecdhe-x25519", "chacha20 1.3/ecdhe-x25519"),
                List.copyOf(ratio.keySet()));
        assertProportional(ratio, "aes 1.2/rsa", "aes 1.3/ecdhe-x25519", 3.0 / 2.0);
        assertProportional(ratio, "chacha20 1.3/ecdhe-x25519", "aes 1.3/ecdhe-x25519", 2.5 / 2.0);
        // µs per handshake 200 ± 10, 110 ± 5, 165 ± 8: a whisker each
        Map<String, double[]> perHandshake = bars(charts.get(1));
        assertEquals(3, perHandshake.size());
        assertProportional(perHandshake, "aes 1.2/rsa", "aes 1.3/ecdhe-x25519", 200.0 / 110.0);
        assertProportional(perHandshake, "chacha20 1.3/ecdhe-x25519", "aes 1.3/ecdhe-x25519", 165.0 / 110.0);
        assertEquals(3, charts.get(1).getElementsByTagName("path").getLength() - 1, "a whisker per bar, one in the legend");
        // latency timed for aes under 1.2/rsa only; the others not measured: n/a, no bar
        assertEquals(List.of("aes 1.2/rsa"), List.copyOf(bars(charts.get(2)).keySet()));
        assertEquals(2, texts(charts.get(2)).stream().filter("n/a"::equals).count());
        // ClientHello 182 and 253 bytes
        Map<String, double[]> hello = bars(charts.get(3));
        assertEquals(List.of("aes 1.2/rsa", "chacha20 1.3/ecdhe-x25519"), List.copyOf(hello.keySet()));
        assertProportional(hello, "aes 1.2/rsa", "chacha20 1.3/ecdhe-x25519", 182.0 / 253.0);
    }

    /** A chart's bars (rects with a tooltip) by the tooltip's words before the colon: {y, height}. */
    private static Map<String, double[]> bars(Element chart) {
        Map<String, double[]> out = new LinkedHashMap<>();
        NodeList rects = chart.getElementsByTagName("rect");
        for (int i = 0; i < rects.getLength(); i++) {
            Element r = (Element) rects.item(i);
            NodeList title = r.getElementsByTagName("title");
            if (title.getLength() > 0) {
                String tip = title.item(0).getTextContent();
                out.put(tip.substring(0, tip.indexOf(':')), new double[] {Double.parseDouble(r.getAttribute("y")),
                        Double.parseDouble(r.getAttribute("height"))});
            }
        }
        return out;
    }

    private static List<String> texts(Element chart) {
        List<String> out = new ArrayList<>();
        NodeList texts = chart.getElementsByTagName("text");
        for (int i = 0; i < texts.getLength(); i++) {
            out.add(texts.item(i).getTextContent());
        }
        return out;
    }

    /** Bars {@code a} and {@code b} stand on one foot and their heights are as {@code ratio}. */
    private static void assertProportional(Map<String, double[]> bars, String a, String b, double ratio) {
        double[] ya = bars.get(a);
        double[] yb = bars.get(b);
        assertEquals(ya[0] + ya[1], yb[0] + yb[1], 0.11, "one foot");
        assertEquals(ratio, ya[1] / yb[1], 0.01, a + " against " + b);
    }
}
