package org.sipcrypt.lab;

import java.io.IOException;
import org.sipcrypt.lab.store.ResultStore;
import picocli.CommandLine.Option;

/**
 * The lab database options that {@code compare}, {@code run}, {@code report} and {@code list}
 * share ({@code --db}, {@code --db-user}, {@code --db-password}), as a picocli mixin.
 * Threading: the main thread only.
 */
final class DatabaseOptions {

    @Option(names = "--db", paramLabel = "JDBC-URL", defaultValue = ResultStore.DEFAULT_URL,
            description = "The lab database (default: ${DEFAULT-VALUE}).")
    String url;

    @Option(names = "--db-user", paramLabel = "USER", defaultValue = ResultStore.DEFAULT_USER,
            description = "Lab database user (default: ${DEFAULT-VALUE}).")
    String user;

    @Option(names = "--db-password", paramLabel = "PASSWORD", defaultValue = "", description = "Lab database password.")
    String password;

    /** Opens the lab database. */
    ResultStore open() throws IOException {
        return ResultStore.open(url, user, password);
    }
}
