package org.sipcrypt.lab.runner;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.List;
import java.util.Objects;
import java.util.TreeSet;

/**
 * The server's heap per idle connection for one compared cipher of a study ({@code compare
 * --idle-connections N}, {@link IdleHeapStep}): the server under test measured with none of the lab's
 * idle connections open, with N held, and after they are closed again, each time its live heap and
 * live objects after a full collection ({@code jcmd PID GC.class_histogram}), its resident set and
 * its own count of open connections. Per connection is the growth divided by the connections the
 * server counted open (not by those the lab asked for). Its JSON also holds the per-connection
 * figures, made from the components and so ignored when read back.
 * Threading: immutable.
 *
 * @param cipher       the compared name ({@code aes}, {@code tcp})
 * @param transport    the left leg's transport the connections used ({@code tls}, {@code tcp}, {@code wss})
 * @param asked        connections asked for
 * @param held         connections the lab held (handshake done, OPTIONS answered)
 * @param failed       connections that could not be opened
 * @param firstFailure the first failure, or null
 * @param openSeconds  how long opening them took
 * @param before       the server before opening any
 * @param whileHeld    the server with them held
 * @param after        the server after they were closed
 * @param tlsEngines   the TLS engines of the server's handshakes so far ({@link ServerTlsEngines}), sorted;
 *                     empty over TCP
 * @param invalid      why the figures say nothing (no connection held, the heap unreadable), or null
 */
@JsonIgnoreProperties(value = {"connections", "bytesPerConnection", "leftAfterClosingBytesPerConnection",
        "objectsPerConnection", "rssBytesPerConnection"}, allowGetters = true)
public record IdleHeap(String cipher, String transport, int asked, int held, int failed, String firstFailure,
                       double openSeconds, Snapshot before, Snapshot whileHeld, Snapshot after, List<String> tlsEngines,
                       String invalid) {

    /**
     * The server at one moment: live heap and objects after a full collection, resident set, open
     * connections by its own gauge; -1 where not read.
     * Threading: immutable.
     */
    public record Snapshot(long heapBytes, long objects, long rssBytes, long openConnections) {

        /** Nothing read. */
        public static final Snapshot UNKNOWN = new Snapshot(-1, -1, -1, -1);
    }

    public IdleHeap {
        Objects.requireNonNull(cipher, "cipher");
        before = before == null ? Snapshot.UNKNOWN : before;
        whileHeld = whileHeld == null ? Snapshot.UNKNOWN : whileHeld;
        after = after == null ? Snapshot.UNKNOWN : after;
        tlsEngines = tlsEngines == null ? List.of() : List.copyOf(new TreeSet<>(tlsEngines));
    }

    /**
     * The connections the growth is divided by: those the server counted open while held less those
     * open before; the lab's own count when the server's gauge was not read; 0 when neither is known.
     */
    @JsonProperty("connections")
    public long connections() {
        if (whileHeld.openConnections() >= 0 && before.openConnections() >= 0) {
            return Math.max(0, whileHeld.openConnections() - before.openConnections());
        }
        return held;
    }

    /** Live heap per held connection in bytes, -1 when not known. */
    @JsonProperty("bytesPerConnection")
    public double bytesPerConnection() {
        return per(whileHeld.heapBytes(), before.heapBytes());
    }

    /**
     * Live heap per connection left after they were all closed (the TLS sessions the server keeps for
     * resumption, and whatever else outlives a connection), -1 when not known.
     */
    @JsonProperty("leftAfterClosingBytesPerConnection")
    public double leftAfterClosingBytesPerConnection() {
        return per(after.heapBytes(), before.heapBytes());
    }

    /** Live objects per held connection, -1 when not known. */
    @JsonProperty("objectsPerConnection")
    public double objectsPerConnection() {
        return per(whileHeld.objects(), before.objects());
    }

    /**
     * Resident-set growth per held connection in bytes (the heap is touched at start, so this is what
     * lives off the heap: BoringSSL's state on the openssl engine, direct buffers), -1 when not known.
     */
    @JsonProperty("rssBytesPerConnection")
    public double rssBytesPerConnection() {
        return per(whileHeld.rssBytes(), before.rssBytes());
    }

    /** Whether the figures count. */
    public boolean valid() {
        return invalid == null && connections() > 0 && before.heapBytes() >= 0 && whileHeld.heapBytes() >= 0;
    }

    private double per(long value, long base) {
        long n = connections();
        if (invalid != null || n <= 0 || value < 0 || base < 0) {
            return -1;
        }
        return (double) (value - base) / n;
    }
}
