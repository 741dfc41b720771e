package dev.bellows.openai;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bellows.agent.AgentResult;
import dev.bellows.agent.AgentRun;
import dev.bellows.agent.AgentTool;
import dev.bellows.agent.DefaultAgent;
import dev.bellows.tool.LoopEndReason;
import dev.bellows.provider.ChatStream;
import dev.bellows.provider.ForwardingChatStream;
import dev.bellows.provider.RetryPolicy;
import dev.bellows.testkit.MockLlmServer;
import dev.bellows.testkit.MockScript;
import dev.bellows.testkit.MockTurn;
import dev.bellows.testkit.ScriptedProvider;
import dev.bellows.testkit.StreamHold;
import dev.bellows.tool.ToolRegistry;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Cancelling a run cancels the model requests of the sub-agents its calls run, over real HTTP:
 * the sub-agents stream from the mock model server, held mid-answer, when the caller is
 * cancelled; each one's HTTP stream (the provider's own, under the model interceptors) is
 * cancelled, and the branches of a parallel workflow are cancelled together.
 */
class SubAgentCancellationTest {

    /** An answer long enough to hold in the middle: its pieces are words. */
    private static final MockTurn LONG = MockTurn.content("one two three four five six seven eight nine ten")
            .chunkSize(4);

    /** Each HTTP stream of the sub-agents: completes once it is cancelled. */
    private final List<CompletableFuture<Void>> streams = new CopyOnWriteArrayList<>();

    private DefaultAgent subAgent(MockLlmServer server) {
        return DefaultAgent.builder().provider(OpenAiProvider.builder().baseUrl(server.baseUrl())
                        .apiKey(dev.bellows.provider.ApiKey.of("sk-mock-key")).build())
                .model("mock").retryPolicy(RetryPolicy.defaults().withMaxRetries(0))
                .modelInterceptor(chain -> {
                    CompletableFuture<Void> cancelled = new CompletableFuture<>();
                    streams.add(cancelled);         // before the request goes out, so that it is there once it streams
                    return watched(chain.proceed(chain.request()), cancelled);
                }).build();
    }

    /** The provider's HTTP stream, its cancelling told to {@code cancelled}. */
    private static ChatStream watched(ChatStream stream, CompletableFuture<Void> cancelled) {
        return new ForwardingChatStream(stream) {
            @Override
            public void cancel() {
                super.cancel();
                cancelled.complete(null);
            }
        };
    }

    private static DefaultAgent lead(AgentTool tool, String call) {
        return DefaultAgent.builder().provider(new ScriptedProvider(MockScript.of(MockTurn.content(call))))
                .model("mock").toolRegistry(new ToolRegistry().register(tool)).build();
    }

    private static String delegate(String tool) {
        return "<tool>{\"tool_name\": \"" + tool + "\", \"arguments\": {\"task\": \"count to ten\"}}</tool>";
    }

    @Test
    void cancellingTheCallerCancelsTheSubAgentsHttpRequest() throws Exception {
        StreamHold held = StreamHold.after(0, 3);
        try (MockLlmServer server = MockLlmServer.builder(MockScript.of(LONG)).hold(held).start()) {
            DefaultAgent lead = lead(AgentTool.of("counter", "Counts", subAgent(server)), delegate("counter"));

            AgentRun run = lead.run("Count");
            held.reached().get(60, TimeUnit.SECONDS);      // a hang guard: the sub-agent streams, held mid-answer
            assertThat(streams).hasSize(1);
            assertThat(streams.getFirst()).isNotDone();
            run.cancel();

            assertThat(run.await().reason()).isEqualTo(LoopEndReason.CANCELLED);
            streams.getFirst().get(60, TimeUnit.SECONDS);   // the sub-agent's HTTP stream was cancelled
            held.release();
        }
    }

    @Test
    void cancellingTheCallerCancelsEveryBranchOfAParallelWorkflowTogether() throws Exception {
        StreamHold first = StreamHold.after(0, 3);
        StreamHold second = StreamHold.after(1, 3);
        try (MockLlmServer server = MockLlmServer.builder(MockScript.of(LONG, LONG)).hold(first).hold(second).start()) {
            AgentTool both = AgentTool.parallel("both", "Counts twice", List.of(
                    AgentTool.of("left", "Counts", subAgent(server)),
                    AgentTool.of("right", "Counts", subAgent(server))), null, 2);
            DefaultAgent lead = lead(both, delegate("both"));

            AgentRun run = lead.run("Count twice");
            CompletableFuture.allOf(first.reached(), second.reached()).get(60, TimeUnit.SECONDS);
            assertThat(streams).hasSize(2).noneMatch(CompletableFuture::isDone);
            run.cancel();

            AgentResult result = run.await();
            assertThat(result.reason()).isEqualTo(LoopEndReason.CANCELLED);
            CompletableFuture.allOf(streams.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
            first.release();
            second.release();
        }
    }
}
