/**
 * The location service (RFC 3261 §10.2): bindings of addresses-of-record to contacts, kept in a SQL
 * database (H2 or PostgreSQL) behind a HikariCP pool, with the schema migrated at start-up.
 * Blocking JDBC work runs only on the {@code sipcrypt-db} executor and answers with futures.
 * A {@link org.sipcrypt.server.location.DatabaseBreaker} per database turns an outage into
 * immediate failures (answered 503 above) until a probe finds the database back.
 * This package depends on JDBC, HikariCP, SLF4J and the server's {@code transport.RateLimitedLog}
 * only: never on Netty or JAIN-SIP.
 */
package org.sipcrypt.server.location;
