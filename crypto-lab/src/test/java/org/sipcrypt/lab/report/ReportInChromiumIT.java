package org.sipcrypt.lab.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.awt.image.BufferedImage;
import java.awt.image.DataBufferByte;
import java.awt.image.Raster;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.xml.parsers.DocumentBuilder;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.w3c.dom.NodeList;
import org.xml.sax.InputSource;
import org.xml.sax.helpers.DefaultHandler;

/**
 * report.html of one scenario under two handshake combinations ({@link CrossCombinationsTest#studies()})
 * as a browser draws it, in headless Chromium: the page logs no console error (where Chromium says an
 * SVG attribute did not parse), its DOM holds every chart as an {@code <svg>} with each bar a
 * {@code <rect>} child of it, and the screenshot shows each bar of the cross-combination charts in its
 * colour where its SVG puts it, up to its top and no further, and nothing of any series colour where
 * a skipped cipher's bar is absent. A report with two charts broken on purpose fails the same check
 * on those two. Both pages are one Chromium run each (about 2 s).
 * Skipped only where Chromium is not installed.
 */
@Timeout(value = 240, unit = TimeUnit.SECONDS)
class ReportInChromiumIT {

    private static final int WINDOW_WIDTH = 1200;
    /**
     * Tall enough for the whole page of the two studies (about 7,700 px at this width with Debian's
     * fonts); every pixel row more costs Chromium and the PNG decoder time.
     */
    private static final int WINDOW_HEIGHT = 9000;
    /** The cross-combination charts' titles start so; the per-study charts' name the study's start. */
    private static final String CROSS = "handshakes: ";
    private static final Pattern SVG = Pattern.compile("(?s)<svg\\b.*?</svg>");
    private static final int TOLERANCE = 8;
    private static final String NOT_DRAWN = ": not drawn where its SVG puts its bars (no place in the screenshot has"
            + " every bar in its colour, as tall as the SVG draws it)";

    @TempDir
    Path dir;

    private HeadlessChromium chromium;
    private String page;
    private List<Chart> expected;

    @BeforeEach
    void renderTheReport() throws Exception {
        chromium = HeadlessChromium.find().orElse(null);
        assumeTrue(chromium != null, HeadlessChromium.INSTALL_HINT + "; the report's charts are not checked in a browser");
        page = HtmlReport.render(CrossCombinationsTest.studies(), null);
        expected = charts(HtmlReportTest.parse(page));
        assertEquals(4, expected.stream().filter(c -> c.label().startsWith(CROSS)).count(), "the cross charts");
    }

    @Test
    void everyChartRendersWithItsBarsWhereTheSvgDrawsThem() throws Exception {
        assertEquals(List.of(), problems(render("report.html", page)));
    }

    /**
     * Two charts broken as a bug would break them, in one page (a Chromium run each would double the
     * test's time): the first cross chart's first bar gets a height that is no length (a NaN
     * formatted into it), so Chromium says so and draws no bar; the last one's first tooltip a name
     * written unescaped ({@code a<b}), so Chromium's parser moves the chart's later bars out of its
     * SVG. Each fails the check on its own chart, and the charts between them pass.
     */
    @Test
    void brokenChartsFailTheCheckEachOnItsOwn() throws Exception {
        int first = page.indexOf("aria-label=\"" + CROSS);
        Matcher bar = Pattern.compile("height=\"([0-9.]+)\"( fill=\"#[0-9a-f]{6}\"><title>)").matcher(page);
        assertTrue(bar.find(first));
        String broken = page.substring(0, bar.start()) + "height=\"NaN\"" + bar.group(2) + page.substring(bar.end());
        int last = broken.lastIndexOf("aria-label=\"" + CROSS);
        String tip = "<title>aes 1.2/rsa: ";
        int at = broken.indexOf(tip, last);
        assertTrue(at > last, "the last chart has aes's bar under 1.2/rsa");
        broken = broken.substring(0, at) + "<title>a<b 1.2/rsa: " + broken.substring(at + tip.length());
        List<Chart> cross = expected.stream().filter(c -> c.label().startsWith(CROSS)).toList();

        List<String> problems = problems(render("broken.html", broken));

        assertTrue(problems.stream().anyMatch(p -> p.startsWith("console:") && p.contains("attribute height")),
                problems.toString());
        assertTrue(problems.contains(cross.get(0).label() + NOT_DRAWN), problems.toString());
        assertTrue(problems.stream().anyMatch(p -> p.startsWith(cross.get(3).label() + ": ") && p.contains("DOM")),
                problems.toString());
        assertTrue(problems.contains(cross.get(3).label() + NOT_DRAWN), problems.toString());
        for (Chart fine : expected) {
            if (fine == cross.get(0) || fine == cross.get(3)) {
                continue;
            }
            assertTrue(problems.stream().noneMatch(p -> p.startsWith(fine.label() + ":")), fine.label() + ": " + problems);
        }
    }

