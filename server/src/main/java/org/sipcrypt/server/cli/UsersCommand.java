package org.sipcrypt.server.cli;

import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.IllegalFormatException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import org.sipcrypt.server.config.DigestAlgorithm;
import org.sipcrypt.server.config.ConfigException;
import org.sipcrypt.server.config.ConfigLoader;
import org.sipcrypt.server.config.ServerConfig;
import org.sipcrypt.server.location.Database;
import org.sipcrypt.server.location.EmbeddedDatabase;
import org.sipcrypt.server.location.Subscriber;
import org.sipcrypt.server.location.SubscriberStore;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.ScopeType;
import picocli.CommandLine.Spec;

/**
 * {@code users}: provisions digest subscribers in the database the server uses (the same
 * {@code --config}, {@code --data-dir}, {@code --db} and {@code --realm} as the server). Stores HA1
 * for MD5 and SHA-256, never the password. {@code generate} also writes a SIPp injection file
 * ({@code SEQUENTIAL}, then {@code userN;passN} per line) that the SIPp scenarios and the lab read.
 * Exit codes: 0 done, 1 the database failed or the user does not exist, 2 bad arguments.
 * Threading: main thread only.
 */
@Command(name = "users", mixinStandardHelpOptions = true,
        description = "Manage digest subscribers in the server's database.",
        subcommands = {UsersCommand.Add.class, UsersCommand.Remove.class, UsersCommand.Import.class,
                UsersCommand.Generate.class, UsersCommand.ListUsers.class})
public final class UsersCommand {

    static final int EXIT_FAILED = 1;
    static final int EXIT_USAGE = 2;

    @Option(names = "--config", paramLabel = "FILE", scope = ScopeType.INHERIT,
            description = "The server's configuration file: its data dir, db and realm are used.")
    Path configFile;

    @Option(names = "--data-dir", paramLabel = "DIR", scope = ScopeType.INHERIT,
            description = "Directory of the embedded database (as the server's --data-dir).")
    String dataDir;

    @Option(names = "--db", paramLabel = "JDBC-URL", scope = ScopeType.INHERIT,
            description = "JDBC URL of the database (as the server's --db).")
    String db;

    @Option(names = "--db-user", paramLabel = "USER", scope = ScopeType.INHERIT, description = "Database user.")
    String dbUser;

    @Option(names = "--db-password", paramLabel = "PASSWORD", scope = ScopeType.INHERIT,
            description = "Database password.")
    String dbPassword;

    @Option(names = "--realm", paramLabel = "NAME", scope = ScopeType.INHERIT,
            description = "Digest realm (as the server's --realm; default: the host of its first listener).")
    String realm;

    @Spec
    CommandSpec spec;

    /** Runs {@code action} against the store of the configured database and realm. */
    int withStore(CommandSpec sub, StoreAction action) {
        PrintWriter out = sub.commandLine().getOut();
        PrintWriter err = sub.commandLine().getErr();
        ServerConfig config;
        try {
            Map<String, List<String>> given = new LinkedHashMap<>();
            put(given, "dataDir", dataDir);
            put(given, "db", db);
            put(given, "db.user", dbUser);
            put(given, "db.password", dbPassword);
            put(given, "realm", realm);
            config = ConfigLoader.load(configFile, given);
        } catch (ConfigException e) {
            err.println("sipcrypt users: " + e.getMessage());
            return EXIT_USAGE;
        }
        try {
            // The same password logic as the server: the embedded database's generated password.
            try (Database database = EmbeddedDatabase.openConfigured(config.dbUrl(), config.dataDir(),
                    config.dbUser(), config.dbPassword(), 2)) {
                return action.run(new SubscriberStore(database.dataSource()), config.effectiveRealm(), out, err);
            }
        } catch (SQLException | IOException e) {
            err.println("sipcrypt users: " + e.getMessage());
            return EXIT_FAILED;
        }
    }

