package org.sipcrypt.lab.runner;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * A lab process for {@link ChildProcessesIT}: starts a server under test, prints its PID and waits
 * to be stopped (at most 60 s).
 * Threading: the main thread only.
 */
public final class ServerKeeper {

    private ServerKeeper() {
    }

    public static void main(String[] args) throws Exception {
        ServerProcess server = ServerProcess.start(Path.of(args[0]), List.of("-Xmx256m"),
                List.of("--listen", "udp:127.0.0.1:0", "--data-dir", Path.of(args[0], "data").toString()),
                Duration.ofSeconds(60));
        System.out.println("server pid " + server.pid());
        System.out.flush();
        Thread.sleep(60_000);
    }
}
