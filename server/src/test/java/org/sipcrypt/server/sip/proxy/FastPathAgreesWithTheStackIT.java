package org.sipcrypt.server.sip.proxy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import gov.nist.javax.sip.header.SIPHeader;
import gov.nist.javax.sip.header.Via;
import gov.nist.javax.sip.message.SIPMessage;
import gov.nist.javax.sip.parser.StringMsgParserFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.sipcrypt.server.auth.RelayFuzzer;
import org.sipcrypt.server.testing.Await;
import org.sipcrypt.server.testing.SipSink;
import org.sipcrypt.server.testing.SipSocket;
import org.sipcrypt.server.testing.TestServer;
import org.sipcrypt.server.transport.Transport;

/**
 * The fast path and the stack agree (the fast-path issue's invariant): the same in-dialog ACKs and
 * BYEs, in the forms the relays take from their bytes (a route set, none, no Max-Forwards, compact
 * names, two Via lines, a body), are sent through two real servers, one with {@code sip.fastPath}
 * on and one with it off, over UDP; what reaches the next hop from each, and the BYE's 200 that
 * comes back to the caller, are parsed by JAIN-SIP and compared header by header. They must be
 * the same message apart from the one field the two paths may write differently: the branch of the
 * proxy's own Via (stateless on the fast path, the stack's transaction branch otherwise). The
 * fast-path server's counters prove the fast path carried them. A seeded fuzz then sends mutants of
 * the same forms through both servers and holds them to the same rule, or to both declining alike
 * ({@link #mutatedInDialogRequestsLeaveBothPathsAlike}). Both servers, their next hops and
 * callers are started once for the class; each server runs one SIP lane.
 * Threading: JUnit's test thread.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class FastPathAgreesWithTheStackIT {

    private static final Duration WAIT = Duration.ofSeconds(20);
    /** The second marker's suffix: a next hop's requests are read up to it. */
    private static final String AGAIN = "-again";
    private static final long SEED = Long.getLong("sipcrypt.fuzz.fastpath.seed", 2026);
    private static final long START = Long.getLong("sipcrypt.fuzz.fastpath.start", 0);
    private static final long INPUTS = Long.getLong("sipcrypt.fuzz.fastpath.inputs", 500);
    /** The only hosts a mutant may name: the callers and servers, the next hops (127.0.0.2, 127.0.0.3). */
    private static final List<String> HOSTS = List.of("127.0.0.1", "127.0.0.2", "127.0.0.3");
    /** Messages remembered per side to recognise the stack's retransmissions of an earlier input's. */
    private static final int SEEN_LIMIT = 20_000;
    private static final Pattern GENERATED_TO_TAG = Pattern.compile("(?m)^(to: .*;tag=)[0-9a-fA-F]{8,}$");
    private static final Pattern INPUT_TOKEN = Pattern.compile("fz" + SEED + "-([0-9]+)(?![0-9])");

    private TestServer fast;
    private TestServer stack;
    private Side f;
    private Side s;
    private final List<AutoCloseable> open = new ArrayList<>();

    @BeforeAll
    void start(@TempDir Path dir) throws Exception {
        // one lane and one database thread each: what either server does runs in arrival order (see the fuzz's Javadoc)
        fast = keep(TestServer.start(dir.resolve("fast"), "sip.fastPath", "on", "sip.workers", "1", "db.poolSize", "1"));
        stack = keep(TestServer.start(dir.resolve("stack"), "sip.fastPath", "off", "sip.workers", "1", "db.poolSize", "1"));
        f = new Side(fast, keep(SipSink.start()), keep(SipSink.start("127.0.0.3")),
                keep(SipSocket.udp(fast.address(Transport.UDP))));
        s = new Side(stack, keep(SipSink.start()), keep(SipSink.start("127.0.0.3")),
                keep(SipSocket.udp(stack.address(Transport.UDP))));
    }

    private <T extends AutoCloseable> T keep(T resource) {
        open.add(0, resource);
        return resource;
    }

    @AfterAll
    void stop() throws Exception {
        for (AutoCloseable c : open) {
            c.close();
        }
    }

    @Test
    void inDialogRequestsAndTheirAnswersLeaveBothPathsAlike() throws Exception {
        int fastBefore = f.sink.requests().size();
        int stackBefore = s.sink.requests().size();
        double relayedBefore = counter(fast, "sip.requests.relayed_early");
        double answersBefore = counter(fast, "sip.responses.relayed_early");
        int n = 0;
        for (Form form : FORMS) {
            n++;
            String callId = "agree-" + n;
            f.caller.send(form.write(f, callId));
            s.caller.send(form.write(s, callId));
            int fastCount = fastBefore + n;
            int stackCount = stackBefore + n;
            Await.until(() -> f.sink.requests().size() == fastCount && s.sink.requests().size() == stackCount, WAIT,
                    () -> form.name + ": fast " + f.sink.requestLines() + ", stack " + s.sink.requestLines());
            assertEquals(normalised(s, s.sink.requests().get(stackCount - 1)),
                    normalised(f, f.sink.requests().get(fastCount - 1)), form.name + ": what the next hop received");
            if (form.method.equals("BYE")) {
                String fastOk = f.caller.awaitMessage("SIP/2.0 200", WAIT);
                String stackOk = s.caller.awaitMessage("SIP/2.0 200", WAIT);
                assertNotNull(fastOk, form.name + ": the 200 came back through the fast path");
                assertNotNull(stackOk, form.name + ": the 200 came back through the stack");
                assertEquals(normalised(s, stackOk), normalised(f, fastOk), form.name + ": the 200 the caller received");
            }
        }
        assertEquals(FORMS.size(), counter(fast, "sip.requests.relayed_early") - relayedBefore,
                "the fast path relayed every request");
        assertEquals(0.0, counter(stack, "sip.requests.relayed_early"), "the stack relayed every request");
        assertEquals(FORMS.stream().filter(x -> x.method.equals("BYE")).count(),
                counter(fast, "sip.responses.relayed_early") - answersBefore, "the fast path relayed every 200");
    }

    /**
     * An ACK or BYE whose Content-Length is not a number, or is not the length of the body that
     * came, is left to the stack (RFC 3261 §18.3, §20.14): the stack drops the ACK whose length it
     * cannot read, and reads a datagram's body only up to the Content-Length, so the fast path must
     * not relay the copy as it came (the fuzz's first find, seed 2026 input 80).
     */
    @Test
    void aContentLengthThatIsNotTheBodysIsLeftToTheStack() throws Exception {
        List<String[]> cases = List.of(new String[] {"ACK", "x", "v=0\r\n"}, new String[] {"ACK", "0", "v=0\r\n"},
                new String[] {"BYE", "9", "v=0\r\n"});
        int n = 0;
        for (String[] c : cases) {
            n++;
            String callId = "length-" + n;
            double relayedBefore = counter(fast, "sip.requests.relayed_early");
            String mutant = request(c[0], "sip:bob@" + f.sink.hostPort(), f, callId, "Max-Forwards: 70\r\n", c[2], false)
                    .replaceFirst("Content-Length: [0-9]+", "Content-Length: " + c[1]);
            Outcome fastOutcome = exchange(f, -1, mutant, "mark-" + callId, new Seen(), new Late());
            Outcome stackOutcome = exchange(s, -1, swap(mutant, f, s), "mark-" + callId, new Seen(), new Late());
            assertEquals(stackOutcome, fastOutcome, c[0] + " with Content-Length " + c[1] + " and a body of "
                    + c[2].length() + " bytes");
            assertEquals(relayedBefore, counter(fast, "sip.requests.relayed_early"),
                    c[0] + " with Content-Length " + c[1] + " was not relayed from its bytes");
        }
    }

    /**
     * The differential fuzz: input {@code i} is a {@link RelayFuzzer} mutant of form {@code i mod
     * FORMS.size()} written for the fast side, with the Call-ID, branch and every token the
     * mutations draw from unique to {@code i}, the tags {@code f1} and {@code t1} aside, and a Via
     * branch made of a tag given the input's token too (so no input is a retransmission of another
     * to either server's transactions or kept answers); one naming any host but the loopback {@link #HOSTS} is skipped and
     * counted. The same mutant, with the fast side's proxy, next hop and caller port swapped for
     * the stack side's, goes to the stack side. What reaches each next hop and each caller for it
     * must be alike after {@link #normalised} (raw text with the side's addresses named alike,
     * where JAIN-SIP cannot parse it); the order in which one side's messages for one input arrive
     * is not compared. The fields normalised are the proxy's own Via branch (stateless on the fast
     * path, the stack's transaction branch otherwise) and, in a response, a To tag a server made
     * up for its own answer (random, on either path).
     *
     * <p>Correlation without sleeping: each server runs one SIP lane and one database thread, so
     * it handles its datagrams one at a time in arrival order, whatever Call-ID a mutant carries
     * (none, or several), and its location lookups in the order it asked for them. After the
     * mutant the caller sends markers, each with a Call-ID of its own, and waits for each final
     * answer before the next: an OPTIONS for an unregistered user of the server, answered 404 after
     * a lookup on the database thread, so after any lookup the mutant caused and after the answer
     * that lookup led to; then an in-dialog OPTIONS to each next hop (127.0.0.2 and 127.0.0.3),
     * which the server relays and whose 200 it relays back, and then a second one to each. A next
     * hop reads and answers the mutant's forwards before it reads its marker, and the server sends
     * those answers on before the marker's 200; what the server sends a next hop on that hop's own
     * answer (the ACK for a 486) goes out before the first marker's 200 comes back, so before the
     * second marker, which the hop reads after it. So once the caller holds the last marker's 200,
     * everything the mutant caused on the lane and the database thread has reached the next hops
     * and the caller, however slow the machine; the only waits are for the markers' answers (20 s each at most). Every UDP
     * address a mutant may aim at has a listener, so no datagram is refused, which the stateless
     * fast path cannot report while the stack's transaction answers 500.
     *
     * <p>What the stack sends on a later event (a connection refused to a TCP next hop, reported by
     * the event loop) may come after the markers on one side and before them on the other. A
     * message naming an earlier input (its Call-ID or branch token) is filed under that input; an
     * input whose two outcomes differ when its markers come back is settled at the end of the run,
     * after the final markers, with everything filed under it since, and only a difference then is
     * a disagreement (a run stops early once 50 inputs are unsettled). What the stack's transactions
     * send by timer (a retransmission of a request nobody answered) is a byte-for-byte copy of
     * something already received on that side; such copies are left out on both sides (the last
     * {@value #SEEN_LIMIT} messages per side are remembered). A timer's answer after the run (Timer
     * F's 408, 32 s on) is not seen; the next hops answer every request but ACK, so none is due.
     *
     * <p>Both servers must count no {@code sip.datagrams.dropped{reason=stack_error}} and answer an
     * OPTIONS at the end. A disagreement prints the seed, the index, the properties that replay it
     * and both sides (each message marked with where it arrived), and fails the test. Outcomes are counted by what each side's next hop and
     * caller got (the start lines' methods and status codes).
     * {@code -Dsipcrypt.fuzz.fastpath.seed}, {@code .start} and {@code .inputs} set the run.
     */
    @Test
    @Timeout(value = 24, unit = TimeUnit.HOURS) // a long run's; every wait inside is at most WAIT
    void mutatedInDialogRequestsLeaveBothPathsAlike() throws Exception {
        double fastErrors = counter(fast, "sip.datagrams.dropped", "reason", "stack_error");
        double stackErrors = counter(stack, "sip.datagrams.dropped", "reason", "stack_error");
        double relayedBefore = counter(fast, "sip.requests.relayed_early");
        Map<String, Long> outcomes = new TreeMap<>();
        Seen fastSeen = new Seen();
        Seen stackSeen = new Seen();
        Late fastLate = new Late();
        Late stackLate = new Late();
        Map<Long, Unsettled> unsettled = new TreeMap<>();
        long started = System.nanoTime();
        for (long i = START; i < START + INPUTS; i++) {
            int formIndex = (int) (i % FORMS.size());
            String callId = "fz" + SEED + "-" + i;
            RelayFuzzer fuzzer = new RelayFuzzer(HOSTS, List.of(callId, callId + "-b", "f1", "t1"));
            String mutant = fuzzer.mutate(FORMS.get(formIndex).write(f, callId), SEED * 8 + formIndex, i,
                    List.of(f.proxy(), f.sink.hostPort(), f.far.hostPort()))
                    .replace("z9hG4bK-second", "z9hG4bK-second-" + callId)
                    // a branch of its own: one another input shares would be a retransmission to the stack
                    .replaceAll("branch=z9hG4bK-(f1|t1)(?![A-Za-z0-9-])", "branch=z9hG4bK-$1-" + callId);
            if (!fuzzer.safe(mutant)) {
                outcomes.merge("skipped_unsafe", 1L, Long::sum);
                continue;
            }
            String stackMutant = swap(mutant, f, s);
            Outcome fastOutcome = exchange(f, i, mutant, "mark" + SEED + "-" + i, fastSeen, fastLate);
            Outcome stackOutcome = exchange(s, i, stackMutant, "mark" + SEED + "-" + i, stackSeen, stackLate);
            if (!fastOutcome.equals(stackOutcome)) {
                // perhaps only in when an answer came (one the stack sends on a later event, such as a
                // refused connection): settled at the end, with what arrived late
                unsettled.put(i, new Unsettled(mutant, fastOutcome, stackOutcome));
                outcomes.merge("unsettled_at_markers", 1L, Long::sum);
                if (unsettled.size() > 50) {
                    break;
                }
            }
            outcomes.merge(fastOutcome.kind(), 1L, Long::sum);
        }
        // the end: an OPTIONS to each server, answered, and after it the markers, so nothing is on its way
        for (Side side : List.of(f, s)) {
            Outcome end = exchange(side, -1, "OPTIONS sip:" + side.proxy() + " SIP/2.0\r\nVia: SIP/2.0/UDP 127.0.0.1:"
                    + side.caller.localPort() + ";branch=z9hG4bK-after-" + SEED + ";rport\r\nMax-Forwards: 70\r\n"
                    + "From: <sip:probe@127.0.0.1>;tag=p\r\nTo: <sip:" + side.proxy() + ">\r\nCall-ID: after-" + SEED
                    + "\r\nCSeq: 1 OPTIONS\r\nContent-Length: 0\r\n\r\n", "mark" + SEED + "-end",
                    side == f ? fastSeen : stackSeen, side == f ? fastLate : stackLate);
            assertTrue(end.caller().stream().anyMatch(m -> m.startsWith("back: sip/2.0 200")),
                    side.server.hostPort(Transport.UDP) + " answers an OPTIONS after the fuzz: " + end);
        }
        List<String> disagreements = new ArrayList<>();
        unsettled.forEach((i, u) -> {
            List<String> fastAll = u.fast.all(fastLate.byInput.remove(i));
            List<String> stackAll = u.stack.all(stackLate.byInput.remove(i));
            if (!fastAll.equals(stackAll)) {
                disagreements.add("seed " + SEED + " input " + i + " (replay: -Dsipcrypt.fuzz.fastpath.seed=" + SEED
                        + " -Dsipcrypt.fuzz.fastpath.start=" + i + " -Dsipcrypt.fuzz.fastpath.inputs=1)\nmutant (fast side):\n"
                        + u.mutant + "\nfast side:\n" + String.join("\n", fastAll) + "\nstack side:\n"
                        + String.join("\n", stackAll) + "\n");
            }
        });
        fastLate.byInput.keySet().stream().filter(i -> !fastLate.byInput.get(i).equals(stackLate.byInput.get(i)))
                .forEach(i -> disagreements.add("seed " + SEED + " input " + i + ": late, fast side " + fastLate.byInput.get(i)
                        + ", stack side " + stackLate.byInput.get(i)));
        stackLate.byInput.keySet().stream().filter(i -> !fastLate.byInput.containsKey(i))
                .forEach(i -> disagreements.add("seed " + SEED + " input " + i + ": late, stack side only "
                        + stackLate.byInput.get(i)));
        if (!disagreements.isEmpty()) {
            disagreements.forEach(System.out::println);
            fail("the fast path and the stack disagree on " + disagreements.size() + " inputs (" + outcomes + "):\n"
                    + String.join("\n", disagreements));
        }
        System.out.printf("fast path fuzz: seed %d, inputs %d to %d in %.1f s, fast path relayed %.0f: %s%n", SEED,
                START, START + INPUTS - 1, (System.nanoTime() - started) / 1e9,
                counter(fast, "sip.requests.relayed_early") - relayedBefore, outcomes);
        assertEquals(0.0, counter(fast, "sip.datagrams.dropped", "reason", "stack_error") - fastErrors,
                "exceptions counted on the fast-path server: " + outcomes);
        assertEquals(0.0, counter(stack, "sip.datagrams.dropped", "reason", "stack_error") - stackErrors,
                "exceptions counted on the stack server: " + outcomes);
        assertTrue(INPUTS < 100 || counter(fast, "sip.requests.relayed_early") > relayedBefore,
                "the fast path relayed none of the mutants: " + outcomes);
    }

    /** An input whose two outcomes differed when its markers came back, with both. */
    private record Unsettled(String mutant, Outcome fast, Outcome stack) {
    }

    /**
     * What reached one side's next hops and came back to its caller for one input, normalised,
     * each message marked with where it arrived ({@code next: }, {@code far: }, {@code back: }), sorted.
     */
    private record Outcome(List<String> nextHop, List<String> caller) {
        /** Every message of this outcome and {@code late} (may be null), sorted. */
        List<String> all(List<String> late) {
            List<String> all = new ArrayList<>(nextHop);
            all.addAll(caller);
            if (late != null) {
                all.addAll(late);
            }
            all.sort(null);
            return all;
        }

        String kind() {
            return "next[" + String.join(",", nextHop.stream().map(Outcome::start).toList()) + "] back["
                    + String.join(",", caller.stream().map(Outcome::start).toList()) + "]";
        }

        private static String start(String m) {
            String line = m.substring(m.indexOf(": ") + 2, Math.max(m.indexOf(": ") + 2, m.indexOf('\n')));
            return line.startsWith("sip/2.0 ") ? line.substring(8, Math.min(line.length(), 11))
                    : line.substring(0, Math.max(0, line.indexOf(' ')));
        }

        @Override
        public String toString() {
            return "  next hop got " + nextHop.size() + ":\n" + String.join("  ----\n", nextHop) + "  caller got "
                    + caller.size() + ":\n" + String.join("  ----\n", caller);
        }
    }

    /**
     * Sends {@code mutant} (input {@code index}) and then the markers to one side, and collects
     * what the mutant caused there: the requests its two next hops received before the markers, and
     * what its caller received before the markers' answers. A message naming an earlier input (by
     * the token of its Call-ID or branch) is that input's, arrived late, and goes to {@code late}.
     */
    private static Outcome exchange(Side side, long index, String mutant, String markId, Seen seen, Late late)
            throws Exception {
        int sinkBefore = side.sink.requests().size();
        int farBefore = side.far.requests().size();
        List<String> back = new ArrayList<>();
        side.caller.send(mutant);
        // the first marker: a request for a user nobody registered here, answered after a lookup on
        // the database's one thread, so after every lookup the mutant queued there
        String first = markId + "-db";
        side.caller.send("OPTIONS sip:" + first + "@" + side.proxy() + " SIP/2.0\r\nVia: SIP/2.0/UDP 127.0.0.1:"
                + side.caller.localPort() + ";branch=z9hG4bK-" + first + ";rport\r\nMax-Forwards: 70\r\n"
                + "From: <sip:alice@127.0.0.1>;tag=f1\r\nTo: <sip:" + first + "@" + side.proxy() + ">\r\nCall-ID: "
                + first + "\r\nCSeq: 1 OPTIONS\r\nContent-Length: 0\r\n\r\n");
        String answer = collect(side, index, mutant, first, back, seen, late);
        if (!answer.startsWith("SIP/2.0 404") && !answer.startsWith("SIP/2.0 480")) {
            throw new AssertionError("the marker for an unknown user was not answered after a lookup:\n" + answer);
        }
        // then one in-dialog OPTIONS to each next hop, which the server relays and whose 200 it relays
        // back; twice: a request the server sends a next hop on that hop's own answer (the ACK for a
        // non-2xx final response, RFC 3261 §17.1.1.3) may reach the hop after the first one (seed 2026
        // input 196490), never after the second
        for (String round : List.of("", AGAIN)) {
            for (SipSink hop : List.of(side.sink, side.far)) {
                String id = markId + (hop == side.far ? "-far" : "") + round;
                side.caller.send("OPTIONS sip:mark@" + hop.hostPort() + " SIP/2.0\r\nVia: SIP/2.0/UDP 127.0.0.1:"
                        + side.caller.localPort() + ";branch=z9hG4bK-" + id + ";rport\r\nMax-Forwards: 70\r\n"
                        + "From: <sip:alice@127.0.0.1>;tag=f1\r\nTo: <sip:bob@127.0.0.2>;tag=t1\r\nCall-ID: " + id
                        + "\r\nCSeq: 1 OPTIONS\r\nContent-Length: 0\r\n\r\n");
                answer = collect(side, index, mutant, id, back, seen, late);
                if (!answer.startsWith("SIP/2.0 200")) {
                    throw new AssertionError("the in-dialog marker to " + hop.hostPort() + " was not relayed:\n" + answer);
                }
            }
        }
        List<String> next = new ArrayList<>();
        hop(side, side.sink, sinkBefore, markId, "next: ", index, next, seen, late);
        hop(side, side.far, farBefore, markId + "-far", "far: ", index, next, seen, late);
        next.sort(null);
        back.sort(null);
        return new Outcome(next, back);
    }

    /**
     * The requests {@code hop} received from {@code before} up to the second marker {@code markId}
     * (the first one passed over), sorted into {@code next} or {@code late}.
     */
    private static void hop(Side side, SipSink hop, int before, String markId, String prefix, long index,
                            List<String> next, Seen seen, Late late) {
        List<String> all = hop.requests();
        for (String m : all.subList(before, all.size())) {
            if (m.startsWith("OPTIONS sip:mark@") && m.contains("Call-ID: " + markId + AGAIN + "\r\n")) {
                return;
            }
            if (m.startsWith("OPTIONS sip:mark@") && m.contains("Call-ID: " + markId + "\r\n")) {
                continue;
            }
            if (seen.fresh(m)) {
                file(prefix + normalisedOrRaw(side, m), m, index, next, late);
            }
        }
        throw new AssertionError("the marker's 200 came back but " + hop.hostPort() + " has no marker " + markId + AGAIN);
    }

    /** Files a message under the input it names, {@code index} when it names none. */
    private static void file(String normalised, String raw, long index, List<String> now, Late late) {
        Matcher m = INPUT_TOKEN.matcher(raw);
        long named = m.find() ? Long.parseLong(m.group(1)) : index;
        if (named == index) {
            now.add(normalised);
        } else {
            late.add(named, normalised);
        }
    }

    /**
     * Reads the caller's messages into {@code back} (or {@code late}) until a final answer to the
     * marker {@code callId} arrives, and returns that answer.
     */
    private static String collect(Side side, long index, String mutant, String callId, List<String> back, Seen seen,
                                  Late late) throws Exception {
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (true) {
            long left = deadline - System.nanoTime();
            String m = left > 0 ? side.caller.receive(Duration.ofNanos(Math.max(left, 1_000_000))) : null;
            if (m == null) {
                throw new AssertionError("the marker " + callId + " sent after this mutant was not answered through "
                        + side.server.hostPort(Transport.UDP) + " within " + WAIT + ":\n" + mutant);
            }
            if (m.contains("Call-ID: " + callId + "\r\n")) {
                if (!m.startsWith("SIP/2.0 1")) {
                    return m;
                }
            } else if (seen.fresh(m)) {
                file("back: " + normalisedOrRaw(side, m), m, index, back, late);
            }
        }
    }

    /**
     * What reached one side for an input after that input's markers: answers the stack sent on a later event.
     * Threading: the test thread.
     */
    private static final class Late {
        private final Map<Long, List<String>> byInput = new TreeMap<>();

        void add(long input, String normalised) {
            List<String> l = byInput.computeIfAbsent(input, k -> new ArrayList<>());
            l.add(normalised);
            l.sort(null);
            // bounded: a long run keeps the late messages of its last inputs only
            if (byInput.size() > SEEN_LIMIT) {
                byInput.remove(byInput.keySet().iterator().next());
            }
        }
    }

    /**
     * The last messages one side received, to tell a retransmission of an earlier input's from a new one.
     * Threading: the test thread.
     */
    private static final class Seen {
        private final Set<String> messages = java.util.Collections.newSetFromMap(new LinkedHashMap<>() {
            @Override
            protected boolean removeEldestEntry(Map.Entry<String, Boolean> eldest) {
                return size() > SEEN_LIMIT;
            }
        });

        boolean fresh(String m) {
            return messages.add(m);
        }
    }

    /** The mutant as the other side's caller sends it: that side's proxy, next hop and caller port. */
    private static String swap(String mutant, Side from, Side to) {
        return mutant.replaceAll(Pattern.quote(from.proxy()) + "(?![0-9])", to.proxy())
                .replaceAll(Pattern.quote(from.sink.hostPort()) + "(?![0-9])", to.sink.hostPort())
                .replaceAll(Pattern.quote(from.far.hostPort()) + "(?![0-9])", to.far.hostPort())
                .replaceAll("127\\.0\\.0\\.1:" + from.caller.localPort() + "(?![0-9])",
                        "127.0.0.1:" + to.caller.localPort());
    }

    private static String normalisedOrRaw(Side side, String message) {
        try {
            return normalised(side, message);
        } catch (Exception | AssertionError e) {
            return "unparsed: " + named(side, message) + "\n";
        }
    }

    private static double counter(TestServer server, String name) {
        return server.server().transportCounters().value(name);
    }

    private static double counter(TestServer server, String name, String tag, String value) {
        return server.server().registry().counter(name, tag, value).count();
    }

    /** One server with its caller and next hop. */
    private record Side(TestServer server, SipSink sink, SipSink far, SipSocket caller) {
        String proxy() {
            return server.hostPort(Transport.UDP);
        }
    }

    /** An in-dialog request in one form: its method and a writer of its text for a side. */
    private record Form(String name, String method, Writer writer) {
        String write(Side side, String callId) {
            return writer.write(side, callId);
        }
    }

    private interface Writer {
        String write(Side side, String callId);
    }

    private static final List<Form> FORMS = List.of(
            new Form("ACK along a route set, with a body", "ACK", (s, c) -> request("ACK", "sip:bob@" + s.far.hostPort(), s, c,
                    "Max-Forwards: 70\r\nRoute: <sip:" + s.proxy() + ";transport=udp;lr>, <sip:" + s.sink.hostPort()
                            + ";lr>\r\n", "v=0\r\n", false)),
            new Form("ACK to the Request-URI without Max-Forwards", "ACK", (s, c) -> request("ACK",
                    "sip:bob@" + s.sink.hostPort(), s, c, "", "", false)),
            new Form("BYE with our own route", "BYE", (s, c) -> request("BYE", "sip:bob@" + s.sink.hostPort(), s, c,
                    "Max-Forwards: 70\r\nRoute: <sip:" + s.proxy() + ";lr>\r\n", "", false)),
            new Form("BYE in compact form with two Via lines", "BYE", (s, c) -> request("BYE",
                    "sip:bob@" + s.sink.hostPort(), s, c, "Max-Forwards: 9\r\n", "", true)),
            new Form("BYE with our route and the next hop's in two lines", "BYE", (s, c) -> request("BYE",
                    "sip:bob@" + s.far.hostPort(), s, c, "Max-Forwards: 70\r\nRoute: <sip:" + s.proxy() + ";lr>\r\nRoute: <sip:"
                            + s.sink.hostPort() + ";lr>\r\nSubject: caf\u00e9\r\n", "", false)));

    private static String request(String method, String requestUri, Side s, String callId, String extra, String body,
                                  boolean compact) {
        String via = "SIP/2.0/UDP 127.0.0.1:" + s.caller.localPort() + ";branch=z9hG4bK-" + callId + ";rport";
        return method + " " + requestUri + " SIP/2.0\r\n"
                + (compact ? "v: " + via + "\r\nv: SIP/2.0/UDP 127.0.0.1:5998;branch=z9hG4bK-up-" + callId
                        + ";received=127.0.0.1\r\n" : "Via: " + via + "\r\n")
                + extra
                + (compact ? "f: " : "From: ") + "<sip:alice@127.0.0.1>;tag=f1\r\n"
                + (compact ? "t: " : "To: ") + "<sip:bob@127.0.0.2>;tag=t1\r\n"
                + (compact ? "i: " : "Call-ID: ") + callId + "\r\n"
                + "CSeq: 2 " + method + "\r\n"
                + (compact ? "l: " : "Content-Length: ") + body.getBytes(StandardCharsets.UTF_8).length + "\r\n\r\n"
                + body;
    }

    /**
     * A received message as JAIN-SIP parses it: its start line, then its headers grouped by name
     * (RFC 3261 §7.3.1: the order of headers of different names is not significant, that of one
     * name is), each as JAIN-SIP writes it, a Via's parameters in name order with the proxy's own
     * Via's branch blanked; in a response, a To tag of 8 or more hex digits (none the tests send)
     * named alike, since a server makes one up at random for its own answer to a request without
     * one, on either path; this side's addresses named alike on both sides; then the body.
     */
    private static String normalised(Side side, String message) throws Exception {
        SIPMessage parsed = new StringMsgParserFactory().createMessageParser(null)
                .parseSIPMessage(message.getBytes(StandardCharsets.UTF_8), true, false, null);
        java.util.TreeMap<String, List<String>> byName = new java.util.TreeMap<>();
        for (Iterator<SIPHeader> it = parsed.getHeaders(); it.hasNext(); ) {
            SIPHeader h = it.next();
            String name = h.getName().toLowerCase(Locale.ROOT);
            List<String> values = byName.computeIfAbsent(name, k -> new ArrayList<>());
            if (h instanceof gov.nist.javax.sip.header.ViaList vias) {
                for (Object o : vias) {
                    Via v = (Via) o;
                    List<String> params = new ArrayList<>();
                    for (Iterator<?> names = v.getParameterNames(); names.hasNext(); ) {
                        String p = (String) names.next();
                        String value = v.getParameter(p);
                        if (p.equalsIgnoreCase("branch") && (v.getHost() + ":" + v.getPort()).equals(side.proxy())) {
                            value = "BRANCH";
                        }
                        params.add(p + (value == null || value.isEmpty() ? "" : "=" + value));
                    }
                    params.sort(null);
                    values.add(v.getSentProtocol().encode() + " " + v.getSentBy().encode() + ";" + String.join(";", params));
                }
            } else if (h instanceof gov.nist.javax.sip.header.SIPHeaderList<?> list) {
                for (Object o : list) {
                    values.add(body((SIPHeader) o));
                }
            } else if (!(name.equals("content-length") && parsed.getContentLength().getContentLength() == 0)) {
                // a copy from the bytes keeps the sender's Content-Length: 0; the stack may write it or not
                values.add(body(h));
            }
        }
        StringBuilder sb = new StringBuilder(parsed.getFirstLine().trim()).append('\n');
        byName.forEach((name, values) -> values.forEach(v -> sb.append(name).append(": ").append(v).append('\n')));
        String body = parsed.getRawContent() == null ? "" : new String(parsed.getRawContent(), StandardCharsets.UTF_8);
        String text = sb.toString();
        if (parsed instanceof gov.nist.javax.sip.message.SIPResponse) {
            // the To tag a server makes up for its own answer to a request without one: random on either path
            text = GENERATED_TO_TAG.matcher(text).replaceFirst("$1GENERATED");
        }
        return named(side, text).toLowerCase(Locale.ROOT) + "\n" + body;
    }

    /**
     * {@code text} with the side's addresses named alike: the proxy, the next hops and the caller's
     * port. A blank may follow the colon: a line whose name ends in a host ({@code X-a 127.0.0.1:
     * PORT}, a header name the parse takes) is written back as name, colon, blank and value (seed
     * 2026 input 209392).
     */
    private static String named(Side side, String text) {
        return text.replaceAll(address(side.proxy()), "PROXY").replaceAll(address(side.sink.hostPort()), "NEXT")
                .replaceAll(address(side.far.hostPort()), "FAR")
                .replaceAll(":[ \\t]*" + side.caller.localPort() + "(?![0-9])", ":CALLER")
                .replaceAll("=" + side.caller.localPort() + "(?![0-9])", "=CALLER");
    }

    /** A pattern of {@code host:port} that allows blanks after the colon and no digit after the port. */
    private static String address(String hostPort) {
        int colon = hostPort.lastIndexOf(':');
        return Pattern.quote(hostPort.substring(0, colon)) + ":[ \\t]*" + hostPort.substring(colon + 1) + "(?![0-9])";
    }

    /** A header's value as JAIN-SIP writes it. */
    private static String body(SIPHeader h) {
        String text = h.encode();
        return text.substring(text.indexOf(':') + 1).trim();
    }
}
