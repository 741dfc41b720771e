package dev.bellows.bench.loop;

import dev.bellows.agent.AgentResult;
import dev.bellows.agent.DefaultAgent;
import dev.bellows.event.LoopEndReason;
import dev.bellows.openai.OpenAiProvider;
import dev.bellows.tool.Description;
import dev.bellows.tool.Tool;
import dev.bellows.tool.ToolRegistry;
import dev.bellows.tool.ToolResult;
import dev.bellows.tool.TypedTool;

/**
 * Bellows in its default mode, the tool call written as a {@code <tool>} tag in the message,
 * over its OpenAI-compatible provider pointed at the mock. The provider and the tool are made
 * once; the agent is made per task, because an agent's memory holds its whole conversation
 * across runs (a new agent is how a task starts afresh today).
 */
final class BellowsTags implements Contestant {

    @Description("Two integers to add")
    record AddArguments(@Description("the first") int a, @Description("the second") int b) { }

    private final OpenAiProvider provider;
    private final Tool add = TypedTool.of("add", "Adds two integers", AddArguments.class,
            (context, arguments) -> ToolResult.of("sum=" + (arguments.a() + arguments.b())));

    BellowsTags(String baseUrl) {
        provider = OpenAiProvider.builder().baseUrl(baseUrl).build();
    }

    @Override
    public String name() {
        return "Bellows DefaultAgent (tags)";
    }

    @Override
    public String runTask() throws Exception {
        DefaultAgent agent = DefaultAgent.builder()
                .provider(provider)
                .model("mock")
                .toolRegistry(new ToolRegistry().register(add))
                .build();
        AgentResult result = agent.run(LoopComparison.TASK).await();
        if (result.reason() != LoopEndReason.TASK_COMPLETION) {
            throw new IllegalStateException("the run ended " + result.reason() + ": " + result.result());
        }
        return result.result();
    }

    @Override
    public void close() {
        provider.close();
    }
}
