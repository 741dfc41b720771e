package dev.bellows.agent;

import static dev.bellows.agent.DefaultAgentTest.call;
import static org.assertj.core.api.Assertions.assertThat;

import dev.bellows.tool.LoopEndReason;
import dev.bellows.tool.Tool;
import dev.bellows.tool.ToolResult;
import dev.bellows.tool.TypedTool;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/**
 * Who sees a tool call first (docs/machine.md, "The seam"): approvals, then a run's external
 * tools (deferred before any interceptor of the agent's), then the agent's tool interceptors in
 * the order they were added, then the tool.
 */
class SeamOrderTest {

    record Chart(String path) {
    }

    @Test
    void approvalsComeFirstThenTheRunsExternalToolsThenTheInterceptorsInOrderThenTheTool() {
        List<String> seen = new CopyOnWriteArrayList<>();
        Tool read = TypedTool.of("read_file", "Reads a file", DefaultAgentTest.PathArguments.class, (context, args) -> {
            seen.add("tool " + args.path());
            return ToolResult.of("contents of " + args.path());
        });
        Tool chart = TypedTool.of("show_chart", "Shows a chart to the user", Chart.class,
                (context, args) -> ToolResult.of("never run here"));
        ScriptedProvider provider = DefaultAgentTest.provider(call("read_file", "{\"path\": \"a.txt\"}") + "\n"
                + call("show_chart", "{\"path\": \"sales.csv\"}"));
        DefaultAgent agent = DefaultAgentTest.agent(provider, read)
                .requireApproval("local/*")
                .approvalHandler((waiting, run) -> {
                    seen.add("approval " + waiting.toolName());
                    return Decision.approve(waiting.id());
                })
                .toolInterceptor(chain -> {
                    seen.add("first " + chain.call().toolName());
                    return chain.proceed();
                })
                .toolInterceptor(chain -> {
                    seen.add("second " + chain.call().toolName());
                    return chain.proceed();
                })
                .build();

        AgentResult result = agent.run("read, then chart", new Session(), List.of(chart)).await();

        assertThat(seen).containsExactly("approval read_file", "first read_file", "second read_file", "tool a.txt");
        assertThat(result.reason()).isEqualTo(LoopEndReason.INTERRUPTED);
        assertThat(result.waiting()).extracting(WaitingCall::toolName, WaitingCall::kind)
                .containsExactly(org.assertj.core.groups.Tuple.tuple("show_chart", WaitingCall.Kind.EXTERNAL));
    }
}