    private HeadlessChromium.Rendering render(String name, String html) throws Exception {
        Path file = dir.resolve(name);
        Files.writeString(file, html, StandardCharsets.UTF_8);
        return chromium.render(file, WINDOW_WIDTH, WINDOW_HEIGHT, dir.resolve(name + ".chromium"));
    }

    /** What is wrong with the rendering against the charts the report meant to draw; empty when nothing is. */
    private List<String> problems(HeadlessChromium.Rendering r) {
        List<String> problems = new ArrayList<>();
        r.console().forEach(line -> problems.add("console: " + line));
        problems.addAll(domProblems(r.dom()));
        Pixels pixels = new Pixels(r.screenshot());
        if (!pixels.blankAtTheFoot()) {
            problems.add("the page is taller than the window of " + WINDOW_HEIGHT + " px: its end is not in the screenshot");
        }
        int lastTop = -1;
        for (Chart c : expected) {
            if (!c.label().startsWith(CROSS)) {
                continue;
            }
            int[] at = pixels.locate(c);
            if (at == null) {
                problems.add(c.label() + NOT_DRAWN);
                continue;
            }
            if (at[1] <= lastTop) {
                problems.add(c.label() + ": found at y " + at[1] + ", above the chart before it");
            }
            lastTop = at[1];
            problems.addAll(pixels.absentProblems(c, at));
        }
        return problems;
    }

    /** The DOM Chromium built: the charts in order, each an svg with its bars as rect children and none elsewhere. */
    private List<String> domProblems(String dom) {
        List<String> problems = new ArrayList<>();
        List<String> svgs = new ArrayList<>();
        Matcher m = SVG.matcher(dom);
        while (m.find()) {
            svgs.add(m.group());
        }
        if (svgs.size() != expected.size()) {
            problems.add("the DOM has " + svgs.size() + " <svg> elements, the report " + expected.size());
        }
        for (int i = 0; i < Math.min(svgs.size(), expected.size()); i++) {
            Chart want = expected.get(i);
            Element svg;
            try {
                svg = xml(svgs.get(i).replace("&nbsp;", "&#160;")).getDocumentElement();
            } catch (Exception e) {
                problems.add(want.label() + ": the DOM's <svg> does not parse as XML: " + e.getMessage());
                continue;
            }
            if (!want.label().equals(svg.getAttribute("aria-label"))) {
                problems.add("chart " + i + " is \"" + svg.getAttribute("aria-label") + "\", expected \"" + want.label()
                        + "\"");
            }
            NodeList rects = svg.getElementsByTagName("rect");
            int bars = 0;
            for (int k = 0; k < rects.getLength(); k++) {
                Element rect = (Element) rects.item(k);
                if (rect.getParentNode() != svg) {
                    problems.add(want.label() + ": in the DOM a <rect> is not a child of its <svg> but of <"
                            + rect.getParentNode().getNodeName() + ">");
                } else if (rect.getElementsByTagName("title").getLength() > 0) {
                    bars++;
                }
            }
            if (bars != want.bars().size()) {
                problems.add(want.label() + ": " + bars + " bars in the DOM, " + want.bars().size() + " in the report");
            }
        }
        return problems;
    }

