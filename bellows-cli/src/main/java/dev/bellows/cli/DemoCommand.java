package dev.bellows.cli;

import dev.bellows.agent.Agent;
import dev.bellows.agent.DefaultAgent;
import dev.bellows.openai.OpenAiProvider;
import dev.bellows.provider.Provider;
import dev.bellows.testkit.MockLlmServer;
import dev.bellows.testkit.MockScript;
import dev.bellows.tool.ToolRegistry;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.Callable;
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
        // One paragraph per line: picocli wraps each; the first is the summary in 'bellows --help'.
        description = {
                "Runs a real task offline, with no model, network or configuration.",
                "",
                "A scripted model served over HTTP on 127.0.0.1, the agent loop, and real local tools"
                        + " (calculator, word_count)."},
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
                root.stderr.println(spec.qualifiedName() + ": --output: must be text or jsonl");
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
        AgentRunner runner = new AgentRunner(root, spec.qualifiedName(), jsonl, null);
        Agent agent = DefaultAgent.builder()
                .provider(provider)
                .model("mock")
                .instructions(INSTRUCTIONS)
                .toolRegistry(tools)
                .listener(runner.listener())
                .build();
        return runner.run(agent, TASK);
    }
}
