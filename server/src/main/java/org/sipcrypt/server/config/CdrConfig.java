package org.sipcrypt.server.config;

import java.nio.file.Path;
import java.util.Locale;
import java.util.Objects;

/**
 * Call detail records, keys {@code cdr.*}: where the proxy writes one record per INVITE call, if
 * anywhere, and how many finished records may wait for the writer.
 * Threading: immutable.
 *
 * @param sink      none (the default: nothing is recorded), jsonl (one JSON object a line in
 *                  {@code file}) or database (the {@code cdrs} table of the server's database)
 * @param file      the JSON-lines file; required with the jsonl sink, else null
 * @param queueSize most finished records waiting to be written; beyond it records are dropped and counted
 */
public record CdrConfig(Sink sink, Path file, int queueSize) {

    /**
     * Where records go.
     * Threading: immutable.
     */
    public enum Sink {
        NONE, JSONL, DATABASE;

        /** The name used in configuration. */
        public String configName() {
            return name().toLowerCase(Locale.ROOT);
        }

        /** The sink named {@code text}, or IllegalArgumentException naming what is accepted. */
        public static Sink parse(String text) {
            for (Sink s : values()) {
                if (s.configName().equalsIgnoreCase(text.trim())) {
                    return s;
                }
            }
            throw new IllegalArgumentException("unknown sink \"" + text + "\" (expected none, jsonl or database)");
        }
    }

    public CdrConfig {
        Objects.requireNonNull(sink, "sink");
        if (sink == Sink.JSONL && file == null) {
            throw new IllegalArgumentException("cdr.file: not set (expected a file with cdr.sink=jsonl)");
        }
        if (queueSize < 1) {
            throw new IllegalArgumentException("cdr.queueSize: " + queueSize + " (expected at least 1)");
        }
    }

    /** No records (sink none), queue of 10,000 records (about 5 MB at most). */
    public static CdrConfig defaults() {
        return new Builder().build();
    }

    /** Whether records are written at all. */
    public boolean enabled() {
        return sink != Sink.NONE;
    }

    /** A builder holding these settings, to change some of them. */
    public Builder toBuilder() {
        return new Builder().sink(sink).file(file).queueSize(queueSize);
    }

    /**
     * Named settings for a {@link CdrConfig}, starting from the defaults; {@link #build} checks them.
     * Threading: not thread-safe; one per configuration being built.
     */
    public static final class Builder {
        private Sink sink = Sink.NONE;
        private Path file;
        private int queueSize = 10_000;

        public Builder sink(Sink v) { sink = v; return this; }
        public Builder file(Path v) { file = v; return this; }
        public Builder queueSize(int v) { queueSize = v; return this; }

        public CdrConfig build() {
            return new CdrConfig(sink, file, queueSize);
        }
    }
}
