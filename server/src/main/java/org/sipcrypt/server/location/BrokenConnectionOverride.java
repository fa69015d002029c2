package org.sipcrypt.server.location;

import com.zaxxer.hikari.SQLExceptionOverride;
import java.sql.SQLException;
import java.sql.SQLNonTransientConnectionException;

/**
 * Tells HikariCP to drop a pooled connection whose database has gone away, whatever SQL state the
 * driver reports it with (H2 says 90121 "database is already closed", which HikariCP does not
 * recognise as a broken connection and would hand out again forever). Dropped connections are
 * replaced with new ones, so the pool recovers by itself once the database is back.
 * Threading: stateless; called on any thread using a connection.
 */
public final class BrokenConnectionOverride implements SQLExceptionOverride {

    /** Instantiated by HikariCP by class name. */
    public BrokenConnectionOverride() {
    }

    @java.lang.Override
    public SQLExceptionOverride.Override adjudicate(SQLException e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof SQLNonTransientConnectionException) {
                return SQLExceptionOverride.Override.MUST_EVICT;
            }
        }
        return SQLExceptionOverride.Override.CONTINUE_EVICT;
    }
}
