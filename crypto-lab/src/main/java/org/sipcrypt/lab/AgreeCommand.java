package org.sipcrypt.lab;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;
import org.sipcrypt.lab.report.JsonExport;
import org.sipcrypt.lab.report.RunAgreement;
import org.sipcrypt.lab.runner.Study;
import org.sipcrypt.lab.store.ResultStore;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code agree FIRST SECOND}: whether a second run of the lab agrees with the first ({@link RunAgreement}),
 * each run a {@code results.json}, a directory holding one, or study IDs in the lab database. Prints
 * the comparison as Markdown. Exit codes: 0 the rank orders are the same and every figure of the
 * second run lies inside the first run's interval, 1 either does not hold, 2 bad input (an argument
 * that names neither a results file nor stored studies, a malformed file, a run with two studies of
 * one scenario and combination).
 * Threading: the main thread only.
 */
@Command(name = "agree", mixinStandardHelpOptions = true,
        description = "Whether a second run agrees with the first: per study (scenario and handshake combination)"
                + " the same rank order of the ciphers, and each figure of the second run inside the first run's"
                + " 95 %% interval. Exit 0 both hold, 1 either does not, 2 bad input.")
final class AgreeCommand extends LabCommand {

    /** Study IDs as {@code report} takes them, one argument: {@code 3}, {@code 3,4,5} or {@code 3+4+5}. */
    private static final Pattern IDS = Pattern.compile("\\d+([,+]\\d+)*");

    @CommandLine.Mixin
    DatabaseOptions db = new DatabaseOptions();

    @Parameters(index = "0", paramLabel = "FIRST",
            description = "The first run: a results.json written by compare, a directory holding one, or study IDs"
                    + " in --db (3,4,5).")
    String first;

    @Parameters(index = "1", paramLabel = "SECOND", description = "The second run, the same way.")
    String second;

    @Option(names = "--out", paramLabel = "FILE", description = "Write the Markdown to FILE too.")
    Path out;

    @Override
    public Integer call() {
        PrintWriter err = err();
        RunAgreement agreement;
        try {
            agreement = RunAgreement.of(read("FIRST", first), read("SECOND", second));
        } catch (IOException | IllegalArgumentException e) {
            err.println("agree: " + e.getMessage());
            err.flush();
            return 2;
        }
        String md = agreement.markdown(first, second);
        PrintWriter o = out();
        o.print(md);
        o.flush();
        if (out != null) {
            try {
                RunAgreement.write(out, md);
            } catch (IOException e) {
                err.println("agree: cannot write " + out + ": " + e.getMessage());
                err.flush();
                return 2;
            }
        }
        return agreement.agrees() ? 0 : 1;
    }

    /**
     * The studies of one run: a results file, a directory holding one, or study IDs (when no file of
     * that name exists).
     *
     * @throws IOException naming the argument and what is wrong with it
     */
    private List<Study> read(String label, String arg) throws IOException {
        Path path;
        try {
            path = Path.of(arg);
        } catch (InvalidPathException e) {
            throw new IOException(label + ": \"" + arg + "\" is not a path: " + e.getMessage(), e);
        }
        if (!Files.exists(path) && IDS.matcher(arg).matches()) {
            return stored(label, arg);
        }
        Path file = path;
        if (Files.isDirectory(path)) {
            file = path.resolve(JsonExport.FILE_NAME);
            if (!Files.isRegularFile(file)) {
                throw new IOException(label + ": " + path + " holds no " + JsonExport.FILE_NAME);
            }
        } else if (!Files.exists(path)) {
            throw new IOException(label + ": " + arg + ": no such file or directory, nor study IDs (3,4,5)");
        }
        List<Study> studies = JsonExport.read(file);
        if (studies.isEmpty()) {
            throw new IOException(label + ": " + file + ": no studies in it");
        }
        return studies;
    }

    private List<Study> stored(String label, String ids) throws IOException {
        List<Study> studies = new ArrayList<>();
        try (ResultStore store = db.open()) {
            for (String id : ids.split("[,+]")) {
                Optional<Study> s;
                try {
                    s = store.load(Long.parseLong(id));
                } catch (NumberFormatException e) {
                    throw new IOException(label + ": study ID " + id + " is out of range", e);
                }
                studies.add(s.orElseThrow(() -> new IOException(label + ": no study " + id + " in " + store.url())));
            }
        }
        return studies;
    }
}
