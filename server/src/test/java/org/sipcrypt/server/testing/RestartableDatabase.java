package org.sipcrypt.server.testing;

/**
 * A database server a test stops and starts again, on the same port with the same data, to see
 * what the server does while its database is gone: {@link TestH2Server}, {@link TestPostgres}.
 * Threading: one test thread.
 */
public interface RestartableDatabase extends AutoCloseable {

    /** The JDBC URL of the database the server uses. */
    String url();

    /** Stops the database server; the data is kept. */
    void stop() throws Exception;

    /** Starts it again after {@link #stop}, on the same port with the same data. */
    void startAgain() throws Exception;
}