    /** The charts the report draws, from its own markup: each bar (a rect with a tooltip) and each absent bar's label. */
    private static List<Chart> charts(Document page) {
        List<Chart> out = new ArrayList<>();
        NodeList svgs = page.getElementsByTagName("svg");
        for (int i = 0; i < svgs.getLength(); i++) {
            Element svg = (Element) svgs.item(i);
            List<Bar> bars = new ArrayList<>();
            List<double[]> absent = new ArrayList<>();
            for (Node n = svg.getFirstChild(); n != null; n = n.getNextSibling()) {
                if (!(n instanceof Element e)) {
                    continue;
                }
                if (e.getTagName().equals("rect") && e.getElementsByTagName("title").getLength() > 0) {
                    bars.add(new Bar(number(e, "x"), number(e, "y"), number(e, "width"), number(e, "height"),
                            Integer.parseInt(e.getAttribute("fill").substring(1), 16)));
                } else if (e.getTagName().equals("text") && List.of("skipped", "n/a").contains(e.getTextContent())) {
                    absent.add(new double[] {number(e, "x"), number(e, "y")});
                }
            }
            out.add(new Chart(svg.getAttribute("aria-label"), bars, absent));
        }
        return out;
    }

    private static double number(Element e, String attribute) {
        return Double.parseDouble(e.getAttribute(attribute));
    }

    private static Document xml(String text) throws Exception {
        DocumentBuilderFactory f = DocumentBuilderFactory.newInstance();
        f.setExpandEntityReferences(false);
        DocumentBuilder b = f.newDocumentBuilder();
        b.setErrorHandler(new DefaultHandler()); // throws on fatal errors only, and prints nothing
        return b.parse(new InputSource(new StringReader(text)));
    }

    /**
     * A bar as the report's SVG draws it: its rectangle in the chart's coordinates and its colour.
     * Threading: immutable.
     */
    private record Bar(double x, double y, double width, double height, int rgb) {
    }

    /**
     * A chart the report draws: its label, its bars, and where an absent bar's label stands (x, y).
     * Threading: immutable.
     */
    private record Chart(String label, List<Bar> bars, List<double[]> absent) {
    }

    /**
     * The screenshot's pixels, and where a chart's bars are in it.
     * Threading: confined to the test's thread.
     */
    private static final class Pixels {

        private final int width;
        private final int height;
        private final int[] rgb;

        Pixels(BufferedImage image) {
            width = image.getWidth();
            height = image.getHeight();
            rgb = new int[width * height];
            Raster raster = image.getRaster();
            int bands = raster.getNumBands();
            if (image.getColorModel().getColorSpace().isCS_sRGB() && bands >= 3
                    && raster.getDataBuffer() instanceof DataBufferByte) {
                // PNG screenshots decode to interleaved bytes: read them straight, three times faster than getRGB
                int[] row = new int[width * bands];
                for (int y = 0; y < height; y++) {
                    raster.getPixels(0, y, width, 1, row);
                    for (int x = 0; x < width; x++) {
                        rgb[y * width + x] = row[x * bands] << 16 | row[x * bands + 1] << 8 | row[x * bands + 2];
                    }
                }
            } else {
                image.getRGB(0, 0, width, height, rgb, 0, width);
            }
        }

        /** Whether the last rows are white, as below the page's end. */
        boolean blankAtTheFoot() {
            for (int i = (height - 40) * width; i < rgb.length; i++) {
                if ((rgb[i] & 0xffffff) != 0xffffff) {
                    return false;
                }
            }
            return true;
        }

