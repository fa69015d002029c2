/**
 * The crypto lab's command line: {@code compare} and {@code run} (scenarios over ciphers, stored and
 * reported), {@code report} and {@code list} (stored studies), {@code agree} (two runs compared), and
 * {@code uac} and {@code uas}, the generator's two roles run alone. Commands parse and check
 * arguments and hand over to the runner, store, report and load-generator packages; they hold no
 * protocol logic.
 *
 * <p>Threads of a generator process (all daemon threads, named). The generator's names begin with
 * {@code lab-uac} and the UAS's with {@code lab-uas}, which is how the runner tells the CPU time of
 * the UAS from the generator's when both run in the lab's process:
 * <table>
 * <caption>generator threads</caption>
 * <tr><th>name</th><th>how many</th><th>queue</th><th>runs</th><th>never runs</th></tr>
 * <tr><td>{@code lab-uac-arrivals}</td><td>1, over UDP (or while a persistent connection failed at the
 *     start)</td><td>none</td><td>the open-loop schedule: parks until each call is due and starts it,
 *     or hands it to a worker when the persistent connection must be opened again; over TCP and TLS an
 *     event loop keeps the schedule instead</td><td>anything that blocks</td></tr>
 * <tr><td>{@code lab-uac-N}</td><td>16</td><td>10000; a full queue fails the call as
 *     {@code generator_overload}</td><td>starting operations while the persistent connection is
 *     missing or lost: waiting for it to open again</td>
 *     <td>response handling, waiting for a per-call connect or handshake</td></tr>
 * <tr><td>{@code lab-uac-timer}</td><td>1 (Netty's timer wheel, a tick of 10 ms)</td><td>unbounded (at
 *     most a few timers per call in flight)</td><td>Timers A, B, E, F, hold and call timeouts</td>
 *     <td>connects</td></tr>
 * <tr><td>{@code lab-uac-udp}, {@code lab-uas-udp-PORT}</td><td>1 per UDP socket</td><td>the kernel's
 *     receive buffer (4 MiB asked)</td><td>parsing datagrams and the call or UAS logic they trigger</td>
 *     <td>anything that blocks</td></tr>
 * <tr><td>{@code lab-uac-udp-delay}, {@code lab-uas-udp-PORT-delay}</td><td>1 per UDP socket, with
 *     {@code --one-way-delay} only</td><td>8 MiB of held datagrams; past it a datagram is dropped</td>
 *     <td>the lab delay stage: sending each held datagram, and the call or UAS logic of each received
 *     one, D after it was handed in</td><td>anything that blocks beyond a send</td></tr>
 * <tr><td>{@code lab-uac-io-N}, {@code lab-uas-io-N}</td><td>1 per CPU the process may use, for each
 *     role (Netty event loops, the generator's and the UAS's)</td><td>Netty's task queue; writes are
 *     queued per connection</td><td>every TCP and TLS connection of that role: connects, accepts (backlog
 *     4096), TLS handshakes and records on both engines, framing, the call or UAS logic of each
 *     message; the generator's open-loop schedule over TCP and TLS (on the persistent connection's
 *     loop, so each call's first request is written there); with {@code --one-way-delay}, the lab delay
 *     stage's held writes and reads, scheduled on the connection's loop. Epoll's loops where Netty's native
 *     transport loads, NIO's elsewhere</td><td>anything that blocks: waiting for a connect, a handshake or a lock held long; the
 *     other role's connections</td></tr>
 * <tr><td>{@code lab-uas-timer}</td><td>1</td><td>unbounded (two timers per UDP transaction)</td><td>Timers
 *     G and H, forgetting transactions, refreshing a registration over WebSocket (a queued write)</td><td>anything
 *     that blocks long</td></tr>
 * </table>
 */
package org.sipcrypt.lab;
