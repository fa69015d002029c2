package org.sipcrypt.server.cdr;

import com.fasterxml.jackson.core.JsonEncoding;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.List;

/**
 * Writes call records to a file as JSON lines, appended (the file is created if missing): one
 * object a line, the fields of {@link CallRecord} under the names of the {@code cdrs} table's
 * columns, times as ISO-8601 UTC instants, unknown values as null. Each batch is written and flushed
 * whole, so a reader sees only whole lines; an external log rotator may move the file between
 * batches only after a restart (the file is kept open).
 * Threading: the CDR writer thread only.
 */
public final class JsonLinesSink implements CdrSink {

    private static final JsonFactory JSON = new JsonFactory();

    private final OutputStream out;

    public JsonLinesSink(Path file) throws IOException {
        Path parent = file.toAbsolutePath().getParent();
        if (parent != null) {
            Files.createDirectories(parent);
        }
        this.out = Files.newOutputStream(file, StandardOpenOption.CREATE, StandardOpenOption.APPEND,
                StandardOpenOption.WRITE);
    }

    @Override
    public void write(List<CallRecord> batch) throws IOException {
        ByteArrayOutputStream lines = new ByteArrayOutputStream(batch.size() * 400);
        for (CallRecord r : batch) {
            lines.write(line(r));
        }
        out.write(lines.toByteArray());
        out.flush();
    }

    /** One record as one JSON line, ending in a line feed. */
    public static byte[] line(CallRecord r) throws IOException {
        ByteArrayOutputStream buffer = new ByteArrayOutputStream(400);
        try (JsonGenerator g = JSON.createGenerator(buffer, JsonEncoding.UTF8)) {
            g.writeStartObject();
            g.writeStringField("call_id", r.callId());
            g.writeStringField("start", text(r.start()));
            g.writeStringField("answer", text(r.answer()));
            g.writeStringField("end", text(r.end()));
            g.writeStringField("caller", r.caller());
            g.writeStringField("callee", r.callee());
            g.writeStringField("auth_user", r.user());
            g.writeStringField("in_transport", r.inTransport());
            g.writeStringField("in_cipher", r.inCipher());
            g.writeStringField("out_transport", r.outTransport());
            g.writeStringField("out_cipher", r.outCipher());
            if (r.status() == 0) {
                g.writeNullField("status");
            } else {
                g.writeNumberField("status", r.status());
            }
            if (r.duration() == null) {
                g.writeNullField("duration_ms");
            } else {
                g.writeNumberField("duration_ms", r.duration().toMillis());
            }
            g.writeStringField("ended_by", r.endedBy().text());
            g.writeEndObject();
        }
        buffer.write('\n');
        return buffer.toByteArray();
    }

    private static String text(Instant t) {
        return t == null ? null : t.toString();
    }

    @Override
    public void close() throws IOException {
        out.close();
    }
}
