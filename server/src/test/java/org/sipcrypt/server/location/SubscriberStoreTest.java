package org.sipcrypt.server.location;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.sipcrypt.server.testing.SubscriberDatabase;

/** The credential query on the embedded database: right rows, and whole keys looked up in the index. */
@Timeout(30)
class SubscriberStoreTest {

    @TempDir
    Path dir;

    private SubscriberDatabase h2;

    @BeforeEach
    void open() throws Exception {
        List<Subscriber> users = new ArrayList<>();
        for (int i = 1; i <= 50; i++) {
            users.add(subscriber("user" + i, "a.example", true));
            users.add(subscriber("user" + i, "b.example", i % 2 == 0));
        }
        h2 = SubscriberDatabase.open(dir, 2, users);
    }

    @AfterEach
    void close() {
        h2.close();
    }

    private static Subscriber subscriber(String name, String realm, boolean enabled) {
        String md5 = String.format("%032x", (name + realm).hashCode() & 0xffffffffL);
        String sha = md5 + md5;
        return new Subscriber(name, realm, md5, sha, enabled);
    }

    @Test
    void findReturnsTheNamedSubscribersOfThatRealmOnly() throws Exception {
        Map<String, Subscriber> found = h2.store().find("b.example", List.of("user2", "user3", "user7", "nobody"));
        assertEquals(3, found.size(), found.toString());
        assertEquals(subscriber("user2", "b.example", true), found.get("user2"));
        assertEquals(subscriber("user3", "b.example", false), found.get("user3"));
        assertEquals("b.example", found.get("user7").realm());
        assertFalse(found.containsKey("nobody"));
        assertTrue(h2.store().find("c.example", List.of("user2")).isEmpty());
        assertEquals(subscriber("user2", "a.example", true),
                h2.store().find("a.example", List.of("user2")).get("user2"));
    }

    @Test
    void aBatchLooksWholePrimaryKeysUpInsteadOfReadingTheRealm() throws Exception {
        // H2 uses an IN list for an index lookup only on an index's first column; a query naming the
        // realm and an IN list of names read every subscriber of the realm for each batch.
        try (Connection c = h2.db().dataSource().getConnection();
             PreparedStatement ps = c.prepareStatement("EXPLAIN " + SubscriberStore.findSql(3))) {
            for (int i = 1; i <= 6; i += 2) {
                ps.setString(i, "a.example");
                ps.setString(i + 1, "user" + i);
            }
            try (ResultSet rs = ps.executeQuery()) {
                assertTrue(rs.next());
                String plan = rs.getString(1).replaceAll("\\s+", " ");
                assertTrue(plan.matches("(?s).*/\\* PUBLIC\\.PRIMARY_KEY_\\w*: IN\\(ROW.*"), plan);
            }
        }
    }
}
