package org.sipcrypt.server.testing;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

class DelayRelayTest {

    private static final InetSocketAddress LOOPBACK_ANY_PORT = new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);

    @Test
    @Timeout(60)
    void largeTransferArrivesIntactAndInOrder() throws Exception {
        byte[] sent = new byte[1024 * 1024];
        Random random = new Random(20240611);
        random.nextBytes(sent);
        ExecutorService sender = Executors.newSingleThreadExecutor(r -> new Thread(r, "relay-test-sender"));
        try (EchoServer echo = EchoServer.start();
             DelayRelay relay = DelayRelay.start(LOOPBACK_ANY_PORT, echo.address(), Duration.ofMillis(5));
             Socket client = connect(relay)) {
            Future<?> sending = sender.submit(() -> {
                OutputStream out = client.getOutputStream();
                for (int offset = 0; offset < sent.length; ) {
                    int n = Math.min(1 + random.nextInt(16 * 1024), sent.length - offset);
                    out.write(sent, offset, n);
                    offset += n;
                }
                client.shutdownOutput();
                return null;
            });

            byte[] received = client.getInputStream().readNBytes(sent.length);
            sending.get();

            assertArrayEquals(sent, received);
            assertEquals(-1, client.getInputStream().read(), "end of stream after the echoed bytes");
            assertEquals(1, relay.connections());
            Await.until(() -> relay.bytesForwarded() == 2L * sent.length, Duration.ofSeconds(10),
                    () -> relay.bytesForwarded() + " bytes forwarded, expected " + 2L * sent.length);
        } finally {
            sender.shutdownNow();
        }
    }

    @Test
    @Timeout(30)
    void eachRoundTripTakesAtLeastTwiceTheOneWayDelay() throws Exception {
        Duration delay = Duration.ofMillis(50);
        try (EchoServer echo = EchoServer.start();
             DelayRelay relay = DelayRelay.start(LOOPBACK_ANY_PORT, echo.address(), delay);
             Socket client = connect(relay)) {
            OutputStream out = client.getOutputStream();
            InputStream in = client.getInputStream();
            for (int i = 0; i < 3; i++) {
                long start = System.nanoTime();
                out.write('a' + i);
                assertEquals('a' + i, in.read());
                Duration roundTrip = Duration.ofNanos(System.nanoTime() - start);

                // a lower bound is what the relay guarantees; no upper bound is asserted
                assertTrue(roundTrip.compareTo(delay.multipliedBy(2)) >= 0,
                        "round trip " + i + " took " + roundTrip + ", less than 2 x " + delay);
            }
        }
    }

    @Test
    @Timeout(30)
    void closingTheTargetSideClosesTheClientSideAfterPendingData() throws Exception {
        try (ServerSocket target = listen();
             DelayRelay relay = DelayRelay.start(LOOPBACK_ANY_PORT, address(target), Duration.ofMillis(20))) {
            try (Socket client = connect(relay)) {
                try (Socket accepted = target.accept()) {
                    accepted.getOutputStream().write("bye".getBytes(StandardCharsets.US_ASCII));
                }

                assertEquals("bye", new String(client.getInputStream().readNBytes(3), StandardCharsets.US_ASCII));
                assertEquals(-1, client.getInputStream().read(), "client side sees end of stream");
            }
            Await.until(() -> relayThreads(relay).equals(List.of("delay-relay-" + relay.port() + "-accept")),
                    Duration.ofSeconds(10), () -> "connection threads left: " + relayThreads(relay));
        }
    }

    @Test
    @Timeout(30)
    void closingTheClientSideClosesTheTargetSideAfterPendingData() throws Exception {
        try (ServerSocket target = listen();
             DelayRelay relay = DelayRelay.start(LOOPBACK_ANY_PORT, address(target), Duration.ofMillis(20));
             Socket accepted = acceptAfter(target, relay)) {
            assertEquals("bye", new String(accepted.getInputStream().readNBytes(3), StandardCharsets.US_ASCII));
            assertEquals(-1, accepted.getInputStream().read(), "target side sees end of stream");
        }
    }

    @Test
    @Timeout(30)
    void closeLeavesNoRelayThreadsAlive() throws Exception {
        try (EchoServer echo = EchoServer.start()) {
            DelayRelay relay = DelayRelay.start(LOOPBACK_ANY_PORT, echo.address(), Duration.ofMillis(10));
            String prefix = "delay-relay-" + relay.port() + "-";
            List<Socket> clients = new ArrayList<>();
            try {
                for (int i = 0; i < 3; i++) {
                    Socket client = connect(relay);
                    clients.add(client);
                    client.getOutputStream().write('x');
                    assertEquals('x', client.getInputStream().read());
                }
                assertEquals(1 + 3 * 4, relayThreads(relay).size(), () -> "relay threads: " + relayThreads(relay));

                relay.close();

                assertEquals(List.of(), relayThreads(relay), "threads named " + prefix + "* after close");
                for (Socket client : clients) {
                    assertEquals(-1, client.getInputStream().read(), "client connection closed by the relay");
                }
                assertEquals(3, relay.connections());
            } finally {
                relay.close();
                for (Socket client : clients) {
                    client.close();
                }
            }
        }
    }

    @Test
    @Timeout(10)
    void refusesToListenOutsideLoopback() throws Exception {
        InetSocketAddress target = new InetSocketAddress(InetAddress.getLoopbackAddress(), 5432);
        Duration delay = Duration.ofMillis(1);
        assertThrows(IllegalArgumentException.class,
                () -> DelayRelay.start(new InetSocketAddress("0.0.0.0", 0), target, delay));
        assertThrows(IllegalArgumentException.class,
                () -> DelayRelay.start(new InetSocketAddress(InetAddress.getByAddress(new byte[] {(byte) 192, 0, 2, 1}), 0),
                        target, delay));
        assertThrows(IllegalArgumentException.class,
                () -> DelayRelay.start(InetSocketAddress.createUnresolved("localhost", 0), target, delay));
        assertThrows(IllegalArgumentException.class,
                () -> DelayRelay.start(LOOPBACK_ANY_PORT, target, Duration.ofMillis(-1)));
    }

    @Test
    @Timeout(10)
    void commandLineNamesListenTargetAndDelay() {
        DelayRelay.Options options = DelayRelay.Options.parse(
                "--listen", "127.0.0.1:15432", "--target=127.0.0.1:5432", "--delay-ms", "15");

        assertEquals(new InetSocketAddress("127.0.0.1", 15432), options.listen());
        assertEquals(new InetSocketAddress("127.0.0.1", 5432), options.target());
        assertEquals(Duration.ofMillis(15), options.oneWayDelay());
        assertEquals(new InetSocketAddress("::1", 5432),
                DelayRelay.Options.parse("--listen", "[::1]:0", "--target", "[::1]:5432", "--delay-ms", "0").target());
        assertThrows(IllegalArgumentException.class,
                () -> DelayRelay.Options.parse("--listen", "127.0.0.1:1", "--target", "127.0.0.1:2"));
        assertThrows(IllegalArgumentException.class,
                () -> DelayRelay.Options.parse("--listen", "127.0.0.1", "--target", "127.0.0.1:2", "--delay-ms", "1"));
        assertThrows(IllegalArgumentException.class, () -> DelayRelay.Options.parse(
                "--listen", "127.0.0.1:1", "--target", "127.0.0.1:2", "--delay-ms", "fast"));
    }

    /** Names of the live threads of this relay. */
    private static List<String> relayThreads(DelayRelay relay) {
        String prefix = "delay-relay-" + relay.port() + "-";
        return Thread.getAllStackTraces().keySet().stream()
                .map(Thread::getName)
                .filter(name -> name.startsWith(prefix))
                .sorted()
                .toList();
    }

    private static Socket connect(DelayRelay relay) throws IOException {
        Socket s = new Socket();
        s.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), relay.port()), 2000);
        s.setTcpNoDelay(true);
        return s;
    }

    /** Connects a client through the relay, sends "bye" and closes it; returns the target's end of that connection. */
    private static Socket acceptAfter(ServerSocket target, DelayRelay relay) throws IOException {
        try (Socket client = connect(relay)) {
            client.getOutputStream().write("bye".getBytes(StandardCharsets.US_ASCII));
        }
        return target.accept();
    }

    private static ServerSocket listen() throws IOException {
        ServerSocket s = new ServerSocket();
        s.bind(LOOPBACK_ANY_PORT);
        return s;
    }

    private static InetSocketAddress address(ServerSocket s) {
        return new InetSocketAddress(InetAddress.getLoopbackAddress(), s.getLocalPort());
    }

    /** Echoes every byte back on each accepted connection; half-closes after the client's end of stream. */
    private static final class EchoServer implements AutoCloseable {
        private final ServerSocket server;
        private final ExecutorService threads = Executors.newCachedThreadPool(r -> {
            Thread t = new Thread(r, "relay-test-echo");
            t.setDaemon(true);
            return t;
        });
        private final List<Socket> accepted = new ArrayList<>();

        private EchoServer(ServerSocket server) {
            this.server = server;
        }

        static EchoServer start() throws IOException {
            EchoServer echo = new EchoServer(listen());
            echo.threads.submit(echo::acceptLoop);
            return echo;
        }

        InetSocketAddress address() {
            return DelayRelayTest.address(server);
        }

        private Void acceptLoop() throws IOException {
            while (!server.isClosed()) {
                Socket s = server.accept();
                synchronized (accepted) {
                    accepted.add(s);
                }
                threads.submit(() -> {
                    s.getInputStream().transferTo(s.getOutputStream());
                    s.shutdownOutput();
                    return null;
                });
            }
            return null;
        }

        @Override
        public void close() throws IOException {
            server.close();
            synchronized (accepted) {
                for (Socket s : accepted) {
                    s.close();
                }
            }
            threads.shutdownNow();
        }
    }
}
