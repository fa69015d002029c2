package org.sipcrypt.lab;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Command;

/**
 * {@code uac-serve} (hidden, for {@code compare}'s generator processes): runs {@code uac} command
 * lines one after the other in this JVM, which so stays warm from one measured window to the next
 * instead of starting cold (class loading, the JIT compiler) for each. Each line of standard input is
 * a JSON object: {@code {"uac": [ARGUMENTS...], "done": FILE}}; when that run has ended, its exit code
 * is written to {@code FILE} (whole, by a rename), which is how the caller knows the run is over and
 * how it went. The end of standard input ends the command (exit 0); a line that is not such an object
 * ends it with exit 2.
 * Threading: the main thread only.
 */
@Command(name = "uac-serve", hidden = true,
        description = "Run uac command lines read from standard input, one JSON object {\"uac\": [ARGUMENTS...],"
                + " \"done\": FILE} per line, one after the other in this JVM; after each, write its exit code to FILE.")
final class UacServeCommand extends LabCommand {

    private static final ObjectMapper JSON = new ObjectMapper();

    @Override
    public Integer call() throws IOException {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        for (String line = in.readLine(); line != null; line = in.readLine()) {
            if (line.isBlank()) {
                continue;
            }
            JsonNode run;
            try {
                run = JSON.readTree(line);
            } catch (IOException e) {
                throw badArgument("uac-serve: not JSON: " + line, e);
            }
            if (!run.path("uac").isArray() || !run.path("done").isTextual()) {
                throw badArgument("uac-serve: expected {\"uac\": [ARGUMENTS...], \"done\": FILE}: " + line);
            }
            Path done = Path.of(run.get("done").asText());
            List<String> command = new ArrayList<>();
            command.add("uac");
            run.get("uac").forEach(a -> command.add(a.asText()));
            int exit = LabMain.commandLine().execute(command.toArray(String[]::new));
            // written whole, then renamed: the caller never reads half a code
            Path part = Path.of(done + ".part");
            Files.writeString(part, Integer.toString(exit), StandardCharsets.UTF_8);
            Files.move(part, done, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        }
        return 0;
    }
}
