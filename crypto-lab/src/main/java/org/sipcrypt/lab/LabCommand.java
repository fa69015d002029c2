package org.sipcrypt.lab;

import java.io.PrintWriter;
import java.util.concurrent.Callable;
import picocli.CommandLine;

/**
 * The base of the lab's subcommands: the picocli spec of the command being run, its output and
 * error writers, and the usage error (exit code 2, picocli prints the message and the usage) that
 * a bad argument becomes.
 * Threading: the main thread only.
 */
abstract class LabCommand implements Callable<Integer> {

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    /** A usage error saying {@code message}. */
    final CommandLine.ParameterException badArgument(String message) {
        return new CommandLine.ParameterException(spec.commandLine(), message);
    }

    /** A usage error saying {@code message}, caused by {@code cause}. */
    final CommandLine.ParameterException badArgument(String message, Throwable cause) {
        return new CommandLine.ParameterException(spec.commandLine(), message, cause);
    }

    /** Where the command's results go. */
    final PrintWriter out() {
        return spec.commandLine().getOut();
    }

    /** Where the command's complaints go. */
    final PrintWriter err() {
        return spec.commandLine().getErr();
    }
}
