package dev.bellows.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

/** {@code bellows help}, suggestions for mistyped commands, and help text that reads whole. */
class HelpTest {

    private static final List<String> COMMANDS = List.of("run", "parse", "mock-server", "demo", "help");

    @Test
    void helpListsTheCommandsAndHelpForOneIsItsHelp() {
        Cli.Run help = Cli.run("", "help");
        assertThat(help.status()).isZero();
        assertThat(help.out()).startsWith("Usage: bellows ").contains("Commands:");
        COMMANDS.forEach(command -> assertThat(help.out()).contains("  " + command + " "));
        Cli.Run run = Cli.run("", "help", "run");
        assertThat(run.status()).isZero();
        assertThat(run.out()).isEqualTo(Cli.run("", "run", "--help").out());
    }

    @ParameterizedTest
    @CsvSource({"hlep, help", "rnu, run", "rum, run", "mock, mock-server", "mock-sever, mock-server", "parce, parse",
            "dmeo, demo"})
    void aMistypedCommandGetsTheRightOne(String typed, String meant) {
        Cli.Run run = Cli.run("", typed);
        assertThat(run.status()).isEqualTo(2);
        assertThat(run.err()).isEqualTo("bellows: unknown command '" + typed + "'; did you mean '" + meant
                + "'? (see 'bellows --help')\n");
    }

    @Test
    void helpForAMistypedCommandGetsTheRightOne() {
        Cli.Run run = Cli.run("", "help", "rnu");
        assertThat(run.status()).isEqualTo(2);
        assertThat(run.err()).isEqualTo("bellows: unknown command 'rnu'; did you mean 'run'? (see 'bellows --help')\n");
    }

    @Test
    void aWordFarFromEveryCommandGetsNoSuggestion() {
        assertThat(Cli.run("", "zebra").err()).isEqualTo("bellows: unknown command 'zebra' (see 'bellows --help')\n");
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "run", "chat", "tools", "sessions", "sessions show", "sessions delete", "parse",
            "mock-server", "demo"})
    void helpTextHasNoBrokenWraps(String command) {
        List<String> arguments = new java.util.ArrayList<>(command.isEmpty() ? List.of() : List.of(command.split(" ")));
        arguments.add("--help");
        Cli.Run run = Cli.run("", arguments.toArray(String[]::new));
        assertThat(run.status()).isZero();
        for (String line : run.out().lines().toList()) {
            assertThat(line.length()).as("width of: %s", line).isLessThanOrEqualTo(80);
            assertThat(line).as("a URL cut in two: %s", line).doesNotMatch(".*https?:\\s*$");
            assertThat(line).as("a synopsis cut inside a label: %s", line).doesNotEndWith("[,");
            assertThat(line).as("a path cut in two: %s", line).doesNotMatch(".*[~/]\\.$");
        }
        if (command.isEmpty()) {
            // Each command's summary (its first description line, which picocli lists) is a whole sentence.
            String list = run.out().substring(run.out().indexOf("Commands:") + "Commands:".length(),
                    run.out().indexOf("Exit status:")).strip();
            for (String summary : list.split("\n(?=  [a-z])")) {
                assertThat(summary.strip().replaceAll("\\s+", " ")).as("summary").endsWith(".");
            }
        }
    }
}
