package dev.bellows.bench.loop;

import dev.bellows.agent.AgentResult;
import dev.bellows.agent.DefaultAgent;
import dev.bellows.agent.Session;
import dev.bellows.agent.ToolMode;
import dev.bellows.tool.LoopEndReason;
import dev.bellows.openai.OpenAiProvider;
import dev.bellows.tool.Description;
import dev.bellows.tool.ToolRegistry;
import dev.bellows.tool.ToolResult;
import dev.bellows.tool.TypedTool;
import java.util.Locale;

/**
 * Bellows as its README sets it up: one {@link DefaultAgent} over its OpenAI-compatible
 * provider pointed at the mock, built once and shared by every task; each task is a run in a
 * new {@link Session} (its own conversation), as a service gives each request. In tag mode
 * the call is a {@code <tool>} block in the message and the answer a {@code task_completion}
 * call; in native mode both are the API's {@code tool_calls}. A task is either
 * {@code run(task, session).await()}, the handle most callers take (the run may go on on a
 * virtual thread of its own, see {@link DefaultAgent}), or {@code runBlocking(task, session)},
 * which runs the loop on the calling thread.
 */
final class BellowsAgent implements Contestant {

    @Description("Two integers to add")
    record AddArguments(@Description("the first") int a, @Description("the second") int b) { }

    private final ToolMode mode;
    private final boolean blocking;
    private final OpenAiProvider provider;
    private final DefaultAgent agent;
    private final Traced telemetry;

    /** Tasks as {@code run(task, session).await()}. */
    BellowsAgent(String baseUrl, ToolMode mode) {
        this(baseUrl, mode, false);
    }

    BellowsAgent(String baseUrl, ToolMode mode, boolean blocking) {
        this(baseUrl, mode, blocking, null);
    }

    /**
     * With {@code telemetry}, the agent traced as docs/observability.md says (spans, metrics, the
     * traceparent on each request); without, nothing registered, as an agent that is not traced.
     */
    BellowsAgent(String baseUrl, ToolMode mode, boolean blocking, Traced telemetry) {
        this.mode = mode;
        this.blocking = blocking;
        this.telemetry = telemetry;
        provider = OpenAiProvider.builder().baseUrl(baseUrl).build();
        DefaultAgent.Builder builder = DefaultAgent.builder();
        if (telemetry != null) {
            telemetry.telemetry().instrument(builder);
        }
        agent = builder
                .provider(provider)
                .model("mock")
                .toolMode(mode)
                .toolRegistry(new ToolRegistry().register(TypedTool.of("add", "Adds two integers", AddArguments.class,
                        (context, arguments) -> ToolResult.of("sum=" + (arguments.a() + arguments.b())))))
                .build();
    }

    @Override
    public String name() {
        return "Bellows DefaultAgent (" + mode.name().toLowerCase(Locale.ROOT)
                + (blocking ? ", runBlocking" : ", run().await()") + (telemetry != null ? ", OpenTelemetry" : "") + ")";
    }

    @Override
    public String runTask() throws Exception {
        AgentResult result = blocking ? agent.runBlocking(LoopComparison.TASK, new Session())
                : agent.run(LoopComparison.TASK, new Session()).await();
        if (!result.reason().successful()) {
            throw new IllegalStateException("the run ended " + result.reason() + ": " + result.result());
        }
        return result.result();
    }

    /** The provider every task goes through (for tests). */
    OpenAiProvider provider() {
        return provider;
    }

    @Override
    public void close() {
        provider.close();
        if (telemetry != null) {
            telemetry.close();
        }
    }
}
