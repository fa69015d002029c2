package org.sipcrypt.server.testing;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Inet6Address;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A TCP relay on loopback that holds back every chunk of bytes for a fixed one-way delay in each direction,
 * to emulate the network round trip between the server and its database (H2 in server mode, PostgreSQL) on
 * one machine: a request/response exchange through it costs {@code 2 × oneWayDelay} plus processing.
 *
 * <p>For every accepted client connection the relay connects to the target and runs one pipe per direction.
 * A pipe's reader timestamps each chunk as it is read and queues it; its writer sleeps until the chunk is due
 * ({@code oneWayDelay} after the read) and writes it. Chunks are pipelined, so the delay adds latency but
 * does not limit throughput; at most {@value #MAX_QUEUED_CHUNKS} chunks of up to {@value #CHUNK_BYTES} bytes
 * wait per direction, beyond which the reader blocks (back pressure). End of stream travels like data: after
 * the pending chunks, the other side's output is shut down, so its peer reads end of stream; a connection is
 * closed once both directions have ended, or at once when a write fails or a read fails with an error
 * (after the chunks already read). Not emulated: the round trip of the TCP handshake (the target connection
 * is opened at accept time), bandwidth limits, loss and jitter.
 *
 * <p>Standalone, for benchmark scripts: {@code java -cp <test-classes>:<server jar>
 * org.sipcrypt.server.testing.DelayRelay --listen 127.0.0.1:PORT --target 127.0.0.1:PORT --delay-ms 15}
 * prints one line and runs until killed; SIGTERM closes it through a shutdown hook. Both addresses must be
 * loopback addresses.
 * Threading: thread-safe; daemon threads {@code delay-relay-PORT-accept} and, per connection N,
 * {@code delay-relay-PORT-cN-(up|down)-(read|write)}; {@link #close()} blocks until all of them ended.
 */
public final class DelayRelay implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(DelayRelay.class);

    /** Largest chunk read (and delivered) at once. */
    static final int CHUNK_BYTES = 64 * 1024;
    /** Chunks waiting per direction before the reader stops reading; bounds memory to 16 MiB a direction. */
    static final int MAX_QUEUED_CHUNKS = 256;

    private static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(5);
    private static final Duration CLOSE_TIMEOUT = Duration.ofSeconds(10);
    private static final String USAGE =
            "usage: DelayRelay --listen 127.0.0.1:PORT --target 127.0.0.1:PORT --delay-ms MILLIS";

    private final ServerSocket server;
    private final InetSocketAddress target;
    private final Duration oneWayDelay;
    private final long delayNanos;
    private final String threadPrefix;
    private final String listenHostPort;
    private final Thread acceptor;
    private final Set<Connection> open = ConcurrentHashMap.newKeySet();
    /** Every connection thread started and not yet seen ended; pruned on accept, joined on close. */
    private final Queue<Thread> threads = new ConcurrentLinkedQueue<>();
    private final AtomicLong connections = new AtomicLong();
    private final AtomicLong bytesForwarded = new AtomicLong();
    private final AtomicBoolean closed = new AtomicBoolean();

    private DelayRelay(ServerSocket server, InetSocketAddress target, Duration oneWayDelay) {
        this.server = server;
        this.target = target;
        this.oneWayDelay = oneWayDelay;
        this.delayNanos = oneWayDelay.toNanos();
        this.threadPrefix = "delay-relay-" + server.getLocalPort() + "-";
        this.listenHostPort = hostPort((InetSocketAddress) server.getLocalSocketAddress());
        this.acceptor = daemon(this::acceptLoop, threadPrefix + "accept");
    }

    /**
     * Listens on {@code listen} (port 0 picks a free port) and relays every accepted connection to
     * {@code target}, delaying each direction by {@code oneWayDelay}.
     *
     * @throws IllegalArgumentException if either address is not a resolved loopback address or the delay is negative
     * @throws IOException if the listen address cannot be bound
     */
    public static DelayRelay start(InetSocketAddress listen, InetSocketAddress target, Duration oneWayDelay)
            throws IOException {
        requireLoopback(listen, "listen");
        requireLoopback(target, "target");
        Objects.requireNonNull(oneWayDelay, "oneWayDelay");
        if (oneWayDelay.isNegative()) {
            throw new IllegalArgumentException("oneWayDelay: must not be negative, got " + oneWayDelay);
        }
        ServerSocket server = new ServerSocket();
        try {
            server.bind(listen);
        } catch (IOException e) {
            server.close();
            throw new IOException("delay-relay: cannot listen on " + hostPort(listen), e);
        }
        DelayRelay relay = new DelayRelay(server, target, oneWayDelay);
        relay.acceptor.start();
        log.info("{} listening, one-way delay {} ms", relay, oneWayDelay.toMillis());
        return relay;
    }

    /** The bound listen port. */
    public int port() {
        return server.getLocalPort();
    }

    /** Client connections accepted so far, including those whose target connection failed. */
    public long connections() {
        return connections.get();
    }

    /** Bytes delivered so far, both directions and all connections together. */
    public long bytesForwarded() {
        return bytesForwarded.get();
    }

    /** Stops accepting, closes every connection (pending data are dropped) and waits for all relay threads to end. */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        closeSocket(server, "listen socket");
        long deadline = System.nanoTime() + CLOSE_TIMEOUT.toNanos();
        List<Thread> all = new ArrayList<>();
        all.add(acceptor);
        try {
            // the acceptor registers connections; once it has ended, the set below is complete
            acceptor.join(CLOSE_TIMEOUT.toMillis());
            for (Connection c : open) {
                c.close("relay closed");
            }
            all.addAll(threads);
            for (Thread t : all) {
                long leftMillis = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
                if (leftMillis > 0) {
                    t.join(leftMillis);
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            log.warn("{} interrupted while waiting for its threads to end", this, e);
            return;
        }
        List<String> alive = all.stream().filter(Thread::isAlive).map(Thread::getName).toList();
        if (!alive.isEmpty()) {
            throw new IllegalStateException(this + ": threads still alive " + CLOSE_TIMEOUT.toSeconds()
                    + " s after close: " + alive);
        }
        log.info("{} closed after {} connections, {} bytes forwarded", this, connections(), bytesForwarded());
    }

    /** {@code delay-relay 127.0.0.1:LISTEN->127.0.0.1:TARGET}. */
    @Override
    public String toString() {
        return "delay-relay " + listenHostPort + "->" + hostPort(target);
    }

    private void acceptLoop() {
        while (!closed.get()) {
            Socket client;
            try {
                client = server.accept();
            } catch (IOException e) {
                if (!closed.get()) {
                    log.error("{} stopped accepting: {}", this, e.toString(), e);
                }
                return;
            }
            long id = connections.incrementAndGet();
            threads.removeIf(t -> !t.isAlive());
            Socket upstream = new Socket();
            try {
                // chunks are already held back on purpose; Nagle would add its own, unrelated delay
                client.setTcpNoDelay(true);
                upstream.setTcpNoDelay(true);
                upstream.connect(target, (int) CONNECT_TIMEOUT.toMillis());
            } catch (IOException e) {
                log.warn("{} c{}: cannot connect to {}, closing the client connection: {}",
                        this, id, hostPort(target), e.toString());
                closeSocket(client, "client socket");
                closeSocket(upstream, "target socket");
                continue;
            }
            Connection connection = new Connection(id, client, upstream);
            open.add(connection);
            connection.start();
            log.debug("{} opened", connection);
        }
    }

    /** One relayed client connection: the client socket, the socket to the target and a pipe each way. */
    private final class Connection {
        private final String label;
        private final Socket client;
        private final Socket upstream;
        private final Pipe up;
        private final Pipe down;
        private final AtomicInteger pipesEnded = new AtomicInteger();
        private final AtomicBoolean closed = new AtomicBoolean();

        Connection(long id, Socket client, Socket upstream) {
            this.client = client;
            this.upstream = upstream;
            this.label = "delay-relay c" + id + " " + hostPort((InetSocketAddress) client.getLocalSocketAddress())
                    + "<-" + hostPort((InetSocketAddress) client.getRemoteSocketAddress())
                    + " to " + hostPort((InetSocketAddress) upstream.getRemoteSocketAddress());
            String prefix = threadPrefix + "c" + id + "-";
            this.up = new Pipe(this, "up", client, upstream, prefix);
            this.down = new Pipe(this, "down", upstream, client, prefix);
        }

        void start() {
            up.start();
            down.start();
        }

        boolean isClosed() {
            return closed.get();
        }

        void pipeEnded() {
            if (pipesEnded.incrementAndGet() == 2) {
                close("both directions ended");
            }
        }

        /** Closes both sockets, which ends blocked reads and writes, and interrupts waiting threads. */
        void close(String reason) {
            if (!closed.compareAndSet(false, true)) {
                return;
            }
            open.remove(this);
            closeSocket(client, label + " client socket");
            closeSocket(upstream, label + " target socket");
            up.interrupt();
            down.interrupt();
            log.debug("{} closed: {}", this, reason);
        }

        @Override
        public String toString() {
            return label;
        }
    }

    /** A chunk of bytes due for delivery at {@code dueNanos}; without data it marks end of stream or a failed read. */
    private record Chunk(long dueNanos, byte[] data, String failure) {
    }

    /** One direction of a connection: a reader thread that timestamps chunks and a writer that delivers them when due. */
    private final class Pipe {
        private final Connection connection;
        private final String direction;
        private final Socket from;
        private final Socket to;
        private final BlockingQueue<Chunk> queue = new ArrayBlockingQueue<>(MAX_QUEUED_CHUNKS);
        private final Thread reader;
        private final Thread writer;

        Pipe(Connection connection, String direction, Socket from, Socket to, String threadPrefix) {
            this.connection = connection;
            this.direction = direction;
            this.from = from;
            this.to = to;
            this.reader = daemon(this::read, threadPrefix + direction + "-read");
            this.writer = daemon(this::write, threadPrefix + direction + "-write");
        }

        void start() {
            threads.add(reader);
            threads.add(writer);
            reader.start();
            writer.start();
        }

        void interrupt() {
            for (Thread t : List.of(reader, writer)) {
                if (t != Thread.currentThread()) {
                    t.interrupt();
                }
            }
        }

        private void read() {
            byte[] buffer = new byte[CHUNK_BYTES];
            try {
                InputStream in = from.getInputStream();
                while (true) {
                    int n = in.read(buffer);
                    long due = System.nanoTime() + delayNanos;
                    if (n < 0) {
                        queue.put(new Chunk(due, null, null));
                        return;
                    }
                    queue.put(new Chunk(due, Arrays.copyOf(buffer, n), null));
                }
            } catch (IOException e) {
                if (connection.isClosed()) {
                    return; // our own close ended the read
                }
                try {
                    queue.put(new Chunk(System.nanoTime() + delayNanos, null, e.toString()));
                } catch (InterruptedException interrupted) {
                    log.debug("{} {} read failed ({}) while closing", connection, direction, e.toString());
                }
            } catch (InterruptedException e) {
                log.debug("{} {} reader stopped by close", connection, direction);
            }
        }

        private void write() {
            try {
                OutputStream out = to.getOutputStream();
                while (true) {
                    Chunk chunk = queue.take();
                    for (long wait = chunk.dueNanos() - System.nanoTime(); wait > 0;
                         wait = chunk.dueNanos() - System.nanoTime()) {
                        TimeUnit.NANOSECONDS.sleep(wait);
                    }
                    if (chunk.data() != null) {
                        out.write(chunk.data());
                        bytesForwarded.addAndGet(chunk.data().length);
                    } else if (chunk.failure() == null) {
                        to.shutdownOutput();
                        log.debug("{} {}: end of stream delivered", connection, direction);
                        connection.pipeEnded();
                        return;
                    } else {
                        connection.close(direction + " read failed: " + chunk.failure());
                        return;
                    }
                }
            } catch (IOException e) {
                connection.close(direction + " write failed: " + e);
            } catch (InterruptedException e) {
                log.debug("{} {} writer stopped by close", connection, direction);
            }
        }
    }

    /**
     * Runs a relay until the process is killed. Arguments: {@code --listen HOST:PORT --target HOST:PORT
     * --delay-ms MILLIS} (also as {@code --name=value}); exits 2 with a usage line on bad arguments.
     */
    public static void main(String... args) throws IOException, InterruptedException {
        Options options;
        try {
            options = Options.parse(args);
        } catch (IllegalArgumentException e) {
            System.err.println("delay-relay: " + e.getMessage());
            System.err.println(USAGE);
            System.exit(2);
            return;
        }
        DelayRelay relay;
        try {
            relay = start(options.listen(), options.target(), options.oneWayDelay());
        } catch (IllegalArgumentException e) {
            System.err.println("delay-relay: " + e.getMessage());
            System.exit(2);
            return;
        }
        Runtime.getRuntime().addShutdownHook(new Thread(relay::close, "delay-relay-shutdown"));
        System.out.println("delay-relay listening on " + relay.listenHostPort + " -> " + hostPort(relay.target)
                + ", one-way delay " + relay.oneWayDelay.toMillis() + " ms");
        System.out.flush();
        relay.acceptor.join();
        if (!relay.closed.get()) {
            System.exit(1); // the acceptor failed (logged); nothing would accept connections any more
        }
    }

    /** Command-line arguments of {@link #main}. */
    record Options(InetSocketAddress listen, InetSocketAddress target, Duration oneWayDelay) {

        static Options parse(String... args) {
            String listen = null;
            String target = null;
            String delayMs = null;
            for (int i = 0; i < args.length; i++) {
                String arg = args[i];
                String name = arg;
                String value;
                int eq = arg.indexOf('=');
                if (arg.startsWith("--") && eq > 0) {
                    name = arg.substring(0, eq);
                    value = arg.substring(eq + 1);
                } else if (i + 1 < args.length) {
                    value = args[++i];
                } else {
                    throw new IllegalArgumentException(arg + ": missing value");
                }
                switch (name) {
                    case "--listen" -> listen = value;
                    case "--target" -> target = value;
                    case "--delay-ms" -> delayMs = value;
                    default -> throw new IllegalArgumentException(name + ": unknown option");
                }
            }
            if (listen == null || target == null || delayMs == null) {
                throw new IllegalArgumentException("--listen, --target and --delay-ms are all required");
            }
            long millis;
            try {
                millis = Long.parseLong(delayMs);
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("--delay-ms: \"" + delayMs + "\" is not a whole number of milliseconds", e);
            }
            if (millis < 0) {
                throw new IllegalArgumentException("--delay-ms: must not be negative, got " + millis);
            }
            return new Options(address("--listen", listen), address("--target", target), Duration.ofMillis(millis));
        }

        /** {@code HOST:PORT}, with an IPv6 host in brackets ({@code [::1]:5432}). */
        private static InetSocketAddress address(String option, String value) {
            int colon = value.lastIndexOf(':');
            if (colon <= 0) {
                throw new IllegalArgumentException(option + ": \"" + value + "\" is not HOST:PORT");
            }
            String host = value.substring(0, colon);
            if (host.startsWith("[") && host.endsWith("]")) {
                host = host.substring(1, host.length() - 1);
            }
            int port;
            try {
                port = Integer.parseInt(value.substring(colon + 1));
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException(option + ": \"" + value + "\" has no numeric port", e);
            }
            if (port < 0 || port > 65535) {
                throw new IllegalArgumentException(option + ": port " + port + " out of range 0-65535");
            }
            return new InetSocketAddress(host, port);
        }
    }

    private static void requireLoopback(InetSocketAddress address, String name) {
        Objects.requireNonNull(address, name);
        if (address.isUnresolved() || !address.getAddress().isLoopbackAddress()) {
            throw new IllegalArgumentException(name + ": " + address + " is not a loopback address (127.0.0.0/8 or ::1)");
        }
    }

    private static String hostPort(InetSocketAddress address) {
        if (address == null) {
            return "?";
        }
        if (address.isUnresolved()) {
            return address.getHostString() + ":" + address.getPort();
        }
        String host = address.getAddress() instanceof Inet6Address
                ? "[" + address.getAddress().getHostAddress() + "]" : address.getAddress().getHostAddress();
        return host + ":" + address.getPort();
    }

    private static Thread daemon(Runnable body, String name) {
        Thread t = new Thread(body, name);
        t.setDaemon(true);
        return t;
    }

    private static void closeSocket(AutoCloseable socket, String what) {
        try {
            socket.close();
        } catch (Exception e) {
            log.debug("closing {} failed: {}", what, e.toString());
        }
    }
}
