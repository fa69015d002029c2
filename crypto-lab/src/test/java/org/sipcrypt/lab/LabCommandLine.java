package org.sipcrypt.lab;

import java.io.PrintWriter;
import java.io.StringWriter;
import picocli.CommandLine;

/**
 * The lab's command line run in the test's JVM, its standard output and error both into one writer.
 * Threading: the calling test's thread only.
 */
public final class LabCommandLine {

    private LabCommandLine() {
    }

    /** Runs {@code args} as the lab's command line and returns its exit code; what it prints goes to {@code out}. */
    public static int run(StringWriter out, String... args) {
        CommandLine cl = LabMain.commandLine();
        cl.setOut(new PrintWriter(out));
        cl.setErr(new PrintWriter(out));
        return cl.execute(args);
    }
}
