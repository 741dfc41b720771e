package dev.bellows.agent;

import static dev.bellows.agent.DefaultAgentTest.call;
import static dev.bellows.agent.DefaultAgentTest.complete;
import static org.assertj.core.api.Assertions.assertThat;

import dev.bellows.json.internal.Jackson;
import dev.bellows.tool.LoopEndReason;
import dev.bellows.tool.Tool;
import dev.bellows.tool.ToolResult;
import dev.bellows.tool.TypedTool;
import dev.bellows.testkit.ScriptedProvider;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

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

    /**
     * An interceptor of the agent's sees a call that needs approval only once approved, with the
     * arguments the person approved; never a denied one, never a call of the run's external tools.
     * Decided by a resume (the run stops first) and by an approval handler (decided at once).
     */
    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void anInterceptorSeesOnlyApprovedCallsWithTheApprovedArgumentsAndNeverAnExternalOne(boolean handler) {
        List<String> seen = new CopyOnWriteArrayList<>();
        List<String> written = new CopyOnWriteArrayList<>();
        Tool write = TypedTool.of("write_file", "Writes a file", DefaultAgentTest.PathArguments.class,
                (context, args) -> {
                    written.add(args.path());
                    return ToolResult.of("wrote " + args.path());
                });
        Tool chart = TypedTool.of("show_chart", "Shows a chart to the user", Chart.class,
                (context, args) -> ToolResult.of("never run here"));
        ScriptedProvider provider = DefaultAgentTest.provider(
                call("write_file", "{\"path\": \"a.txt\"}") + "\n"
                        + call("write_file", "{\"path\": \"c.txt\"}") + "\n"
                        + call("show_chart", "{\"path\": \"sales.csv\"}") + "\n"
                        + call("read_file", "{\"path\": \"x.txt\"}"),
                complete("done"));
        Decision approveEdited = Decision.approve("call_1_1", Jackson.JSON.createObjectNode().put("path", "b.txt"));
        Decision deny = Decision.deny("call_1_2", "not that one");
        DefaultAgent.Builder builder = DefaultAgentTest.agent(provider, write, DefaultAgentTest.READ_FILE)
                .requireApproval("local/write_file")
                .toolInterceptor(chain -> {
                    seen.add(chain.callId() + " " + chain.call().toolName() + " " + chain.call().arguments());
                    return chain.proceed();
                });
        if (handler) {
            builder.approvalHandler((waiting, run) -> waiting.id().equals("call_1_1") ? approveEdited : deny);
        }
        DefaultAgent agent = builder.build();
        Session session = new Session();

        AgentResult stopped = agent.run("write, chart, read", session, List.of(chart)).await();
        if (!handler) {
            // both calls that need approval wait together; nothing ran, nothing reached the interceptor
            assertThat(stopped.waiting()).extracting(WaitingCall::id, WaitingCall::kind).containsExactly(
                    org.assertj.core.groups.Tuple.tuple("call_1_1", WaitingCall.Kind.APPROVAL),
                    org.assertj.core.groups.Tuple.tuple("call_1_2", WaitingCall.Kind.APPROVAL));
            assertThat(seen).isEmpty();
            stopped = agent.resume(session, List.of(approveEdited, deny), List.of(chart)).await();
        }
        assertThat(stopped.reason()).isEqualTo(LoopEndReason.INTERRUPTED);
        assertThat(stopped.waiting()).extracting(WaitingCall::id, WaitingCall::kind).containsExactly(
                org.assertj.core.groups.Tuple.tuple("call_1_3", WaitingCall.Kind.EXTERNAL));
        assertThat(seen).containsExactly("call_1_1 write_file {\"path\":\"b.txt\"}");
        assertThat(written).containsExactly("b.txt");

        AgentResult done = agent.resume(session, List.of(Decision.respond("call_1_3", "shown")), List.of(chart)).await();
        assertThat(done.reason()).isEqualTo(LoopEndReason.TASK_COMPLETION);
        assertThat(seen).containsExactly("call_1_1 write_file {\"path\":\"b.txt\"}",
                "call_1_4 read_file {\"path\":\"x.txt\"}", "call_2_1 task_completion {\"result\":\"done\"}");
        assertThat(written).containsExactly("b.txt");
        // the denial reached the model, with its reason
        assertThat(provider.requests().get(1).messages().toString()).contains("not that one");
    }
}
