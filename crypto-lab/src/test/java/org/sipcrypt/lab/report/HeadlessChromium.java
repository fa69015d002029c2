package org.sipcrypt.lab.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

import java.awt.image.BufferedImage;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import javax.imageio.ImageIO;

/**
 * Debian's Chromium ({@code apt-get install chromium}, which scripts/verify.sh installs) run headless
 * on a local file: one run writes the page's DOM as Chromium parsed it, a screenshot of the window,
 * and the page's console messages (where Chromium reports an SVG attribute it could not parse). Each
 * run has a private profile under the given directory and is ended by its PID, with its child
 * processes, if it outlives its timeout.
 * Threading: not thread-safe; one run at a time per directory.
 */
final class HeadlessChromium {

    /** What the installer names the binary, looked up on the PATH. */
    static final String BINARY = "chromium";
    static final String INSTALL_HINT = "chromium is not installed: apt-get install chromium (scripts/verify.sh"
            + " installs it)";
    private static final Duration TIMEOUT = Duration.ofSeconds(90); // generous: a busy machine must not fail a test

    private final Path binary;

    private HeadlessChromium(Path binary) {
        this.binary = binary;
    }

    /** The Chromium on the PATH, if there is one. */
    static Optional<HeadlessChromium> find() {
        String path = System.getenv("PATH");
        if (path == null) {
            return Optional.empty();
        }
        for (String dir : path.split(File.pathSeparator)) {
            Path candidate = Path.of(dir.isEmpty() ? "." : dir, BINARY);
            if (Files.isExecutable(candidate)) {
                return Optional.of(new HeadlessChromium(candidate));
            }
        }
        return Optional.empty();
    }

    /**
     * What one run made of a page: its DOM serialized, the window as pixels, and the lines Chromium
     * logged from the page's console.
     * Threading: immutable once returned.
     */
    record Rendering(String dom, BufferedImage screenshot, List<String> console) {
    }

    /** Renders {@code page} in a window {@code width} × {@code height} CSS pixels at scale 1. */
    Rendering render(Path page, int width, int height, Path workDir) throws IOException, InterruptedException {
        Files.createDirectories(workDir);
        Path png = workDir.resolve("screenshot.png");
        Path out = workDir.resolve("dom.html");
        Path err = workDir.resolve("chromium.log");
        Files.deleteIfExists(png);
        List<String> command = List.of(binary.toString(), "--headless=new", "--no-sandbox", "--disable-gpu",
                "--hide-scrollbars", "--force-device-scale-factor=1", "--no-first-run", "--enable-logging=stderr",
                "--v=0", "--user-data-dir=" + workDir.resolve("profile"), "--window-size=" + width + "," + height,
                "--screenshot=" + png, "--dump-dom", page.toUri().toString());
        Process p = new ProcessBuilder(command).redirectOutput(out.toFile()).redirectError(err.toFile()).start();
        if (!p.waitFor(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
            p.descendants().forEach(ProcessHandle::destroyForcibly);
            p.destroyForcibly();
            p.waitFor(5, TimeUnit.SECONDS);
            fail("chromium (pid " + p.pid() + ") did not finish in " + TIMEOUT.toSeconds() + " s and was killed; its log: "
                    + err);
        }
        String log = Files.readString(err, StandardCharsets.UTF_8);
        assertEquals(0, p.exitValue(), () -> "chromium failed: " + command + "\n" + log);
        if (!Files.isRegularFile(png)) {
            fail("chromium wrote no screenshot: " + log);
        }
        List<String> console = new ArrayList<>();
        for (String line : log.split("\n")) {
            if (line.contains(":CONSOLE")) {
                console.add(line);
            }
        }
        return new Rendering(Files.readString(out, StandardCharsets.UTF_8), ImageIO.read(png.toFile()), console);
    }
}
