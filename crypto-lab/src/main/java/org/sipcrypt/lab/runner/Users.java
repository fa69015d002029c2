package org.sipcrypt.lab.runner;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import org.sipcrypt.lab.scenario.Scenario;
import org.sipcrypt.server.cli.UsersCommand;
import picocli.CommandLine;

/**
 * Provisions the subscribers of a scenario: {@code user1..userN} with passwords {@code pass1..passN}
 * in the realm {@code lab.test}, written by the server's own {@code users generate} into the
 * database of the server about to start (its embedded H2 file is free before the start), and as
 * the subscriber file the generator reads ({@code users.csv}, SIPp's injection format).
 * Threading: caller's thread; writes files.
 */
final class Users {

    private Users() {
    }

    /**
     * Writes the subscribers for a bench whose server keeps its data under {@code dir/data}.
     *
     * @return the subscriber file
     */
    static Path provision(Scenario s, Path dir) throws IOException {
        Files.createDirectories(dir);
        Path csv = dir.resolve("users.csv");
        StringWriter err = new StringWriter();
        CommandLine cl = new CommandLine(new UsersCommand());
        cl.setErr(new PrintWriter(err));
        cl.setOut(new PrintWriter(new StringWriter()));
        int rc = cl.execute("--data-dir", dir.resolve("data").toString(), "--realm", Bench.DOMAIN, "generate",
                "--count", Integer.toString(s.users()), "--csv", csv.toString());
        if (rc != 0) {
            throw new IOException("cannot provision " + s.users() + " subscribers in " + dir + ": " + err.toString().strip());
        }
        return csv;
    }
}
