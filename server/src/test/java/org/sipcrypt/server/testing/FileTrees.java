package org.sipcrypt.server.testing;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/**
 * Deletes the directories tests make outside JUnit's {@code @TempDir}: a server's data directory,
 * a PostgreSQL cluster, a SIPp work directory.
 * Threading: stateless.
 */
public final class FileTrees {

    private FileTrees() {
    }

    /** Deletes {@code dir} and everything below it, deepest first; what is already gone is skipped. */
    public static void delete(Path dir) throws IOException {
        try (Stream<Path> paths = Files.walk(dir)) {
            for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }
}
