package org.sipcrypt.server.testing;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.sipcrypt.server.SipcryptServer;
import org.sipcrypt.server.transport.Transport;

/**
 * A fresh {@link TestServer} for every test of a class, with the same settings, in a temporary data
 * directory of its own: started before the test's {@code @BeforeEach} methods, closed (which checks
 * that no connection is left open) after its {@code @AfterEach} methods, the directory then deleted.
 * {@code @RegisterExtension final ServerPerTest server = new ServerPerTest("sip.maxMessageBytes", "4096");}
 * Threading: JUnit's calls and the test thread only.
 */
public final class ServerPerTest implements BeforeEachCallback, AfterEachCallback {

    private final String[] settings;
    private Path dir;
    private TestServer server;

    /** @param settings pairs of configuration key and value, as {@link TestServer#start(Path, String...)} takes them */
    public ServerPerTest(String... settings) {
        this.settings = settings.clone();
    }

    @Override
    public void beforeEach(ExtensionContext context) throws Exception {
        dir = Files.createTempDirectory("sipcrypt-it");
        server = TestServer.start(dir, settings);
    }

    @Override
    public void afterEach(ExtensionContext context) throws IOException {
        try {
            if (server != null) {
                server.close();
            }
        } finally {
            server = null;
            FileTrees.delete(dir);
        }
    }

    private TestServer started() {
        if (server == null) {
            throw new IllegalStateException("no server: used outside a test");
        }
        return server;
    }

    /** The running server. */
    public SipcryptServer server() {
        return started().server();
    }

    /** The address of a transport's listener. */
    public InetSocketAddress address(Transport t) {
        return started().address(t);
    }

    /** {@code 127.0.0.1:port} of a transport's listener. */
    public String hostPort(Transport t) {
        return started().hostPort(t);
    }
}
