package org.sipcrypt.server.transport.kept;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Random operations on a small, crowded store compared with a plain map that keeps every entry with
 * its write time: the same answers, the same expiries by lifetime class, the same entries evicted
 * oldest first at the bound, provisional responses kept and dropped, whatever the probing, the
 * deletions and the lazy sweeping do inside.
 */
@Timeout(60)
class CompletedTransactionsModelTest {

    private static final Duration LIFETIME = Duration.ofSeconds(10);
    private static final Duration AFTER_ACK = Duration.ofSeconds(3);
    private static final int KEYS = 64;
    private static final int OPERATIONS = 40_000;

    private enum Kind { ANSWER, ACCEPTED, CONFIRMED, PROVISIONAL }

    private record Kept(Kind kind, byte[] response, InetSocketAddress destination, long written) {
        long expiry() {
            return written + (kind == Kind.CONFIRMED ? AFTER_ACK : LIFETIME).toNanos();
        }
    }

    /** The reference: every entry written, expiry checked on each use, eviction by oldest write. */
    private static final class Model {
        final Map<String, Kept> kept = new HashMap<>();
        final int max;

        Model(int max) {
            this.max = max;
        }

        Kept live(String key, long now) {
            Kept k = kept.get(key);
            return k == null || now >= k.expiry() ? null : k;
        }

        void put(String key, Kept entry, long now) {
            kept.values().removeIf(k -> now >= k.expiry());
            if (!kept.containsKey(key) && kept.size() == max) {
                String oldest = null;
                for (Map.Entry<String, Kept> e : kept.entrySet()) {
                    if (oldest == null || e.getValue().written() < kept.get(oldest).written()) {
                        oldest = e.getKey();
                    }
                }
                kept.remove(oldest);
            }
            kept.put(key, entry);
        }

        int size(long now) {
            kept.values().removeIf(k -> now >= k.expiry());
            return kept.size();
        }
    }

    @ParameterizedTest(name = "bound {0}")
    @ValueSource(ints = {1, 7, 16, 40})
    void aCrowdedStoreAnswersLikeAPlainMapWithExpiryAndOldestFirstEviction(int max) throws Exception {
        Random random = new Random(max * 7919L);
        AtomicLong nanos = new AtomicLong(-Duration.ofSeconds(100).toNanos());
        CompletedTransactions store = new CompletedTransactions(LIFETIME, AFTER_ACK, max, nanos::get);
        Model model = new Model(max);
        InetSocketAddress[] peers = {
                new InetSocketAddress(InetAddress.getByName("127.0.0.1"), 5060),
                new InetSocketAddress(InetAddress.getByName("::1"), 5070),
        };
        for (int op = 0; op < OPERATIONS; op++) {
            // every operation at its own time, so that "oldest" is never a tie
            nanos.addAndGet(1 + (random.nextInt(10) == 0 ? random.nextInt(4_000_000) * 1_000L : random.nextInt(1_000)));
            long now = nanos.get();
            int n = random.nextInt(KEYS);
            String key = CompletedTransactions.key("z9hG4bK-" + n, "host" + n % 3, 5060, n % 2 == 0 ? "INVITE" : "BYE");
            String where = "operation " + op + " on key " + n;
            switch (random.nextInt(24)) {
                case 0, 1, 2, 3, 4 -> {
                    byte[] response = ("SIP/2.0 " + (400 + op % 200) + " r").getBytes(StandardCharsets.US_ASCII);
                    InetSocketAddress peer = peers[op % peers.length];
                    store.completed(key, response, peer);
                    model.put(key, new Kept(Kind.ANSWER, response, peer, now), now);
                }
                case 5, 6, 7 -> {
                    store.absorbed(key);
                    model.put(key, new Kept(Kind.ACCEPTED, null, null, now), now);
                }
                case 8, 9, 10 -> {
                    Kept k = model.live(key, now);
                    boolean expected = k != null && k.kind() != Kind.ACCEPTED && k.kind() != Kind.PROVISIONAL;
                    assertEquals(expected, store.acknowledged(key), where);
                    if (k != null && k.kind() == Kind.ANSWER) {
                        model.kept.put(key, new Kept(Kind.CONFIRMED, null, null, now));
                    }
                }
                case 11 -> {
                    assertEquals(model.size(now), store.size(), where);
                    assertEquals(0, store.ringHeldRemoved(), where + ": a replaced or removed entry left its ring");
                }
                case 20, 21 -> {
                    byte[] response = ("SIP/2.0 18" + op % 10 + " r").getBytes(StandardCharsets.US_ASCII);
                    InetSocketAddress peer = peers[op % peers.length];
                    Kept k = model.live(key, now);
                    store.provisional(key, response, peer);
                    // kept in place of nothing or of an earlier provisional response, never of a final one
                    if (k == null || k.kind() == Kind.PROVISIONAL) {
                        model.put(key, new Kept(Kind.PROVISIONAL, response, peer, now), now);
                    }
                }
                case 22, 23 -> {
                    Kept k = model.live(key, now);
                    store.finalResponse(key);
                    if (k != null && k.kind() == Kind.PROVISIONAL) {
                        model.kept.remove(key);
                    }
                }
                default -> {
                    Kept k = model.live(key, now);
                    CompletedTransactions.Answer a = store.retransmission(key);
                    if (k == null) {
                        assertNull(a, where);
                    } else {
                        assertNotNull(a, where);
                        boolean answers = k.kind() == Kind.ANSWER || k.kind() == Kind.PROVISIONAL;
                        assertEquals(!answers, a.absorb(), where);
                        if (answers) {
                            assertArrayEquals(k.response(), a.response(), where);
                            assertEquals(k.destination(), a.destination(), where);
                        }
                    }
                }
            }
        }
    }
}
