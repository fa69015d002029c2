package org.sipcrypt.server.location;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.BiConsumer;
import javax.sql.DataSource;

/**
 * The table of digest subscribers. Every statement is prepared, so a user name that looks like SQL
 * is just a name. Lookups take many names at once ({@code ... AND username IN (?, ?, ...)}) for the
 * batched credential lookups of the authenticator.
 * Changes made through any store in this process are announced to the listeners added with
 * {@link #onChange}, so a credential cache in the same process can drop stale entries at once.
 * Threading: thread-safe; every method blocks on JDBC, so call it from a database thread or a
 * command-line tool, never from a SIP lane or an event loop.
 */
public final class SubscriberStore {

    /** Longest user name and realm the table holds; longer names cannot exist. */
    public static final int MAX_NAME_LENGTH = 128;

    /** Subscribers written per transaction by {@link #putAll}. */
    private static final int WRITE_CHUNK = 1_000;

    private static final List<BiConsumer<String, String>> LISTENERS = new CopyOnWriteArrayList<>();

    private final DataSource dataSource;

    public SubscriberStore(DataSource dataSource) {
        this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
    }

    /**
     * Registers a listener told {@code (realm, username)} after a subscriber changes or goes, by
     * any store of this process. Returns a handle that removes it.
     */
    public static AutoCloseable onChange(BiConsumer<String, String> listener) {
        Objects.requireNonNull(listener, "listener");
        LISTENERS.add(listener);
        return () -> LISTENERS.remove(listener);
    }

    /**
     * The subscribers of {@code realm} among {@code usernames}, by user name; names not found are
     * absent. Names longer than {@link #MAX_NAME_LENGTH} cannot match and are not sent.
     */
    public Map<String, Subscriber> find(String realm, Collection<String> usernames) throws SQLException {
        Objects.requireNonNull(realm, "realm");
        Set<String> names = new LinkedHashSet<>();
        for (String u : usernames) {
            if (u != null && !u.isEmpty() && u.length() <= MAX_NAME_LENGTH) {
                names.add(u);
            }
        }
        Map<String, Subscriber> found = new HashMap<>();
        if (names.isEmpty()) {
            return found;
        }
        try (Connection c = dataSource.getConnection();
             PreparedStatement ps = c.prepareStatement(findSql(names.size()))) {
            int i = 1;
            for (String name : names) {
                ps.setString(i++, realm);
                ps.setString(i++, name);
            }
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    Subscriber s = new Subscriber(rs.getString(1), realm, rs.getString(2), rs.getString(3),
                            rs.getBoolean(4));
                    found.put(s.username(), s);
                }
            }
        }
        return found;
    }

    /**
     * The query for {@code count} names: one {@code (realm, username)} pair per name, so that the
     * database looks whole primary keys up. With {@code realm = ? AND username IN (...)} H2 read every
     * subscriber of the realm for each batch (it uses an IN list for an index lookup only on the
     * index's first column). PostgreSQL reads both forms from the primary key.
     */
    static String findSql(int count) {
        StringBuilder sql = new StringBuilder(
                "SELECT username, ha1_md5, ha1_sha256, enabled FROM subscribers WHERE (realm, username) IN (");
        for (int i = 0; i < count; i++) {
            sql.append(i == 0 ? "(?, ?)" : ", (?, ?)");
        }
        return sql.append(')').toString();
    }

    /** Adds or replaces one subscriber; true when it is new. */
    public boolean put(Subscriber subscriber) throws SQLException {
        return putAll(List.of(subscriber)) == 1;
    }

    /**
     * Adds or replaces subscribers, {@value #WRITE_CHUNK} per transaction; returns how many were new.
     */
    public int putAll(List<Subscriber> subscribers) throws SQLException {
        int added = 0;
        for (int from = 0; from < subscribers.size(); from += WRITE_CHUNK) {
            List<Subscriber> chunk = subscribers.subList(from, Math.min(subscribers.size(), from + WRITE_CHUNK));
            added += writeChunk(chunk);
            for (Subscriber s : chunk) {
                announce(s.realm(), s.username());
            }
        }
        return added;
    }

    private int writeChunk(List<Subscriber> chunk) throws SQLException {
        try (Connection c = dataSource.getConnection()) {
            c.setAutoCommit(false);
            try (PreparedStatement delete = c.prepareStatement(
                    "DELETE FROM subscribers WHERE realm = ? AND username = ?");
                 PreparedStatement insert = c.prepareStatement(
                         "INSERT INTO subscribers (realm, username, ha1_md5, ha1_sha256, enabled, updated_at) "
                                 + "VALUES (?, ?, ?, ?, ?, ?)")) {
                long now = System.currentTimeMillis();
                for (Subscriber s : chunk) {
                    delete.setString(1, s.realm());
                    delete.setString(2, s.username());
                    delete.addBatch();
                    insert.setString(1, s.realm());
                    insert.setString(2, s.username());
                    insert.setString(3, s.ha1Md5());
                    insert.setString(4, s.ha1Sha256());
                    insert.setBoolean(5, s.enabled());
                    insert.setLong(6, now);
                    insert.addBatch();
                }
                int replaced = 0;
                for (int n : delete.executeBatch()) {
                    replaced += n > 0 ? 1 : 0;
                }
                insert.executeBatch();
                c.commit();
                return chunk.size() - replaced;
            } catch (SQLException | RuntimeException e) {
                SqlTransactions.rollbackAfter(c, e);
                throw e;
            } finally {
                c.setAutoCommit(true);
            }
        }
    }

    /** Removes a subscriber; true when there was one. */
    public boolean remove(String realm, String username) throws SQLException {
        try (Connection c = dataSource.getConnection();
             PreparedStatement ps = c.prepareStatement("DELETE FROM subscribers WHERE realm = ? AND username = ?")) {
            ps.setString(1, realm);
            ps.setString(2, username);
            boolean removed = ps.executeUpdate() > 0;
            announce(realm, username);
            return removed;
        }
    }

    /** Every subscriber of {@code realm}, by user name. */
    public List<Subscriber> list(String realm) throws SQLException {
        List<Subscriber> all = new ArrayList<>();
        try (Connection c = dataSource.getConnection();
             PreparedStatement ps = c.prepareStatement("SELECT username, ha1_md5, ha1_sha256, enabled FROM subscribers "
                     + "WHERE realm = ? ORDER BY username")) {
            ps.setString(1, realm);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    all.add(new Subscriber(rs.getString(1), realm, rs.getString(2), rs.getString(3), rs.getBoolean(4)));
                }
            }
        }
        return all;
    }

    private static void announce(String realm, String username) {
        for (BiConsumer<String, String> l : LISTENERS) {
            l.accept(realm, username);
        }
    }
}
