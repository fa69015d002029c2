package org.sipcrypt.server.location;

import java.sql.SQLException;

/**
 * The database could not be reached when it was opened (refused, broken or timed-out connection).
 * Its message is one line for the operator: the URL with any password masked, the driver's reason
 * and what to check; it never contains the password.
 * Threading: immutable.
 */
public final class DatabaseUnreachableException extends SQLException {

    private static final long serialVersionUID = 1L;

    public DatabaseUnreachableException(String message, String sqlState, Throwable cause) {
        super(message, sqlState, cause);
    }
}