    private static void put(Map<String, List<String>> given, String key, String value) {
        if (value != null) {
            given.put(key, List.of(value));
        }
    }

    /** The subscriber for a clear-text password: HA1 for every algorithm, the password dropped. */
    static Subscriber subscriber(String username, String realm, String password, boolean enabled) {
        return new Subscriber(username, realm, DigestAlgorithm.MD5.ha1(username, realm, password),
                DigestAlgorithm.SHA_256.ha1(username, realm, password), enabled);
    }

    /** Stores {@code NAME, PASSWORD} rows as enabled subscribers of {@code realm}; returns how many were new. */
    static int putAll(SubscriberStore store, String realm, List<String[]> rows) throws SQLException {
        List<Subscriber> subscribers = new ArrayList<>(rows.size());
        for (String[] r : rows) {
            subscribers.add(subscriber(r[0], realm, r[1], true));
        }
        return store.putAll(subscribers);
    }

    /** Work on the store; returns the exit code. */
    @FunctionalInterface
    interface StoreAction {
        int run(SubscriberStore store, String realm, PrintWriter out, PrintWriter err) throws SQLException, IOException;
    }

    /**
     * What every subcommand has: the parent's database options, its own command line, and the
     * way it reports bad arguments.
     * Threading: main thread only.
     */
    abstract static class Subcommand implements Callable<Integer> {
        @ParentCommand
        UsersCommand parent;
        @Spec
        CommandSpec spec;

        /** Runs {@code action} against the store of the configured database and realm. */
        int withStore(StoreAction action) {
            return parent.withStore(spec, action);
        }

        /** Prints {@code message} on standard error; returns the usage exit code. */
        int usage(String message) {
            spec.commandLine().getErr().println("sipcrypt users: " + message);
            return EXIT_USAGE;
        }
    }

    /** {@code users add NAME PASSWORD}. */
    @Command(name = "add", mixinStandardHelpOptions = true,
            description = "Add a subscriber, or replace its password. PASSWORD - reads it from standard input.")
    static final class Add extends Subcommand {
        @Parameters(index = "0", paramLabel = "NAME")
        String name;
        @Parameters(index = "1", paramLabel = "PASSWORD")
        String password;
        @Option(names = "--disabled", description = "Store the subscriber disabled: refused like an unknown user.")
        boolean disabled;

