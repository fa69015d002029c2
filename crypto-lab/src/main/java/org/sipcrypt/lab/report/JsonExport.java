package org.sipcrypt.lab.report;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonProcessingException;
import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Objects;
import org.sipcrypt.lab.runner.Study;
import org.sipcrypt.lab.store.LabJson;

/**
 * {@code results.json}: studies whole, samples included, as {@code {"studies":[...]}} in the lab's JSON
 * configuration ({@link LabJson}: records by their component names, instants as ISO-8601 text), for
 * other tools and for reading back into the lab. Indented for people who open it.
 * Threading: stateless; runs on the caller's thread.
 */
public final class JsonExport {

    /** The file's name in a results directory. */
    public static final String FILE_NAME = "results.json";

    /** The file's top level. */
    record Results(List<Study> studies) {
    }

    private JsonExport() {
    }

    /**
     * Writes {@value #FILE_NAME} into {@code dir} (created when missing), replacing an older one.
     *
     * @return the file written
     */
    public static Path write(List<Study> studies, Path dir) throws IOException {
        Objects.requireNonNull(studies, "studies");
        Path file = dir.resolve(FILE_NAME);
        ReportFiles.write(file, out -> LabJson.writer().withDefaultPrettyPrinter()
                .without(JsonGenerator.Feature.AUTO_CLOSE_TARGET)
                .writeValue(out, new Results(List.copyOf(studies))));
        return file;
    }

    /**
     * Reads a file written by {@link #write} back.
     *
     * @throws IOException when it cannot be read or is not such a file; the message names the file
     */
    public static List<Study> read(Path file) throws IOException {
        Results results;
        try (Reader in = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            results = LabJson.reader(Results.class).readValue(in);
        } catch (JsonProcessingException e) {
            throw new IOException(file + ": not a results file: " + e.getOriginalMessage(), e);
        }
        if (results == null || results.studies() == null) {
            throw new IOException(file + ": not a results file: no \"studies\" list");
        }
        return List.copyOf(results.studies());
    }
}
