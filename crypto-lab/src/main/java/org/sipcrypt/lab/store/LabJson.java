package org.sipcrypt.lab.store;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.ObjectWriter;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.SerializerProvider;
import com.fasterxml.jackson.databind.deser.std.StdScalarDeserializer;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.module.SimpleModule;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.ser.std.StdScalarSerializer;
import java.io.IOException;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Objects;

/**
 * The one JSON configuration of the lab: how studies and their parts are written to
 * {@code results.json} and to the database's JSON columns, so both read back the same way.
 * Records are written generically by their components (a component added to a record is written
 * without touching this class); {@link Instant}s are ISO-8601 strings ({@code 2026-11-22T10:00:00Z});
 * map entries are sorted by key so equal values give equal text. Properties a record does not have
 * fail the read rather than being dropped.
 * Threading: thread-safe (the reader and writer handed out are immutable).
 */
public final class LabJson {

    private static final ObjectMapper MAPPER = JsonMapper.builder()
            .addModule(new SimpleModule("sipcrypt-lab")
                    .addSerializer(Instant.class, new InstantSerializer())
                    .addDeserializer(Instant.class, new InstantDeserializer()))
            .enable(SerializationFeature.ORDER_MAP_ENTRIES_BY_KEYS)
            .build();

    private LabJson() {
    }

    /** A writer with the lab's configuration, compact; {@code withDefaultPrettyPrinter()} indents. */
    public static ObjectWriter writer() {
        return MAPPER.writer();
    }

    /** A reader of {@code type} with the lab's configuration. */
    public static ObjectReader reader(Class<?> type) {
        return MAPPER.readerFor(Objects.requireNonNull(type, "type"));
    }

    /**
     * The value as compact JSON.
     *
     * @throws IllegalStateException when the value cannot be written: a type the configuration does
     *                               not handle, a programming error
     */
    public static String write(Object value) {
        try {
            return MAPPER.writeValueAsString(value);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot write " + (value == null ? "null" : value.getClass().getName())
                    + " as JSON: " + e.getOriginalMessage(), e);
        }
    }

    /**
     * The value as a JSON object tree, to take parts out or put them in before it is written or read.
     *
     * @throws IllegalArgumentException when the value is not written as a JSON object
     */
    public static ObjectNode objectTree(Object value) {
        JsonNode tree = MAPPER.valueToTree(value);
        if (!(tree instanceof ObjectNode object)) {
            throw new IllegalArgumentException("value: " + (value == null ? "null" : value.getClass().getName())
                    + " is not written as a JSON object");
        }
        return object;
    }

    /** Reads a tree (from {@link #objectTree} or a reader of this class) as {@code type}. */
    public static <T> T read(JsonNode tree, Class<T> type) throws IOException {
        Objects.requireNonNull(tree, "tree");
        return MAPPER.readerFor(Objects.requireNonNull(type, "type")).readValue(tree);
    }

    /**
     * Reads JSON written by {@link #write} (or a writer of this class) back.
     *
     * @throws IOException when the text is not JSON of that type
     */
    public static <T> T read(String json, Class<T> type) throws IOException {
        Objects.requireNonNull(json, "json");
        return MAPPER.readValue(json, Objects.requireNonNull(type, "type"));
    }

    /** Instants as their ISO-8601 text, nanoseconds kept. */
    private static final class InstantSerializer extends StdScalarSerializer<Instant> {

        InstantSerializer() {
            super(Instant.class);
        }

        @Override
        public void serialize(Instant value, JsonGenerator gen, SerializerProvider provider) throws IOException {
            gen.writeString(value.toString());
        }
    }

    /** Instants from ISO-8601 text as {@link Instant#parse} takes it. */
    private static final class InstantDeserializer extends StdScalarDeserializer<Instant> {

        InstantDeserializer() {
            super(Instant.class);
        }

        @Override
        public Instant deserialize(JsonParser p, DeserializationContext ctxt) throws IOException {
            if (p.currentToken() != JsonToken.VALUE_STRING) {
                return (Instant) ctxt.handleUnexpectedToken(Instant.class, p);
            }
            String text = p.getText();
            try {
                return Instant.parse(text);
            } catch (DateTimeParseException e) {
                return (Instant) ctxt.handleWeirdStringValue(Instant.class, text,
                        "expected an ISO-8601 instant such as 2026-11-22T10:00:00Z");
            }
        }
    }
}
