package org.sipcrypt.lab.loadgen;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads the users file the server's {@code users generate --csv FILE} writes, the SIPp injection
 * format: a first line {@code SEQUENTIAL} (or {@code RANDOM} or {@code USER}), then
 * {@code NAME;PASSWORD} per line; {@code NAME,PASSWORD} is accepted too, as are blank lines and
 * lines starting with {@code #}. Further columns are ignored. The order of the file is kept:
 * operation i of a run acts as user i mod N.
 * Threading: immutable (static methods only).
 */
public final class CredentialFiles {

    private CredentialFiles() {
    }

    /**
     * Reads a users file.
     *
     * @throws IOException              the file cannot be read
     * @throws IllegalArgumentException a line is not {@code NAME;PASSWORD}, or there is no user,
     *                                  naming the file and the line
     */
    public static List<Credential> read(Path file) throws IOException {
        return parse(Files.readAllLines(file, StandardCharsets.UTF_8), file.toString());
    }

    /** Parses the lines of a users file; {@code source} names it in messages. */
    static List<Credential> parse(List<String> lines, String source) {
        List<Credential> out = new ArrayList<>();
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i).strip();
            if (line.isEmpty() || line.startsWith("#") || i == 0 && line.matches("(?i)SEQUENTIAL|RANDOM|USER")) {
                continue;
            }
            String[] cols = line.split("[;,]", -1);
            if (cols.length < 2 || cols[0].isEmpty()) {
                throw new IllegalArgumentException(source + " line " + (i + 1) + ": expected NAME;PASSWORD");
            }
            out.add(new Credential(cols[0], cols[1]));
        }
        if (out.isEmpty()) {
            throw new IllegalArgumentException(source + ": no users (expected NAME;PASSWORD lines)");
        }
        return List.copyOf(out);
    }
}
