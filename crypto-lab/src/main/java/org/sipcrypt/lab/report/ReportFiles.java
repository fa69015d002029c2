package org.sipcrypt.lab.report;

import java.io.IOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;

/**
 * Writes a report file whole or not at all: into {@code .NAME.tmp} beside it, then moved over it, so
 * a reader (or a crashed lab) never sees half a file. The file gets the permissions any new file of
 * the user gets.
 * Threading: stateless; runs on the caller's thread.
 */
final class ReportFiles {

    /** What goes into the file. */
    @FunctionalInterface
    interface Body {
        void writeTo(Writer out) throws IOException;
    }

    private ReportFiles() {
    }

    /** Writes {@code file} as UTF-8, creating its directory when missing. */
    static void write(Path file, Body body) throws IOException {
        Path dir = file.toAbsolutePath().getParent();
        Files.createDirectories(dir);
        Path tmp = dir.resolve("." + file.getFileName() + ".tmp");
        try {
            try (Writer out = Files.newBufferedWriter(tmp, StandardCharsets.UTF_8)) {
                body.writeTo(out);
            }
            try {
                Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            } catch (AtomicMoveNotSupportedException e) {
                // a file system without atomic renames: replaced in place, still never half written
                Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING);
            }
        } finally {
            Files.deleteIfExists(tmp);
        }
    }
}
