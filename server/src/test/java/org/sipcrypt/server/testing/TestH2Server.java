package org.sipcrypt.server.testing;

import java.nio.file.Path;
import java.sql.SQLException;
import org.h2.tools.Server;

/**
 * H2 in server mode for tests of a database outage: a TCP server on a free loopback port, its files
 * in a directory of the test's, stopped and started again on the same port with the same data.
 * H2 takes the address it binds from the JVM-wide system property {@code h2.bindAddress}; it is set
 * to 127.0.0.1 here, the one place, before each server starts. Closing it stops the server.
 * Threading: one test thread.
 */
public final class TestH2Server implements RestartableDatabase {

    private final Path dir;
    private final int port;
    private Server server;

    private TestH2Server(Path dir, Server server) {
        this.dir = dir;
        this.server = server;
        this.port = server.getPort();
    }

    /** Starts a server keeping its files in {@code dir}. */
    public static TestH2Server start(Path dir) throws SQLException {
        return new TestH2Server(dir, listen(dir, 0));
    }

    private static Server listen(Path dir, int port) throws SQLException {
        System.setProperty("h2.bindAddress", "127.0.0.1");
        return Server.createTcpServer("-tcpPort", Integer.toString(port), "-ifNotExists", "-baseDir", dir.toString())
                .start();
    }

    @Override
    public String url() {
        return "jdbc:h2:tcp://127.0.0.1:" + port + "/./sipcrypt";
    }

    @Override
    public void stop() {
        server.stop();
    }

    @Override
    public void startAgain() throws SQLException {
        server = listen(dir, port);
    }

    @Override
    public void close() {
        server.stop();
    }
}