        @Override
        public Integer call() throws IOException {
            String pw = "-".equals(password)
                    ? new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)).readLine()
                    : password;
            if (pw == null) {
                return usage("no password on standard input");
            }
            if (name.isEmpty() || name.length() > SubscriberStore.MAX_NAME_LENGTH) {
                return usage("NAME must be 1 to " + SubscriberStore.MAX_NAME_LENGTH + " characters");
            }
            return withStore((store, realm, out, err) -> {
                boolean added = store.put(subscriber(name, realm, pw, !disabled));
                out.println((added ? "added " : "updated ") + name + " in realm " + realm);
                return 0;
            });
        }
    }

    /** {@code users remove NAME}. */
    @Command(name = "remove", mixinStandardHelpOptions = true, description = "Remove a subscriber.")
    static final class Remove extends Subcommand {
        @Parameters(index = "0", paramLabel = "NAME")
        String name;

        @Override
        public Integer call() {
            return withStore((store, realm, out, err) -> {
                if (!store.remove(realm, name)) {
                    err.println("sipcrypt users: no subscriber " + name + " in realm " + realm);
                    return EXIT_FAILED;
                }
                out.println("removed " + name + " from realm " + realm);
                return 0;
            });
        }
    }

    /** {@code users import FILE}: {@code name;password} or {@code name,password} per line. */
    @Command(name = "import", mixinStandardHelpOptions = true,
            description = {"Add or replace subscribers from a file of NAME;PASSWORD (or NAME,PASSWORD) lines.",
                    "A first line SEQUENTIAL, RANDOM or USER (a SIPp injection file), blank lines and"
                            + " lines starting with # are skipped."})
    static final class Import extends Subcommand {
        @Parameters(index = "0", paramLabel = "FILE")
        Path file;

        @Override
        public Integer call() {
            List<String[]> rows = new ArrayList<>();
            try {
                List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
                for (int i = 0; i < lines.size(); i++) {
                    String line = lines.get(i).strip();
                    if (line.isEmpty() || line.startsWith("#")
                            || i == 0 && line.matches("(?i)SEQUENTIAL|RANDOM|USER")) {
                        continue;
                    }
                    String[] cols = line.split("[;,]", -1);
                    if (cols.length < 2 || cols[0].isEmpty()) {
                        return usage(file + " line " + (i + 1) + ": expected NAME;PASSWORD");
                    }
                    rows.add(new String[] {cols[0], cols[1]});
                }
            } catch (IOException e) {
                return usage("cannot read " + file + ": " + e);
            }
            return withStore((store, realm, out, err) -> {
                int added = putAll(store, realm, rows);
                out.println("imported " + rows.size() + " subscribers into realm " + realm + " (" + added
                        + " new)");
                return 0;
            });
        }
    }

    /** {@code users generate --count N}: user1..userN, and the SIPp injection file. */
    @Command(name = "generate", mixinStandardHelpOptions = true,
            description = "Create numbered subscribers and write them as a SIPp injection file.")
    static final class Generate extends Subcommand {
        @Option(names = "--count", required = true, paramLabel = "N", description = "How many subscribers.")
        int count;
        @Option(names = "--first", paramLabel = "N", defaultValue = "1", description = "First number (default: 1).")
        int first;
        @Option(names = "--user-pattern", paramLabel = "PATTERN", defaultValue = "user%d",
                description = "User names, %%d the number (default: user%%d).")
        String userPattern;
        @Option(names = "--password-pattern", paramLabel = "PATTERN", defaultValue = "pass%d",
                description = "Passwords, %%d the number (default: pass%%d).")
        String passwordPattern;
        @Option(names = "--csv", paramLabel = "FILE",
                description = "Write SEQUENTIAL and then NAME;PASSWORD per line, for SIPp's -inf.")
        Path csv;

        @Override
        public Integer call() {
            if (count < 1 || count > 10_000_000 || first < 0) {
                return usage("--count must be 1 to 10000000 and --first at least 0");
            }
            List<String[]> rows = new ArrayList<>(count);
            try {
                for (int i = first; i < first + count; i++) {
                    rows.add(new String[] {String.format(Locale.ROOT, userPattern, i),
                            String.format(Locale.ROOT, passwordPattern, i)});
                }
            } catch (IllegalFormatException e) {
                return usage("bad pattern: " + e.getMessage() + " (expected e.g. user%d)");
            }
            return withStore((store, realm, out, e) -> {
                int added = putAll(store, realm, rows);
                if (csv != null) {
                    try (BufferedWriter w = Files.newBufferedWriter(csv, StandardCharsets.UTF_8)) {
                        w.write("SEQUENTIAL\n");
                        for (String[] r : rows) {
                            w.write(r[0] + ";" + r[1] + "\n");
                        }
                    }
                }
                out.println("generated " + count + " subscribers in realm " + realm + " (" + added + " new)"
                        + (csv != null ? "; SIPp injection file " + csv : ""));
                return 0;
            });
        }
    }

    /** {@code users list}. */
    @Command(name = "list", mixinStandardHelpOptions = true, description = "List the subscribers of the realm.")
    static final class ListUsers extends Subcommand {

        @Override
        public Integer call() {
            return withStore((store, realm, out, err) -> {
                List<Subscriber> all = store.list(realm);
                for (Subscriber s : all) {
                    out.println(s.username() + (s.enabled() ? "" : " (disabled)"));
                }
                err.println(all.size() + " subscribers in realm " + realm);
                return 0;
            });
        }
    }
}