        private int at(double x, double y) {
            int px = (int) Math.floor(x);
            int py = (int) Math.floor(y);
            return px < 0 || py < 0 || px >= width || py >= height ? -1 : rgb[py * width + px] & 0xffffff;
        }

        private static boolean close(int a, int b) {
            if (a < 0) {
                return false;
            }
            for (int shift = 0; shift <= 16; shift += 8) {
                if (Math.abs(((a >> shift) & 0xff) - ((b >> shift) & 0xff)) > TOLERANCE) {
                    return false;
                }
            }
            return true;
        }

        /**
         * The offset (x, y) from the chart's coordinates to the screenshot's at which every bar of the
         * chart is drawn, or null: tried at the top left corner of each block of the tallest bar's colour.
         */
        int[] locate(Chart c) {
            Bar anchor = tallest(c);
            for (int y = 1; y < height; y++) {
                for (int x = 1; x < width; x++) {
                    int p = rgb[y * width + x] & 0xffffff;
                    if (p != anchor.rgb() || (rgb[y * width + x - 1] & 0xffffff) == p
                            || (rgb[(y - 1) * width + x] & 0xffffff) == p) {
                        continue;
                    }
                    for (double dy : new double[] {0, -0.5, -1}) {
                        for (double dx : new double[] {0, -0.5, -1}) {
                            double ox = x - anchor.x() + dx;
                            double oy = y - anchor.y() + dy;
                            if (mismatch(c, ox, oy) == null) {
                                return new int[] {(int) Math.round(ox), (int) Math.round(oy)};
                            }
                        }
                    }
                }
            }
            return null;
        }

        private static Bar tallest(Chart c) {
            return c.bars().stream().max(java.util.Comparator.comparingDouble(Bar::height)).orElseThrow(
                    () -> new AssertionError(c.label() + " has no bars"));
        }

        /**
         * Null when, at that offset, every bar has its colour just inside its corners, and not just
         * above its top nor just below its foot (so its height is the SVG's, within 3 px); else what differs.
         */
        private String mismatch(Chart c, double ox, double oy) {
            int checked = 0;
            for (Bar b : c.bars()) {
                double left = b.x() + ox + 2.5;
                double right = b.x() + b.width() + ox - 2.5;
                double top = b.y() + oy;
                double foot = b.y() + b.height() + oy;
                if (b.width() < 6 || b.height() < 6) {
                    continue;
                }
                checked++;
                if (!close(at(left, top + 2.5), b.rgb()) || !close(at(right, foot - 2.5), b.rgb())) {
                    return String.format(Locale.ROOT, "no #%06x bar at %.0f,%.0f", b.rgb(), left, top + 2.5);
                }
                if (close(at(left, top - 3), b.rgb()) || close(at(left, foot + 3), b.rgb())) {
                    return String.format(Locale.ROOT, "the #%06x bar at %.0f,%.0f is taller than %.1f", b.rgb(), left,
                            top, b.height());
                }
            }
            return checked > 0 ? null : "no bar of 6 × 6 px or more to look for";
        }

        /**
         * Where a bar is absent, no series colour in a 5 px strip down the middle of its place, from the
         * plot's highest bar to just above the label.
         */
        List<String> absentProblems(Chart c, int[] at) {
            List<String> out = new ArrayList<>();
            double top = c.bars().stream().mapToDouble(Bar::y).min().orElseThrow();
            for (double[] label : c.absent()) {
                for (double y = top; y < label[1] - 12; y++) {
                    for (double x = label[0] - 2; x <= label[0] + 2; x++) {
                        int p = at(x + at[0], y + at[1]);
                        for (String colour : SvgCharts.SERIES_COLOURS) {
                            if (close(p, Integer.parseInt(colour.substring(1), 16))) {
                                out.add(c.label() + ": colour " + colour + " where a bar is absent, at "
                                        + (int) (x + at[0]) + "," + (int) (y + at[1]));
                                return out;
                            }
                        }
                    }
                }
            }
            return out;
        }
    }
}
