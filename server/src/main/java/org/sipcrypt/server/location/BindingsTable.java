package org.sipcrypt.server.location;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLTransactionRollbackException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The SQL of the location service: the statements on {@code aors} and {@code bindings} (see
 * {@link LocationSchema}), how their parameters are bound and how a row is read back. Decides
 * nothing; {@link JdbcLocationService} runs these in its transactions and applies the rules.
 * Threading: stateless; runs on the caller's connection (a {@code sipcrypt-db} thread) and blocks.
 */
final class BindingsTable {

    /** A bindings row as stored; {@code updatedAt} orders bindings of equal q. */
    record Row(String contactKey, String contact, long expiresAt, String callId, long cseq,
               float q, String received, long updatedAt, String flow, boolean nat, String instance, int regId,
               String path) {
    }

    private static final String UNIQUE_VIOLATION = "23505";

    private static final String BINDING_COLUMNS =
            "contact_key, contact, expires_at, call_id, cseq, q, received, updated_at, flow, nat, instance, reg_id, path";

    private static final String UPDATE_AOR =
            "UPDATE aors SET last_registered = GREATEST(last_registered, ?) WHERE aor = ?";
    private static final String INSERT_AOR =
            "INSERT INTO aors (aor, first_registered, last_registered) VALUES (?, ?, ?)";
    private static final String LOCK_BINDINGS =
            "SELECT " + BINDING_COLUMNS + " FROM bindings WHERE aor = ? FOR UPDATE";
    private static final String DELETE_BINDING =
            "DELETE FROM bindings WHERE aor = ? AND contact_key = ?";
    private static final String UPDATE_BINDING =
            "UPDATE bindings SET contact = ?, expires_at = ?, call_id = ?, cseq = ?, q = ?, received = ?,"
                    + " updated_at = ?, flow = ?, nat = ?, instance = ?, reg_id = ?, path = ? WHERE aor = ? AND contact_key = ?";
    private static final String INSERT_BINDING =
            "INSERT INTO bindings (aor, " + BINDING_COLUMNS + ") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)";
    private static final String LOOKUP =
            "SELECT b.contact_key, b.contact, b.expires_at, b.call_id, b.cseq, b.q, b.received, b.updated_at,"
                    + " b.flow, b.nat, b.instance, b.reg_id, b.path"
                    + " FROM aors a LEFT JOIN bindings b ON b.aor = a.aor AND b.expires_at > ?"
                    + " WHERE a.aor = ?"
                    + " ORDER BY b.q DESC, b.updated_at DESC, b.contact_key";
    private static final String COUNT = "SELECT COUNT(*) FROM bindings";
    private static final String PURGE =
            "DELETE FROM bindings WHERE expires_at <= ?";

    private BindingsTable() {
    }

