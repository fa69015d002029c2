package org.sipcrypt.server.cdr;

import java.util.List;

/**
 * Where finished call records are written: {@link JsonLinesSink} or {@link JdbcCdrSink}. A seam, for
 * the two sinks {@link CdrWriter} drains into.
 * Threading: called on the CDR writer thread only; may block.
 */
public interface CdrSink extends AutoCloseable {

    /** Writes a batch of records, oldest first; throws when none of them can be taken as written. */
    void write(List<CallRecord> batch) throws Exception;

    @Override
    void close() throws Exception;
}
