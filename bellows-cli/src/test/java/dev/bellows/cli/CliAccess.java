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

    /** The same, working in {@code directory}, with no environment and no terminal. */
    public static CommandLine commandLine(InputStream in, OutputStream out, OutputStream err, java.nio.file.Path directory) {
        return BellowsCommand.commandLine(in, out, err, false, new Host(java.util.Map.of(), directory, Interrupts.NONE, false));
    }
}