    /**
     * Notes a registration of {@code aor} at {@code now}, inserting its row the first time. Writing
     * the AOR row first locks it, so REGISTERs of one AOR queue up here, in the same order
     * everywhere; the binding rows are locked after it.
     *
     * @throws SQLTransactionRollbackException when another transaction inserted the row first
     *                                         (worth a retry: the update will then match)
     */
    static void touchAor(Connection c, String aor, long now) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(UPDATE_AOR)) {
            ps.setLong(1, now);
            ps.setString(2, aor);
            if (ps.executeUpdate() > 0) {
                return;
            }
        }
        try (PreparedStatement ps = c.prepareStatement(INSERT_AOR)) {
            ps.setString(1, aor);
            ps.setLong(2, now);
            ps.setLong(3, now);
            ps.executeUpdate();
        } catch (SQLException e) {
            if (UNIQUE_VIOLATION.equals(e.getSQLState())) {
                // Another transaction registered this AOR for the first time just now. PostgreSQL
                // has aborted our transaction, so the whole call is retried; the UPDATE will match.
                throw new SQLTransactionRollbackException(
                        "first registration of " + aor + " raced another", "40001", e);
            }
            throw e;
        }
    }

    /**
     * Locks the bindings of {@code aor} for this transaction and sorts them: those live at
     * {@code now} into {@code live} by contact key, the keys of lapsed ones into {@code lapsed}.
     */
    static void lockBindings(Connection c, String aor, long now, Map<String, Row> live, List<String> lapsed)
            throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(LOCK_BINDINGS)) {
            ps.setString(1, aor);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    Row row = readRow(rs);
                    if (row.expiresAt() > now) {
                        live.put(row.contactKey(), row);
                    } else {
                        lapsed.add(row.contactKey());
                    }
                }
            }
        }
    }

    /** The bindings stored in all. */
    static long count(Connection c) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(COUNT);
             ResultSet rs = ps.executeQuery()) {
            rs.next();
            return rs.getLong(1);
        }
    }

    static void delete(Connection c, String aor, List<String> keys) throws SQLException {
        batch(c, DELETE_BINDING, keys, (ps, key) -> {
            ps.setString(1, aor);
            ps.setString(2, key);
        });
    }

    static void update(Connection c, String aor, List<Row> rows) throws SQLException {
        batch(c, UPDATE_BINDING, rows, (ps, r) -> {
            int next = bindValues(ps, 1, r);
            ps.setString(next, aor);
            ps.setString(next + 1, r.contactKey());
        });
    }

    static void insert(Connection c, String aor, List<Row> rows) throws SQLException {
        batch(c, INSERT_BINDING, rows, (ps, r) -> {
            ps.setString(1, aor);
            ps.setString(2, r.contactKey());
            bindValues(ps, 3, r);
        });
    }

    /**
     * Sets a binding's values (contact, expires_at, call_id, cseq, q, received, updated_at, flow, nat,
     * instance, reg_id, path: the order both
     * UPDATE_BINDING and INSERT_BINDING list them in) from parameter {@code first} on.
     *
     * @return the index of the parameter after them
     */
    private static int bindValues(PreparedStatement ps, int first, Row r) throws SQLException {
        ps.setString(first, r.contact());
        ps.setLong(first + 1, r.expiresAt());
        ps.setString(first + 2, r.callId());
        ps.setLong(first + 3, r.cseq());
        ps.setFloat(first + 4, r.q());
        ps.setString(first + 5, r.received());
        ps.setLong(first + 6, r.updatedAt());
        ps.setString(first + 7, r.flow());
        ps.setBoolean(first + 8, r.nat());
        ps.setString(first + 9, r.instance());
        ps.setInt(first + 10, r.regId());
        ps.setString(first + 11, r.path());
        return first + 12;
    }

    /** Sets the parameters of one execution of a batched statement. */
    @FunctionalInterface
    private interface Binder<T> {
        void bind(PreparedStatement ps, T item) throws SQLException;
    }

    /** Runs {@code sql} once per item, as one batch; nothing at all when there are none. */
    private static <T> void batch(Connection c, String sql, List<T> items, Binder<T> binder) throws SQLException {
        if (items.isEmpty()) {
            return;
        }
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            for (T item : items) {
                binder.bind(ps, item);
                ps.addBatch();
            }
            ps.executeBatch();
        }
    }

    /**
     * The bindings of {@code aor} live at {@code now}, or null when the AOR never registered (the
     * proxy answers 404 rather than 480 then).
     */
    static List<Row> lookup(Connection c, String aor, long now) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(LOOKUP)) {
            ps.setLong(1, now);
            ps.setString(2, aor);
            boolean known = false;
            List<Row> rows = new ArrayList<>();
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    known = true;
                    if (rs.getString(1) != null) {
                        rows.add(readRow(rs));
                    }
                }
            }
            return known ? rows : null;
        }
    }

    /** Deletes the bindings lapsed at {@code now}; returns how many. */
    static int purge(Connection c, long now) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(PURGE)) {
            ps.setLong(1, now);
            return ps.executeUpdate();
        }
    }

    private static Row readRow(ResultSet rs) throws SQLException {
        return new Row(rs.getString(1), rs.getString(2), rs.getLong(3), rs.getString(4),
                rs.getLong(5), rs.getFloat(6), rs.getString(7), rs.getLong(8), rs.getString(9), rs.getBoolean(10),
                rs.getString(11), rs.getInt(12), rs.getString(13));
    }
}
