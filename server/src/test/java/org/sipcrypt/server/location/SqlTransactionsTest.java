package org.sipcrypt.server.location;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** A failed transaction is rolled back, and its own failure stays the one reported. */
@Timeout(30)
class SqlTransactionsTest {

    @Test
    void rollsBackWhatTheTransactionWrote() throws SQLException {
        try (Connection c = DriverManager.getConnection("jdbc:h2:mem:rollback");
             Statement s = c.createStatement()) {
            s.execute("CREATE TABLE t (n INT)");
            c.setAutoCommit(false);
            s.execute("INSERT INTO t VALUES (1)");
            SQLException failure = new SQLException("the transaction failed");
            SqlTransactions.rollbackAfter(c, failure);
            try (ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM t")) {
                rs.next();
                assertEquals(0, rs.getInt(1));
            }
            assertEquals(0, failure.getSuppressed().length);
        }
    }

    @Test
    void aFailingRollbackIsKeptBesideTheCauseNotInsteadOfIt() throws SQLException {
        Connection c = DriverManager.getConnection("jdbc:h2:mem:");
        c.close();
        RuntimeException failure = new IllegalStateException("the transaction failed");
        SqlTransactions.rollbackAfter(c, failure);
        assertEquals(1, failure.getSuppressed().length);
        assertInstanceOf(SQLException.class, failure.getSuppressed()[0]);
    }
}
