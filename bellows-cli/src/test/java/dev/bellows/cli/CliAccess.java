package dev.bellows.cli;

import java.io.InputStream;
import java.io.OutputStream;
import picocli.CommandLine;

/** The program's command tree, for tests outside this package. */
public final class CliAccess {

    private CliAccess() {
    }

    public static CommandLine commandLine(InputStream in, OutputStream out, OutputStream err) {
        return BellowsCommand.commandLine(in, out, err, false);
    }
}
