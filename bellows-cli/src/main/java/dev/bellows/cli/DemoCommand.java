package dev.bellows.cli;

import dev.bellows.agent.AgentListener;
import dev.bellows.agent.AgentResult;
import dev.bellows.agent.AgentRun;
import dev.bellows.agent.DefaultAgent;
import dev.bellows.event.AgentEvent;
import dev.bellows.event.EventJson;
import dev.bellows.event.LoopEndReason;
import dev.bellows.event.StreamEvent;
import dev.bellows.openai.OpenAiProvider;
import dev.bellows.provider.Provider;
import dev.bellows.testkit.MockLlmServer;
import dev.bellows.testkit.MockScript;
import dev.bellows.tool.ToolRegistry;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicReference;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

/**
 * {@code bellows demo}: a real task, offline. The "model" is {@link MockLlmServer},
 * started in-process on 127.0.0.1 with the bundled script {@code demo-script.json}; the
 * agent is a {@link DefaultAgent} that reaches it over HTTP through {@link OpenAiProvider},
 * exactly as it would reach Ollama or OpenAI, and runs real tools ({@link DemoTools}) on this
 * machine. Only the model's answers are canned: the streaming, parsing, tool calls, tool
 * results, errors and the plan are the library's own.
 *
 * <p>The output is that of {@code bellows run}: progress on standard error and the answer
 * on standard output, or every event as a JSON line with {@code --output jsonl}; the exit
 * status too (0 when the loop ends through {@code task_completion}).
 */
@Command(name = "demo",
        mixinStandardHelpOptions = true,
        versionProvider = BellowsCommand.Version.class,
        sortOptions = false,
        description = {
                "Runs a real task offline: a scripted model served over HTTP on 127.0.0.1, the agent loop,",
                "and real local tools (calculator, word_count). Needs no model, network or configuration."},
        exitCodeListHeading = "%nExit status:%n",
        exitCodeList = {
                "0:the loop ended through task_completion",
                "1:the loop stopped without an answer, or an internal error",
                "2:usage error",
                "130:cancelled (Ctrl-C)"})
final class DemoCommand implements Callable<Integer> {

    /** The bundled script, next to this class. */
    static final String SCRIPT = "demo-script.json";
    /** The task the script answers. */
    static final String TASK = "How long does it take to read the bundled document bellows.txt aloud"
            + " at 150 words per minute? Answer in seconds.";
    static final String INSTRUCTIONS = "You answer questions about the bundled documents. Use word_count to measure"
            + " a document and calculator for all arithmetic; keep a plan with update_plan.";

    @ParentCommand
    private BellowsCommand root;

    @Spec
    private CommandSpec spec;

    @Option(names = "--output", paramLabel = "text|jsonl", defaultValue = "text",
            description = "text: progress on stderr, the result on stdout (default); jsonl: every event as a JSON line on stdout.")
    String output;

    @Override
    public Integer call() throws IOException {
        boolean jsonl;
        switch (output) {
            case "text" -> jsonl = false;
            case "jsonl" -> jsonl = true;
            default -> {
                root.stderr.println(spec.qualifiedName() + ": --output " + BellowsCommand.oneLine(output)
                        + ": must be text or jsonl");
                root.stderr.flush();
                return 2;
            }
        }
        try (MockLlmServer server = MockLlmServer.start(script());
             Provider provider = OpenAiProvider.builder().baseUrl(server.baseUrl().toString()).build();
             ToolRegistry tools = new ToolRegistry()) {
            DemoTools.all().forEach(tools::register);
            if (!jsonl) {
                root.stderr.println("demo: a scripted model at " + server.baseUrl() + ", real tools: calculator, word_count");
                root.stderr.println("task: " + TASK);
                root.stderr.flush();
            }
            return run(provider, tools, jsonl);
        }
    }

    static MockScript script() {
        try (InputStream in = DemoCommand.class.getResourceAsStream(SCRIPT)) {
            if (in == null) {
                throw new IllegalStateException("the demo script " + SCRIPT + " is missing from the build");
            }
            return MockScript.parse(new String(in.readAllBytes(), StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private int run(Provider provider, ToolRegistry tools, boolean jsonl) {
        AtomicReference<AgentRun> current = new AtomicReference<>();
        AtomicReference<IOException> outputFailure = new AtomicReference<>();
        TextRenderer renderer = jsonl ? null : new TextRenderer(root.stderr, root.host.terminal());
        AgentListener listener = jsonl
                ? event -> writeJsonLine(event, root.stdout, outputFailure, current)
                : renderer;
        AgentRun run = DefaultAgent.builder()
                .provider(provider)
                .model("mock")
                .instructions(INSTRUCTIONS)
                .toolRegistry(tools)
                .listener(listener)
                .build()
                .run(TASK);
        current.set(run);
        if (outputFailure.get() != null) {
            run.cancel(); // failed before the handle was known
        }
        AgentResult result;
        try (AutoCloseable interrupt = root.host.interrupts().onInterrupt(run::cancel)) {
            result = run.await();
        } catch (Exception e) { // closing the handler
            result = run.await();
        } finally {
            if (renderer != null) {
                renderer.close();
            }
        }
        if (outputFailure.get() != null) {
            return cannotWrite(outputFailure.get());
        }
        LoopEndReason reason = result.reason();
        if (reason.successful()) {
            if (!jsonl) {
                try {
                    root.stdout.write((result.result() + "\n").getBytes(StandardCharsets.UTF_8));
                    root.stdout.flush();
                } catch (IOException e) {
                    return cannotWrite(e);
                }
            }
            return 0;
        }
        root.stderr.println(spec.qualifiedName() + ": " + (reason == LoopEndReason.CANCELLED ? "cancelled"
                : reason.wireName() + ": " + BellowsCommand.oneLine(result.result())));
        root.stderr.flush();
        return reason == LoopEndReason.CANCELLED ? 130 : 1;
    }

    private int cannotWrite(IOException e) {
        root.stderr.println(spec.qualifiedName() + ": cannot write to standard output: "
                + BellowsCommand.oneLine(e.getMessage()));
        root.stderr.flush();
        return 1;
    }

    /** One event as one JSON line, flushed at once, as bellows run writes it; a broken stdout cancels the run. */
    private static void writeJsonLine(AgentEvent event, OutputStream out, AtomicReference<IOException> failure,
                                      AtomicReference<AgentRun> run) {
        if (event instanceof StreamEvent.Complete || failure.get() != null) {
            return;
        }
        try {
            out.write((EventJson.toJson(event, false).toString() + "\n").getBytes(StandardCharsets.UTF_8));
            out.flush();
        } catch (IOException e) {
            failure.compareAndSet(null, e);
            AgentRun handle = run.get();
            if (handle != null) {
                handle.cancel();
            }
        }
    }
}
