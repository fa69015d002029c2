package org.sipcrypt.server.location;

import java.sql.Connection;
import java.sql.SQLException;

/**
 * What every JDBC transaction of ours does when it fails: roll back, and keep the failure that
 * caused it as the one reported (a rollback failing too is added to it as suppressed, never
 * instead of it). The lab's result store uses it as well.
 * Threading: immutable (static methods only; safe from any thread).
 */
public final class SqlTransactions {

    private SqlTransactions() {
    }

    /** Rolls back {@code c} after {@code failure}; a failure of the rollback is added to {@code failure}. */
    public static void rollbackAfter(Connection c, Exception failure) {
        try {
            c.rollback();
        } catch (SQLException rollbackFailure) {
            failure.addSuppressed(rollbackFailure);
        }
    }
}
