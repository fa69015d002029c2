/**
 * The sipcrypt server: {@link org.sipcrypt.server.ServerMain} (command line) and
 * {@link org.sipcrypt.server.SipcryptServer} (start and graceful stop).
 *
 * <p>Thread pools of the server process: daemon threads named as below, queues bounded as below,
 * refusing with {@link java.util.concurrent.RejectedExecutionException} when full. Netty's thread
 * factory makes the event loops ({@code sipcrypt-io}, {@code sipcrypt-http}) and the SIP timer wheel
 * ({@code sipcrypt-sip-timer}), for its fast thread-locals; the location service makes its
 * {@code sipcrypt-db} pool; {@link org.sipcrypt.server.concurrent.NamedThreads} makes the others.
 * <table>
 * <caption>threads</caption>
 * <tr><th>name</th><th>size</th><th>queue bound</th><th>runs</th><th>never runs</th></tr>
 * <tr><td>{@code sipcrypt-io-N}</td><td>{@code io.threads} (0 = 2 × cores)</td><td>Netty's task queue</td>
 *     <td>socket I/O, TLS handshakes and record protection (jsse engine), TCP framing, keep-alive pongs,
 *     the Call-ID scan that picks a lane</td>
 *     <td>parsing, JAIN-SIP, routing, database, anything that waits</td></tr>
 * <tr><td>{@code sipcrypt-sip-N}</td><td>{@code sip.workers} lanes of one thread</td>
 *     <td>{@code sip.queueCapacity} per lane and {@code overload.maxQueuedBytes} bytes for all lanes;
 *     beyond either a request gets 503 and anything else is dropped and counted
 *     ({@code sip.messages.dropped{reason=overload}} / {@code sip.datagrams.dropped}); new out-of-dialog
 *     requests are refused with 503 on the event loop before that, from {@code overload.queueThreshold}
 *     messages, three quarters of the bytes, {@code overload.maxQueueDelay} of waiting, or a standing
 *     queue ({@code overload.queueTarget} of waiting for {@code overload.queueInterval})
 *     ({@code OverloadGuard})</td>
 *     <td>parsing, the JAIN-SIP transaction layer, registrar/proxy/redirect logic, continuations of
 *     database lookups; the messages of one Call-ID always on the same lane, in order</td>
 *     <td>JDBC calls; waiting for anything, an outgoing TCP connect or TLS handshake included (what
 *     is sent waits on the connection)</td></tr>
 * <tr><td>{@code sipcrypt-db-N}</td><td>{@code db.poolSize}</td><td>10,000; beyond it, or while the
 *     database breaker is open, the lookup fails at once and the request gets 503</td>
 *     <td>every JDBC statement (HikariCP pool of the same size)</td>
 *     <td>SIP sending</td></tr>
 * <tr><td>{@code sipcrypt-db-probe}</td><td>1, its thread started when the database breaker first opens</td>
 *     <td>one task (the next probe) while the breaker is open, none otherwise</td>
 *     <td>the probe of a database that went away: one connection outside the pool, checked, closed
 *     (blocks up to about {@code db.connectTimeout})</td>
 *     <td>SIP work, pooled connections</td></tr>
 * <tr><td>{@code sipcrypt-auth-N}</td><td>{@code db.poolSize} (only with {@code auth} on)</td>
 *     <td>{@code auth.queueCapacity} lookups; beyond it the request gets 503</td>
 *     <td>batched credential queries, then the digest comparison (a few microseconds) for each request
 *     answered; the request then goes back to its lane</td>
 *     <td>SIP sending</td></tr>
 * <tr><td>{@code sipcrypt-router-N}</td><td>{@code db.poolSize} (only with {@code routing.router} set)</td>
 *     <td>1,000 requests; beyond it the request gets 503 ({@code routing.decisions{decision=overloaded}})</td>
 *     <td>the operator's {@code CallRouter.route} (may block, e.g. a JDBC query through the server's pool);
 *     the decision goes back to the call's lane</td>
 *     <td>SIP sending</td></tr>
 * <tr><td>{@code sipcrypt-probe}</td><td>1 (only in proxy mode with {@code destinations.probeInterval}
 *     above 0, with or without sets: a routes reload may bring some)</td>
 *     <td>one periodic task</td>
 *     <td>sending an OPTIONS probe to each destination of the destination sets through the stack (the
 *     answers come back on SIP lanes); never waits for an answer</td>
 *     <td>SIP lanes' work, database</td></tr>
 * <tr><td>{@code sipcrypt-tls-N}</td><td>{@code tls.handshakeThreads} (0, the default, means none: handshakes
 *     on the event loops); bc engine only, one pool per TLS stage</td>
 *     <td>{@code tls.handshakeQueue} handshake records; beyond it that connection's handshake fails
 *     ({@code tls.handshakes.failed{reason=overload}}) and it is closed</td>
 *     <td>Bouncy Castle handshake records (RSA, ECDHE) of connections whose reads are paused meanwhile</td>
 *     <td>records after the handshake, SIP, database</td></tr>
 * <tr><td>{@code sipcrypt-dns-N}</td><td>1 event loop (proxy mode)</td><td>Netty's task queue</td>
 *     <td>RFC 3263 lookups of next hops named by a host name (NAPTR, SRV, A/AAAA queries, the answer cache);
 *     the request then goes back to its call's lane</td>
 *     <td>SIP work, anything that waits</td></tr>
 * <tr><td>{@code sipcrypt-ocsp-N}</td><td>2, started as fetches come, ended after 30 s idle (only with
 *     {@code tls.revocation ocsp|both} or {@code tls.ocspStapling}); one pool per TLS stage</td>
 *     <td>4,096 tasks of the JDK's HttpClient for at most 64 OCSP fetches at once; beyond 64 a fetch is not
 *     started and the certificate's status is unknown ({@code tls.ocsp.fetches{result=failed}})</td>
 *     <td>OCSP requests and responses (HttpClient, which adds its own selector thread), the response's
 *     checks (a signature verification), the cache's upkeep</td>
 *     <td>handshakes; nothing waits on a fetch, each ends by {@code tls.ocspTimeout}</td></tr>
 * <tr><td>{@code sipcrypt-ocsp-staple}</td><td>1 (only with {@code tls.ocspStapling})</td>
 *     <td>one periodic task</td>
 *     <td>every 5 s, whether the stapled response is due for a fetch (started on {@code sipcrypt-ocsp})</td>
 *     <td>anything that waits</td></tr>
 * <tr><td>{@code sipcrypt-cdr}</td><td>1 (only with {@code cdr.sink} set)</td>
 *     <td>{@code cdr.queueSize} finished call records; beyond it a record is dropped and counted
 *     ({@code cdr.records{result=dropped}})</td>
 *     <td>appending call records to the JSON-lines file, or inserting them in batches through the database
 *     pool (blocks up to {@code db.connectTimeout} while the database is away)</td>
 *     <td>SIP work</td></tr>
 * <tr><td>{@code sipcrypt-sip-timer}</td><td>1 (JAIN-SIP's timers on a hashed wheel, {@code WheelSipTimer})</td>
 *     <td>unbounded (one entry per pending transaction timer)</td>
 *     <td>RFC 3261 §17 timers, retransmissions, timeouts reported to the proxy</td><td>database</td></tr>
 * <tr><td>{@code sipcrypt-housekeeping}</td><td>1</td><td>unbounded (seven periodic tasks, one
 *     Timer C per ringing INVITE branch and one {@code routing.timeout} per request a router is deciding,
 *     each removed when cancelled)</td>
 *     <td>the periodic stats line, purging lapsed bindings (hands the work to the db pool), Timer C
 *     firing (hands the branch to its call's lane), {@code routing.timeout} firing (completes a future), sampling the heap after GC each second for the
 *     overload guard (which then frees the kept answers while the heap is above its budget), sweeping
 *     expired kept answers each second (the table's write lock a thousand entries at a time), the age
 *     bound on server transactions every 5 s (ends those past it, sending nothing), sweeping the
 *     per-source limits' table each second (sources with nothing left to remember; ends of bans),
 *     TLS certificate reloads (HTTP, SIGHUP) and the {@code tls.watchInterval} check of their files
 *     (reads PEM files, a few milliseconds), routes reloads ({@code POST /admin/routes/reload}: reads the
 *     configuration file and resolves the next hops' names), the management API's call listings
 *     (a copy of the established calls filtered)</td>
 *     <td>SIP traffic</td></tr>
 * <tr><td>{@code sipcrypt-http}</td><td>1 (only with {@code http} set)</td><td>Netty's task queue;
 *     {@code http.maxConnections} connections</td>
 *     <td>the {@code /metrics} and {@code /health} HTTP listener: parsing requests, rendering the Prometheus
 *     text</td><td>SIP, database</td></tr>
 * <tr><td>{@code sipcrypt-health}</td><td>1</td><td>1 check queued; requests meanwhile share the running one</td>
 *     <td>{@code /health}'s database check (a pooled connection and {@code isValid})</td>
 *     <td>SIP, HTTP I/O</td></tr>
 * <tr><td>{@code sipcrypt-stop}</td><td>1, started by {@code POST /admin/stop} only</td><td>none</td>
 *     <td>the server's close, as SIGTERM's hook runs it (the drain sleeps while it waits for calls)</td>
 *     <td>SIP, HTTP</td></tr>
 * </table>
 */
package org.sipcrypt.server;
