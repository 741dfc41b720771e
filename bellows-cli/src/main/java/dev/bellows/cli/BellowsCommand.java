package dev.bellows.cli;

import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.util.Properties;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.IExecutionExceptionHandler;
import picocli.CommandLine.IParameterExceptionHandler;
import picocli.CommandLine.IVersionProvider;

/**
 * {@code bellows}: the root command. It runs nothing itself; it owns the standard streams
 * the subcommands use (so tests can give them their own) and turns every failure into one
 * line on standard error with the exit status of cli.md: 2 for usage errors, 1 for
 * anything unexpected.
 */
@Command(name = "bellows",
        mixinStandardHelpOptions = true,
        versionProvider = BellowsCommand.Version.class,
        description = "Streaming LLM agents: tag parsing while the model streams, tools, the agent loop.",
        subcommands = {RunCommand.class, ChatCommand.class, AgentsCommand.class, ToolsCommand.class, McpCommand.class, A2aCommand.class, SessionsCommand.class, ParseCommand.class,
                MockServerCommand.class, DemoCommand.class, ServeCommand.class, WorkerCommand.class,
                TemporalDevCommand.class, EvalCommand.class, CommandLine.HelpCommand.class},
        exitCodeListHeading = "%nExit status:%n",
        exitCodeList = {
                "0:success",
                "1:internal error, or standard input/output failed; for run: the loop stopped without an answer",
                "2:usage error: a bad option or bad input; one line on standard error says which",
                "130:run: cancelled (Ctrl-C)"})
public final class BellowsCommand {

    /** Standard input of the subcommands: raw bytes, decoded by each command. */
    final InputStream stdin;
    /** Standard output of the subcommands: raw bytes; commands write UTF-8 and flush. */
    final OutputStream stdout;
    /** Standard error, UTF-8. */
    final PrintWriter stderr;
    /** The environment, working directory, interrupts and terminal the subcommands see. */
    final Host host;

    private BellowsCommand(InputStream stdin, OutputStream stdout, PrintWriter stderr, Host host) {
        this.stdin = stdin;
        this.stdout = stdout;
        this.stderr = stderr;
        this.host = host;
    }

    public static void main(String[] args) {
        // The file descriptors themselves, not System.out: a PrintStream swallows write
        // errors, so a closed pipe would go unnoticed while the whole input is read.
        OutputStream out = new FileOutputStream(FileDescriptor.out);
        OutputStream err = new FileOutputStream(FileDescriptor.err);
        boolean debug = "1".equals(System.getenv("BELLOWS_DEBUG"));
        CliLogging.configure(debug);
        CommandLine commandLine = commandLine(System.in, out, err, debug, Host.system());
        int status;
        try {
            status = commandLine.execute(args);
        } catch (Throwable t) { // an Error, or a failure inside picocli's own handlers
            status = internalError(commandLine.getErr(), t, debug);
        }
        commandLine.getOut().flush();
        commandLine.getErr().flush();
        // SIGTERM cancelled the command as Ctrl-C does; its status says which signal it was.
        System.exit(Interrupts.TERMINATED.get() && (status == 130 || status == 0 || status == 1) ? 143 : status);
    }

    /**
     * The command line with the given streams: what {@code main} runs, and what tests run
     * in-process.
     *
     * @param debug print stack traces of internal errors (env {@code BELLOWS_DEBUG=1})
     */
    static CommandLine commandLine(InputStream in, OutputStream out, OutputStream err, boolean debug) {
        return commandLine(in, out, err, debug, Host.system());
    }

    /** The command line with the given streams and host (environment, directory, interrupts). */
    static CommandLine commandLine(InputStream in, OutputStream out, OutputStream err, boolean debug, Host host) {
        PrintWriter errWriter = new PrintWriter(new OutputStreamWriter(err, StandardCharsets.UTF_8), true);
        CommandLine commandLine = new CommandLine(new BellowsCommand(in, out, errWriter, host));
        commandLine.setOut(new PrintWriter(new OutputStreamWriter(out, StandardCharsets.UTF_8), true));
        commandLine.setErr(errWriter);
        commandLine.setParameterExceptionHandler(usageError(errWriter));
        commandLine.setExecutionExceptionHandler(executionError(errWriter, debug));
        return commandLine;
    }

    /** One line naming what is wrong and where to read more; no usage dump, and no value typed after a flag. */
    private static IParameterExceptionHandler usageError(PrintWriter err) {
        return (ex, args) -> {
            CommandLine failed = ex.getCommandLine();
            String name = failed.getCommandSpec().qualifiedName();
            err.println(name + ": " + oneLine(UsageErrors.message(ex, args)) + " (see '" + name + " --help')");
            err.flush();
            return failed.getCommandSpec().exitCodeOnInvalidInput();
        };
    }

    private static IExecutionExceptionHandler executionError(PrintWriter err, boolean debug) {
        return (ex, failed, parseResult) -> {
            internalError(err, ex, debug);
            return failed.getCommandSpec().exitCodeOnExecutionException();
        };
    }

    private static int internalError(PrintWriter err, Throwable t, boolean debug) {
        err.println("bellows: internal error: " + oneLine(String.valueOf(t)));
        if (debug) {
            t.printStackTrace(err);
        }
        err.flush();
        return 1;
    }

    /**
     * {@code text} as one line of a message: line breaks folded to spaces, secrets redacted and
     * control characters made visible ({@link Shown}), since messages quote servers and models.
     */
    static String oneLine(String text) {
        return text == null ? "" : Shown.text(text.strip().replaceAll("\\s*[\\r\\n]+\\s*", " "));
    }

    /** {@code bellows 0.1.0-SNAPSHOT}: the Maven project version, filtered into a resource. */
    static final class Version implements IVersionProvider {

        @Override
        public String[] getVersion() {
            return new String[] {"bellows " + version()};
        }

        static String version() {
            try (InputStream in = BellowsCommand.class.getResourceAsStream("version.properties")) {
                if (in != null) {
                    Properties properties = new Properties();
                    properties.load(in);
                    String version = properties.getProperty("version", "");
                    if (!version.isEmpty() && !version.startsWith("${")) {
                        return version;
                    }
                }
            } catch (IOException e) {
                // fall through to the manifest
            }
            String version = BellowsCommand.class.getPackage().getImplementationVersion();
            return version != null ? version : "(unknown version)";
        }
    }
}
