package dev.bellows.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;

/**
 * docs/cli.md names every command, subcommand and option the program has, so the reference
 * cannot fall behind the code: a new option fails this test until it is documented.
 */
class CliReferenceTest {

    @Test
    void everyCommandAndOptionIsDocumented() throws IOException {
        String reference = Files.readString(Path.of("").toAbsolutePath().getParent().resolve("docs/cli.md"));
        CommandLine root = dev.bellows.cli.CliAccess.commandLine(new ByteArrayInputStream(new byte[0]),
                new ByteArrayOutputStream(), new ByteArrayOutputStream());
        List<String> missing = new ArrayList<>();
        collect(root.getCommandSpec(), reference, missing);
        assertThat(missing).as("commands and options missing from docs/cli.md").isEmpty();
    }

    private static void collect(CommandSpec command, String reference, List<String> missing) {
        String name = command.qualifiedName(" ");
        if (!command.name().equals("help") && !reference.contains(name)) {
            missing.add(name);
        }
        for (OptionSpec option : command.options()) {
            if (option.usageHelp() || option.versionHelp()) {
                continue;
            }
            if (!reference.contains(option.longestName())) {
                missing.add(name + " " + option.longestName());
            }
        }
        for (CommandLine sub : command.subcommands().values()) {
            if (!sub.getCommandSpec().name().equals("help")) {
                collect(sub.getCommandSpec(), reference, missing);
            }
        }
    }
}
