package org.sipcrypt.server.testing;

import java.io.IOException;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.sipcrypt.server.SipcryptServer;
import org.sipcrypt.server.transport.Transport;

/**
 * A fresh {@link TestServer} for every test of a class, with the class's settings and those of the
 * test's {@link Settings}, in a temporary data directory of its own: started before the test's
 * {@code @BeforeEach} methods, closed (which checks that no connection is left open) after its
 * {@code @AfterEach} methods, the directory then deleted.
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

    /**
     * Settings of the server one test starts with, after the class's: pairs of key and value, as
     * {@link TestServer#start(Path, String...)} takes them (a key given in both becomes a list).
     */
    @Target(ElementType.METHOD)
    @Retention(RetentionPolicy.RUNTIME)
    public @interface Settings {
        String[] value();
    }

    @Override
    public void beforeEach(ExtensionContext context) throws Exception {
        List<String> all = new ArrayList<>(List.of(settings));
        context.getTestMethod().map(m -> m.getAnnotation(Settings.class))
                .ifPresent(s -> all.addAll(List.of(s.value())));
        dir = Files.createTempDirectory("sipcrypt-it");
        server = TestServer.start(dir, all.toArray(new String[0]));
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
