package dev.bellows.cli;

import dev.bellows.eval.report.EvalReports;
import dev.bellows.eval.report.InvalidReportException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

/**
 * {@code bellows eval report FILE}: writes the HTML page of an evaluation's report.json again
 * ({@code report.html} beside it, from the report and its runs' events files) and prints the
 * page's path. It opens nothing itself: the machine may have no screen.
 */
@Command(name = "report",
        mixinStandardHelpOptions = true,
        versionProvider = BellowsCommand.Version.class,
        description = {"Writes the HTML page of a report (report.html beside the report.json, with each run's"
                + " transcript from its events file) and prints its path; opens nothing."},
        exitCodeListHeading = "%nExit status:%n",
        exitCodeList = {
                "0:the page was written",
                "1:the page could not be written",
                "2:the report file is missing, unreadable or not a report (the file and field named)"})
final class EvalReportCommand implements Callable<Integer> {

    @ParentCommand
    EvalCommand parent;

    @Spec
    CommandSpec spec;

    @Parameters(paramLabel = "FILE", description = "A report.json (bellows eval --out DIR writes DIR/report.json), or the folder that holds one.")
    String file;

    @Override
    public Integer call() {
        BellowsCommand root = parent.root;
        Path report = root.host.workingDirectory().resolve(file);
        if (Files.isDirectory(report)) {
            report = report.resolve("report.json");
        }
        Path page;
        try {
            page = EvalReports.writeHtml(report);
        } catch (InvalidReportException e) {
            return fail(root, e.getMessage(), 2);
        } catch (IOException e) {
            return fail(root, "cannot write " + report.resolveSibling(EvalReports.HTML) + ": " + e.getMessage(), 1);
        }
        try {
            root.stdout.write((page.toAbsolutePath().normalize() + "\n").getBytes(StandardCharsets.UTF_8));
            root.stdout.flush();
        } catch (IOException e) {
            return fail(root, "standard output: " + e.getMessage(), 1);
        }
        return 0;
    }

    private int fail(BellowsCommand root, String message, int status) {
        root.stderr.println(spec.qualifiedName() + ": " + BellowsCommand.oneLine(message));
        root.stderr.flush();
        return status;
    }
}
