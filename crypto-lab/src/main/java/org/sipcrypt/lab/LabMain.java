package org.sipcrypt.lab;

import io.netty.util.ResourceLeakDetector;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * The lab's command line: {@code compare} and {@code run} (scenarios over ciphers, stored and reported),
 * {@code report} and {@code list} (stored studies), {@code uac} and {@code uas} (each side of a call alone),
 * {@code collect} (runs of generators elsewhere, e.g. containers, as one study), {@code agree} (whether
 * a second run agrees with the first). Exit codes: 0 ok, 1 a failed run (for {@code agree}: the runs
 * disagree), 2 bad arguments.
 * Threading: the main thread only.
 */
@Command(name = "sipcrypt-lab", mixinStandardHelpOptions = true, version = "sipcrypt-lab 0.1.0",
        description = "The sipcrypt crypto lab: compares cipher suites for SIP over TLS by server CPU, throughput and call response time"
                + " per transport and cipher suite.",
        subcommands = {CompareCommand.class, RunCommand.class, ReportCommand.class, ListCommand.class, AgreeCommand.class,
            UacCommand.class, UasCommand.class, CollectCommand.class, UacServeCommand.class})
public final class LabMain implements Runnable {

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    /** Runs the command line and exits with its code, with Netty's leak detector off unless a property names its level. */
    public static void main(String[] args) {
        if (System.getProperty("io.netty.leakDetection.level") == null
                && System.getProperty("io.netty.leakDetectionLevel") == null) {
            // Netty's default tracks one buffer in 128 with a stack trace taken at its allocation: the
            // generator and the UAS allocate several per call, and their CPU is set against the
            // server's. Asked for by name (the tests run paranoid), the detector stays as asked.
            ResourceLeakDetector.setLevel(ResourceLeakDetector.Level.DISABLED);
        }
        System.exit(commandLine().execute(args));
    }

    /** The command line with the lab's exit codes (2 for bad arguments). */
    public static CommandLine commandLine() {
        CommandLine cl = new CommandLine(new LabMain());
        cl.setParameterExceptionHandler((e, a) -> {
            e.getCommandLine().getErr().println(e.getMessage());
            e.getCommandLine().usage(e.getCommandLine().getErr());
            return 2;
        });
        return cl;
    }

    @Override
    public void run() {
        throw new CommandLine.ParameterException(spec.commandLine(), "a command is needed: compare, run, report, list, agree, uac, uas or collect");
    }
}
