package org.sipcrypt.server.location;

import java.sql.SQLTransientConnectionException;

/**
 * An operation refused without touching the database because the {@link DatabaseBreaker} knows it
 * is down; the SIP layer answers 503 with Retry-After. Thrown at request rate during an outage, so
 * it carries no stack trace. SQL state 08001 (the client cannot establish a connection).
 * Threading: immutable.
 */
public final class DatabaseUnavailableException extends SQLTransientConnectionException {

    private static final long serialVersionUID = 1L;

    public DatabaseUnavailableException(String message) {
        super(message, "08001");
    }

    @Override
    public synchronized Throwable fillInStackTrace() {
        return this;
    }
}
