package dev.bellows.cli;

import picocli.CommandLine.Command;
import picocli.CommandLine.ParentCommand;

/**
 * {@code bellows eval}: evaluations of an agent (docs/cli.md, "Evaluations"). For now it holds
 * {@code report FILE}, which reopens a report; running a dataset ({@code bellows eval
 * DATASET}) is added to this command by the runner's side.
 */
@Command(name = "eval",
        mixinStandardHelpOptions = true,
        versionProvider = BellowsCommand.Version.class,
        description = "Evaluations of an agent: report FILE reopens a report.json as its HTML page.",
        subcommands = {EvalReportCommand.class},
        exitCodeListHeading = "%nExit status:%n",
        exitCodeList = {
                "0:done",
                "1:the report could not be written",
                "2:usage error: a bad option, or a report file that is missing or not a report (the file named)"})
final class EvalCommand {

    @ParentCommand
    BellowsCommand root;
}
