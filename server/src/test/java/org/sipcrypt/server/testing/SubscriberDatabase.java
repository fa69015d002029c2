package org.sipcrypt.server.testing;

import java.nio.file.Path;
import java.sql.SQLException;
import java.util.List;
import org.sipcrypt.server.location.Database;
import org.sipcrypt.server.location.Subscriber;
import org.sipcrypt.server.location.SubscriberStore;

/**
 * An embedded H2 database in a test's directory with a subscriber store already holding the
 * subscribers a test needs. Closing it closes the database.
 * Threading: one test thread.
 */
public record SubscriberDatabase(Database db, SubscriberStore store) implements AutoCloseable {

    /** The JDBC URL of the database in {@code dir}, for a second pool on the same data. */
    public static String url(Path dir) {
        return "jdbc:h2:file:" + dir.resolve("db");
    }

    /** Opens the database in {@code dir} with a pool of {@code poolSize} and stores {@code subscribers}. */
    public static SubscriberDatabase open(Path dir, int poolSize, List<Subscriber> subscribers) throws SQLException {
        Database db = Database.open(url(dir), "sa", "", poolSize);
        try {
            SubscriberStore store = new SubscriberStore(db.dataSource());
            store.putAll(subscribers);
            return new SubscriberDatabase(db, store);
        } catch (SQLException | RuntimeException e) {
            db.close();
            throw e;
        }
    }

    @Override
    public void close() {
        db.close();
    }
}
