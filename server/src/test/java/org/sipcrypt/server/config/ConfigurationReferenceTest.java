package org.sipcrypt.server.config;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.sipcrypt.server.war.WebappSettings;

/**
 * {@code docs/configuration.md} is what {@link ConfigurationReference} renders from the settings
 * table, on any machine. With {@code -DwriteReference=true} the first test writes the file before
 * comparing ({@link ConfigurationReference#REGENERATE}).
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class ConfigurationReferenceTest {

    @Test
    void committedReferenceIsWhatTheSettingsTableRenders() throws IOException {
        Path file = repositoryRoot().resolve("docs").resolve("configuration.md");
        String rendered = ConfigurationReference.markdown();
        if (Boolean.getBoolean("writeReference")) {
            Files.writeString(file, rendered, UTF_8);
        }
        String committed = Files.exists(file) ? Files.readString(file, UTF_8) : "";
        if (!committed.equals(rendered)) {
            fail("docs/configuration.md disagrees with the settings table (" + firstDifference("the file has", committed, "the code renders", rendered)
                    + "); write it again, at the top of the repository, with:\n  " + ConfigurationReference.REGENERATE);
        }
    }

    @Test
    void everyKeyTheServerAcceptsHasOneRowWithItsOptionAndNoOtherKeyHasOne() {
        List<String> keys = new ArrayList<>();
        List<String> options = new ArrayList<>();
        for (String[] row : keyRows(ConfigurationReference.markdown())) {
            keys.add(unquote(row[0]));
            options.add(unquote(row[1]));
        }
        assertEquals(ConfigLoader.settings().stream().map(Setting::key).sorted().toList(),
                keys.stream().sorted().toList());
        for (int i = 0; i < keys.size(); i++) {
            String key = keys.get(i);
            Setting s = ConfigLoader.settings().stream().filter(t -> t.key().equals(key)).findFirst().orElseThrow();
            assertEquals(s.option(), options.get(i), key);
        }
    }

    @Test
    void keysAreGroupedByTheirPrefixWithTheKeysWithoutOneFirst() {
        String md = ConfigurationReference.markdown();
        int general = md.indexOf("\n### Keys without a prefix\n");
        int db = md.indexOf("\n### `db`\n");
        int tls = md.indexOf("\n### `tls`\n");
        assertTrue(general > 0 && db > general && tls > db, "groups in order");
        String dbGroup = md.substring(db, md.indexOf("\n### ", db + 1));
        assertTrue(dbGroup.contains("| `db` |") && dbGroup.contains("| `db.poolSize` |"), dbGroup);
        assertTrue(md.substring(general, db).contains("| `listen` |"), "listen has no group of its own");
    }

    @Test
    void valueColumnShowsWhatTheParserAccepts() {
        String md = ConfigurationReference.markdown();
        assertTrue(md.contains("| `db.poolSize` | `--db-pool-size` | `N`, 1 to 1,000 | `8` |"), "integer range");
        assertTrue(md.contains("| `shutdown.grace` | `--shutdown-grace` | `DURATION`, 0 or more | `10s` |"), "zero allowed");
        assertTrue(md.contains("| `tcp.idleTimeout` | `--tcp-idle-timeout` | `DURATION`, above 0 | `5m` |"), "zero refused");
        assertTrue(md.contains("| `auth` | `--auth` | `BOOL`, flag | `false` |"), "flag");
        assertTrue(md.contains("| `tls.versions` | `--tls-versions` | `1.2\\|1.3`, list | `1.2,1.3` |"), "list, pipe escaped");
        assertTrue(md.contains("| `db.password` | `--db-password` | `PASSWORD`, secret | none |"), "secret");
        assertTrue(md.contains("| `auth.preset` | `--auth-preset` | `secure\\|lab-legacy-digest` | none |"), "no value");
        assertTrue(md.contains("| `tls.clientAuth` | `--tls-client-auth` | `none\\|want\\|need` | `none` |"), "the value none");
    }

    @Test
    void aDefaultThatFollowsTheMachineIsWordedNotShown() {
        assertEquals(String.valueOf(Runtime.getRuntime().availableProcessors()), Setting.SIP_WORKERS.defaultText());
        assertTrue(ConfigurationReference.markdown().contains("| `N`, 1 to 1,024 | the number of cores |"));
    }

    @Test
    void referenceRenderedWithOtherCoresAndHeapIsTheSame(@TempDir Path dir) throws Exception {
        int cores = Runtime.getRuntime().availableProcessors() + 3;
        Path out = dir.resolve("out.md");
        Path err = dir.resolve("err.txt");
        Process p = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-XX:ActiveProcessorCount=" + cores, "-Xmx96m",
                "-cp", System.getProperty("surefire.test.class.path", System.getProperty("java.class.path")),
                ConfigurationReference.class.getName())
                .redirectOutput(out.toFile()).redirectError(err.toFile()).start();
        if (!p.waitFor(90, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            fail("the renderer in a JVM of its own did not finish in 90 s");
        }
        assertEquals(0, p.exitValue(), () -> "renderer exit code; its stderr: " + read(err));
        String there = Files.readString(out, UTF_8);
        String here = ConfigurationReference.markdown();
        assertEquals(here, there, "rendered with " + cores + " cores and a 96 MiB heap: " + firstDifference("this JVM renders", here, "that JVM renders", there));
    }

    @Test
    void presetsListWhatEachSetsBesideTheDefaults() {
        assertEquals(List.of("modern", "compatible", "lab-insecure"), TlsConfig.PRESETS.nameList());
        assertEquals(Arrays.asList(Setting.TLS_PRESET.paramLabel().split("\\|")), TlsConfig.PRESETS.nameList());
        assertEquals(Arrays.asList(Setting.AUTH_PRESET.paramLabel().split("\\|")), AuthConfig.PRESETS.nameList());
        String md = ConfigurationReference.markdown();
        assertTrue(md.contains("| `compatible` | the defaults |"), "the default preset");
        assertTrue(md.contains("| `lab-insecure` | `tls.ciphers=aes,3des,rc4`, `tls.allowInsecure=true` |"), md);
        assertTrue(md.contains("| `secure` | `auth=true` |"), md);
        assertTrue(md.contains("| `lab-legacy-digest` | `auth=true`, `auth.algorithms=md5`, `auth.legacyNoQop=true`,"
                + " `auth.lab.skipUriCheck=true` |"), md);
    }

    @Test
    void namesEverySourceOfSettingsTheJarAndTheWarRead() {
        String md = ConfigurationReference.markdown();
        assertTrue(md.contains("`--config FILE`"));
        assertTrue(md.contains("`" + WebappSettings.CONFIG_PARAMETER + "`"), WebappSettings.CONFIG_PARAMETER);
        assertTrue(md.contains("`" + WebappSettings.CONFIG_ENVIRONMENT + "`"), WebappSettings.CONFIG_ENVIRONMENT);
        assertTrue(md.contains("`sipcrypt: tcp.idleTimeout: \"5x\" is not a duration"), "the example error is the loader's");
    }

    /** The cells of each row of the key tables, the rows of the preset tables left out. */
    private static List<String[]> keyRows(String md) {
        List<String[]> rows = new ArrayList<>();
        String keysPart = md.substring(md.indexOf("\n## Keys\n"));
        for (String line : keysPart.split("\n")) {
            if (line.startsWith("| `")) {
                rows.add(line.substring(2, line.length() - 2).split(" \\| "));
            }
        }
        return rows;
    }

    private static String unquote(String codeSpan) {
        assertTrue(codeSpan.startsWith("`") && codeSpan.endsWith("`"), codeSpan);
        return codeSpan.substring(1, codeSpan.length() - 1);
    }

    private static Path repositoryRoot() {
        Path dir = Path.of("").toAbsolutePath();
        while (dir != null && !Files.isRegularFile(dir.resolve("server").resolve("pom.xml"))) {
            dir = dir.getParent();
        }
        assertNotNull(dir, "no directory above " + Path.of("").toAbsolutePath() + " holds server/pom.xml");
        return dir;
    }

    private static String firstDifference(String aName, String a, String bName, String b) {
        String[] x = a.split("\n", -1);
        String[] y = b.split("\n", -1);
        for (int i = 0; i < Math.max(x.length, y.length); i++) {
            String l = i < x.length ? x[i] : "(end of file)";
            String r = i < y.length ? y[i] : "(end of file)";
            if (!l.equals(r)) {
                return "first difference at line " + (i + 1) + ": " + aName + " \"" + l + "\", " + bName + " \"" + r + "\"";
            }
        }
        return "no difference";
    }

    private static String read(Path file) {
        try {
            return Files.readString(file, UTF_8);
        } catch (IOException e) {
            return "(unreadable: " + e + ")";
        }
    }
}
