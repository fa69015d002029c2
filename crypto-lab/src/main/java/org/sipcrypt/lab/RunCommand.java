package org.sipcrypt.lab;

import java.io.IOException;
import java.util.List;
import org.sipcrypt.lab.scenario.ScenarioFiles;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code run}: runs one scenario file as it stands (its ciphers, rate, repetitions), with the same
 * overrides, storage and reports as {@code compare}. Exit codes as {@code compare}.
 * Threading: the main thread only.
 */
@Command(name = "run", mixinStandardHelpOptions = true,
        description = "Run a scenario file (or preset) as it says: its ciphers, load and repetitions.")
final class RunCommand extends LabCommand {

    @Parameters(index = "0", paramLabel = "SCENARIO_FILE", description = "A scenario YAML file or a preset name.")
    String scenario;

    @Option(names = "--ciphers", split = ",", paramLabel = "LIST", description = "Override the file's cipher list.")
    List<String> ciphers;

    @CommandLine.Mixin
    CompareCommand.RunOptions run = new CompareCommand.RunOptions();

    @Override
    public Integer call() throws Exception {
        try {
            return run.execute(this, List.of(run.apply(ScenarioFiles.load(scenario))), ciphers);
        } catch (IllegalArgumentException | IOException e) {
            if (e instanceof IOException && !e.getMessage().startsWith("no scenario")) {
                throw e;
            }
            throw badArgument(e.getMessage(), e);
        }
    }
}
