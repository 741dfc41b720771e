package dev.bellows.cli;

import dev.bellows.testkit.MockLlmServer;
import dev.bellows.testkit.MockScript;
import java.io.IOException;
import java.net.BindException;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

/**
 * {@code bellows mock-server}: {@link MockLlmServer} on the command line, as cli.md's
 * "the script format" section says. Prints one line, {@code listening on
 * http://127.0.0.1:PORT/v1}, once connections are accepted, then serves until the process
 * is interrupted (a shutdown hook stops the server) or, in-process, until the running
 * thread is interrupted.
 */
@Command(name = "mock-server",
        mixinStandardHelpOptions = true,
        versionProvider = BellowsCommand.Version.class,
        sortOptions = false,
        description = {
                "Serves an OpenAI-compatible endpoint on 127.0.0.1 that replays scripted model turns.",
                "",
                "Each POST /v1/chat/completions takes the next turn of the script; GET /v1/models lists 'mock'.",
                "Prints 'listening on http://127.0.0.1:PORT/v1' when ready; serves until interrupted.",
                "Script format: {\"turns\": [{\"content\": \"...\", \"chunk_size\": 4, \"reasoning\": \"...\","
                        + " \"delay_ms\": 0, \"cut_after\": N} | {\"status\": 429, \"headers\": {...}, \"body\": {...}}]}"
                        + " (docs/mock-server.md)."},
        exitCodeListHeading = "%nExit status:%n",
        exitCodeList = {
                "130:stopped with Ctrl-C (SIGINT); 143 when stopped with SIGTERM",
                "1:internal error, or standard output failed",
                "2:a bad option, or a missing, unreadable or invalid script, or a port that cannot be used"})
final class MockServerCommand implements Callable<Integer> {

    @ParentCommand
    private BellowsCommand root;

    @Spec
    private CommandSpec spec;

    @Option(names = "--script", required = true, paramLabel = "FILE", description = "The script of turns (JSON).")
    Path script;

    @Option(names = "--port", paramLabel = "N", description = "The port on 127.0.0.1 (default 0: a free port).")
    int port;

    @Option(names = "--repeat", description = "When the turns run out, start again from the first"
            + " (default: later chat requests get a 500 saying the script has no more turns).")
    boolean repeat;

    @Option(names = "--log-requests", description = "One line on standard error per request: method, path and"
            + " the turn it got (no headers, no body).")
    boolean logRequests;

    @Option(names = "--record", paramLabel = "FILE",
            description = "Append every request (Authorization redacted) to FILE as one JSON line.")
    Path record;

    @Override
    public Integer call() {
        if (port < 0 || port > 65535) {
            return usage("--port: must be between 0 and 65535 (0: a free port)");
        }
        MockScript turns;
        try {
            turns = MockScript.read(script);
        } catch (NoSuchFileException e) {
            return usage("--script " + script + ": no such file");
        } catch (AccessDeniedException e) {
            return usage("--script " + script + ": permission denied");
        } catch (java.nio.charset.CharacterCodingException e) {
            return usage("--script " + script + ": " + UsageErrors.NOT_UTF8);
        } catch (IOException e) {
            return usage("--script " + script + ": cannot read it: "
                    + (Files.isDirectory(script) ? "it is a directory" : e.getMessage()));
        } catch (IllegalArgumentException e) {
            return usage("--script " + script + ": " + e.getMessage());
        }
        MockLlmServer.Builder builder = MockLlmServer.builder(turns).port(port).repeat(repeat);
        if (logRequests) {
            builder.log(line -> {
                root.stderr.println(spec.qualifiedName() + ": " + line);
                root.stderr.flush();
            });
        }
        if (record != null) {
            builder.recordTo(record);
        }
        MockLlmServer server;
        try {
            server = builder.start();
        } catch (BindException e) {
            return usage("--port: cannot listen on 127.0.0.1 at that port: " + e.getMessage());
        } catch (IOException e) {
            // The record file is opened before the port is bound.
            return usage("--record " + record + ": cannot write to it: " + describe(e));
        }
        return UntilStopped.serve(root, spec.qualifiedName(), server.baseUrl().toString(), server::close, () -> { });
    }

    private static String describe(IOException e) {
        if (e instanceof NoSuchFileException) {
            return "its directory does not exist";
        }
        if (e instanceof AccessDeniedException) {
            return "permission denied";
        }
        return e.getMessage();
    }

    private int usage(String message) {
        root.stderr.println(spec.qualifiedName() + ": " + BellowsCommand.oneLine(UsageErrors.redact(message, spec)));
        root.stderr.flush();
        return 2;
    }
}
