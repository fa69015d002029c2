package org.sipcrypt.server;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import org.sipcrypt.server.cli.CertsCommand;
import org.sipcrypt.server.cli.UsersCommand;
import org.sipcrypt.server.config.ConfigException;
import org.sipcrypt.server.config.ConfigSource;
import org.sipcrypt.server.config.ConfigLoader;
import org.sipcrypt.server.config.Setting;
import org.sipcrypt.server.config.ServerConfig;
import org.sipcrypt.server.location.DatabaseUnreachableException;
import org.sipcrypt.server.transport.netty.tls.TlsEngineUnavailableException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.ParseResult;
import picocli.CommandLine.UnmatchedArgumentException;

/**
 * The command-line entry point: {@code java -jar sipcrypt-server.jar [options]}. Its options are
 * built from {@link ConfigLoader#settings()}, one per setting, plus {@code --config FILE},
 * {@code --help} and {@code --version}; subcommands are added in {@link #commandLine}. Bad options
 * or configuration print {@code sipcrypt: <message>} to stderr and exit with code 2; a server that
 * fails to start exits with 1 (a database that cannot be reached, or a TLS engine whose native
 * library did not load, is one ERROR line naming it, its stack trace at DEBUG). Once started, the server runs until the JVM is asked to stop
 * (SIGTERM, Ctrl-C), when a shutdown hook closes it gracefully.
 * Threading: main thread only; the shutdown hook runs on {@code sipcrypt-shutdown}.
 */
public final class ServerMain {

    private static final Logger log = LoggerFactory.getLogger(ServerMain.class);

    /** Exit code for bad options or configuration. */
    static final int EXIT_USAGE = 2;
    /** Exit code for a server that could not start. */
    static final int EXIT_START_FAILED = 1;

    private static final String CONFIG_OPTION = "--config";

    /** What runs once the configuration is valid; returns the exit code. */
    @FunctionalInterface
    interface Launcher {
        int launch(ServerConfig config, ConfigSource source, PrintWriter err);
    }

    private ServerMain() {
    }

    public static void main(String... args) {
        int code = run(args);
        if (code != 0) {
            System.exit(code);
        }
    }

    /** Runs the command line against stdout and stderr; returns the exit code. */
    static int run(String... args) {
        return run(new PrintWriter(System.out, true), new PrintWriter(System.err, true), ServerMain::serve, args);
    }

    /**
     * Runs the command line; returns the exit code instead of exiting.
     *
     * @param launcher what to do with a valid configuration ({@link #serve} in production)
     */
    static int run(PrintWriter out, PrintWriter err, Launcher launcher, String... args) {
        CommandLine cl = commandLine(launcher);
        cl.setOut(out);
        cl.setErr(err);
        int code = cl.execute(args);
        out.flush();
        err.flush();
        return code;
    }

    /** The command with one option per setting; subcommands ({@code users}, {@code certs}) attach here. */
    static CommandLine commandLine(Launcher launcher) {
        ServeCommand serve = new ServeCommand(launcher);
        CommandSpec spec = CommandSpec.wrapWithoutInspection(serve);
        spec.name("sipcrypt-server")
                .version(version())
                .mixinStandardHelpOptions(true);
        spec.usageMessage()
                .description("SIP registrar, stateful proxy and redirect server.",
                        "Every option is also a key in the configuration file (e.g. --tcp-idle-timeout is "
                                + "tcp.idleTimeout); options win over the file.")
                .abbreviateSynopsis(true)
                .sortOptions(false);
        spec.addOption(OptionSpec.builder(CONFIG_OPTION)
                .paramLabel("FILE")
                .type(Path.class)
                .description("Configuration file: .properties, .yaml or .yml.")
                .build());
        for (Setting s : ConfigLoader.settings()) {
            OptionSpec.Builder option = OptionSpec.builder(s.option())
                    .paramLabel(s.paramLabel())
                    .description(s.description() + (s.repeatable() ? " Repeatable." : "")
                            + " (default: " + s.defaultText() + ")");
            if (s.repeatable()) {
                option.type(List.class).auxiliaryTypes(String.class).splitRegex(",");
            } else if (s.flag()) {
                option.type(String.class).arity("0..1").fallbackValue("true");
            } else {
                option.type(String.class);
            }
            spec.addOption(option.build());
        }
        serve.spec = spec;
        CommandLine cl = new CommandLine(spec);
        cl.addSubcommand(new CommandLine(new UsersCommand()));
        cl.addSubcommand(new CommandLine(new CertsCommand()));
        cl.setParameterExceptionHandler((ex, args) -> {
            PrintWriter err = ex.getCommandLine().getErr();
            err.println("sipcrypt: " + ex.getMessage());
            UnmatchedArgumentException.printSuggestions(ex, err);
            err.println("Try --help for the options.");
            return EXIT_USAGE;
        });
        return cl;
    }

