package org.sipcrypt.server.cdr;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import javax.sql.DataSource;

/**
 * Writes call records to the {@code cdrs} table (created by the location schema's version 6) through
 * the server's connection pool, one batch a transaction. Times are epoch milliseconds, as in the
 * rest of the schema. While the database is away a batch fails (after the pool's connect timeout,
 * {@code db.connectTimeout}); its records are counted as failed and the next batch tries again, so
 * writing resumes by itself when the database is back.
 * Threading: the CDR writer thread only; blocks on JDBC.
 */
public final class JdbcCdrSink implements CdrSink {

    static final String INSERT = "INSERT INTO cdrs (call_id, start_ms, answer_ms, end_ms, caller, callee, auth_user,"
            + " in_transport, in_cipher, out_transport, out_cipher, status, duration_ms, ended_by)"
            + " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)";

    private final DataSource dataSource;

    public JdbcCdrSink(DataSource dataSource) {
        this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
    }

    @Override
    public void write(List<CallRecord> batch) throws SQLException {
        try (Connection c = dataSource.getConnection()) {
            c.setAutoCommit(false);
            try (PreparedStatement ps = c.prepareStatement(INSERT)) {
                for (CallRecord r : batch) {
                    ps.setString(1, clip(r.callId(), 1024));
                    ps.setLong(2, r.start().toEpochMilli());
                    millis(ps, 3, r.answer());
                    millis(ps, 4, r.end());
                    ps.setString(5, clip(r.caller(), 1024));
                    ps.setString(6, clip(r.callee(), 1024));
                    ps.setString(7, clip(r.user(), 128));
                    ps.setString(8, r.inTransport());
                    ps.setString(9, clip(r.inCipher(), 128));
                    ps.setString(10, r.outTransport());
                    ps.setString(11, clip(r.outCipher(), 128));
                    if (r.status() == 0) {
                        ps.setNull(12, Types.INTEGER);
                    } else {
                        ps.setInt(12, r.status());
                    }
                    if (r.duration() == null) {
                        ps.setNull(13, Types.BIGINT);
                    } else {
                        ps.setLong(13, r.duration().toMillis());
                    }
                    ps.setString(14, r.endedBy().text());
                    ps.addBatch();
                }
                ps.executeBatch();
                c.commit();
            } catch (SQLException e) {
                c.rollback();
                throw e;
            }
        }
    }

    private static void millis(PreparedStatement ps, int index, Instant t) throws SQLException {
        if (t == null) {
            ps.setNull(index, Types.BIGINT);
        } else {
            ps.setLong(index, t.toEpochMilli());
        }
    }

    /** The text cut to the column's width (a URI longer than the column would fail the whole batch). */
    private static String clip(String s, int max) {
        return s == null || s.length() <= max ? s : s.substring(0, max);
    }

    @Override
    public void close() {
        // the pool belongs to the server's Database, which closes it
    }
}