    /**
     * Starts the server, registers the shutdown hook that closes it, and blocks until that hook has
     * finished (returns 0 then) or the server was stopped through the management API (the JVM then
     * exits with 0, as after SIGTERM); 2 when a setting turns out bad only as the server starts (a
     * {@code routing.router} no router on the class path reports), or 1 when the server cannot start.
     */
    static int serve(ServerConfig config, ConfigSource source, PrintWriter err) {
        SipcryptServer server;
        try {
            server = SipcryptServer.start(config, java.time.Clock.systemUTC(), source);
        } catch (ConfigException e) {
            // found only once the server starts (a routing.router missing from the class path): as bad settings
            err.println("sipcrypt: " + e.getMessage());
            return EXIT_USAGE;
        } catch (DatabaseUnreachableException | TlsEngineUnavailableException e) {
            // The operator's to act on, and the message says what to check: one line, the trace at DEBUG.
            log.error("cannot start: {}", e.getMessage());
            log.debug("cannot start", e);
            return EXIT_START_FAILED;
        } catch (Exception e) {
            log.error("cannot start", e);
            err.println("sipcrypt: cannot start: " + (e.getMessage() != null ? e.getMessage() : e.toString()));
            return EXIT_START_FAILED;
        }
        CountDownLatch stopped = new CountDownLatch(1);
        // POST /admin/stop closes the server without the JVM shutting down
        server.whenStopped().thenRun(stopped::countDown);
        Thread hook = new Thread(() -> {
            try {
                server.close();
            } catch (RuntimeException e) {
                log.error("graceful shutdown failed", e);
            } finally {
                stopped.countDown();
            }
        }, "sipcrypt-shutdown");
        Runtime.getRuntime().addShutdownHook(hook);
        boolean interrupted = false;
        while (stopped.getCount() > 0) {
            try {
                stopped.await();
            } catch (InterruptedException e) {
                // only the shutdown hook ends the main thread's wait
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
        try {
            Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException e) {
            // the JVM is shutting down (SIGTERM): the hook closed the server
            return 0;
        }
        // stopped through the management API: end the process as SIGTERM would have
        log.info("stopped through the management API; exiting");
        System.exit(0);
        return 0;
    }

    /** The values given on the command line, by file key, in the order of the settings table. */
    static Map<String, List<String>> givenValues(ParseResult parsed) {
        Map<String, List<String>> given = new LinkedHashMap<>();
        for (Setting s : ConfigLoader.settings()) {
            OptionSpec option = parsed.matchedOption(s.option());
            if (option == null) {
                continue;
            }
            Object value = option.getValue();
            if (value instanceof List<?> list) {
                given.put(s.key(), list.stream().map(String::valueOf).toList());
            } else {
                given.put(s.key(), List.of(String.valueOf(value)));
            }
        }
        return given;
    }

    private static String version() {
        String v = ServerMain.class.getPackage().getImplementationVersion();
        return "sipcrypt-server " + (v != null ? v : "(development build)");
    }

    /** The default command: load the configuration, then hand it to the launcher. */
    private static final class ServeCommand implements Callable<Integer> {

        private final Launcher launcher;
        private CommandSpec spec;

        ServeCommand(Launcher launcher) {
            this.launcher = Objects.requireNonNull(launcher, "launcher");
        }

        @Override
        public Integer call() {
            ParseResult parsed = spec.commandLine().getParseResult();
            PrintWriter err = spec.commandLine().getErr();
            Path configFile = parsed.matchedOptionValue(CONFIG_OPTION, null);
            ServerConfig config;
            try {
                config = ConfigLoader.load(configFile, givenValues(parsed));
            } catch (ConfigException e) {
                err.println("sipcrypt: " + e.getMessage());
                return EXIT_USAGE;
            }
            return launcher.launch(config, new ConfigSource(configFile, givenValues(parsed)), err);
        }
    }
}
