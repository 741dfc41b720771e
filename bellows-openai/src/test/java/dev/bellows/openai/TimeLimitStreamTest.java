package dev.bellows.openai;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bellows.agent.AgentResult;
import dev.bellows.agent.AgentRun;
import dev.bellows.agent.AgentTool;
import dev.bellows.agent.DefaultAgent;
import dev.bellows.agent.Limits;
import dev.bellows.provider.ChatStream;
import dev.bellows.provider.ForwardingChatStream;
import dev.bellows.provider.RetryPolicy;
import dev.bellows.testkit.MockLlmServer;
import dev.bellows.testkit.MockScript;
import dev.bellows.testkit.MockTurn;
import dev.bellows.testkit.ScriptedProvider;
import dev.bellows.testkit.StreamHold;
import dev.bellows.tool.LoopEndReason;
import dev.bellows.tool.ToolRegistry;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A time limit cuts short a model call under way, over real HTTP: the mock model server holds
 * the answer mid-stream and never lets it go on by itself, so only the limit can end the run (3 s: the model call must have begun by then, which a loaded machine gets well within);
 * the run ends {@code error} naming the limit and the HTTP stream is cancelled.
 */
class TimeLimitStreamTest {

    private static final MockTurn LONG = MockTurn.content("one two three four five six seven eight nine ten")
            .chunkSize(4);

    /** The provider's HTTP stream, its cancelling told to {@code cancelled}. */
    private static DefaultAgent.Builder streaming(MockLlmServer server, CompletableFuture<Void> cancelled) {
        return DefaultAgent.builder().provider(OpenAiProvider.builder().baseUrl(server.baseUrl())
                        .apiKey(dev.bellows.provider.ApiKey.of("sk-mock-key")).build())
                .model("mock").retryPolicy(RetryPolicy.defaults().withMaxRetries(0))
                .modelInterceptor(chain -> new ForwardingChatStream(chain.proceed(chain.request())) {
                    @Override
                    public void cancel() {
                        super.cancel();
                        cancelled.complete(null);
                    }
                });
    }

    @Test
    void anAgentsTimeLimitCancelsTheModelStreamUnderWay() throws Exception {
        StreamHold held = StreamHold.after(0, 3);
        CompletableFuture<Void> cancelled = new CompletableFuture<>();
        try (MockLlmServer server = MockLlmServer.builder(MockScript.of(LONG)).hold(held).start()) {
            DefaultAgent agent = streaming(server, cancelled).name("counter")
                    .limits(Limits.none().maxTime(Duration.ofSeconds(3))).build();

            AgentRun run = agent.run("Count");
            held.reached().get(60, TimeUnit.SECONDS);       // a hang guard: it streams, held mid-answer

            AgentResult result = run.await(Duration.ofSeconds(60)).orElseThrow();
            assertThat(result).isEqualTo(new AgentResult(LoopEndReason.ERROR,
                    "limit reached: agent counter's time of 3000 ms is up"));
            cancelled.get(60, TimeUnit.SECONDS);            // the HTTP stream was cancelled
            held.release();
        }
    }

    @Test
    void theTreesTimeLimitCancelsASubAgentsModelStreamAndEndsTheRun() throws Exception {
        StreamHold held = StreamHold.after(0, 3);
        CompletableFuture<Void> cancelled = new CompletableFuture<>();
        try (MockLlmServer server = MockLlmServer.builder(MockScript.of(LONG)).hold(held).start()) {
            DefaultAgent child = streaming(server, cancelled).name("counter").build();
            DefaultAgent lead = DefaultAgent.builder().provider(new ScriptedProvider(MockScript.of(MockTurn.content(
                            "<tool>{\"tool_name\": \"counter\", \"arguments\": {\"task\": \"count to ten\"}}</tool>"))))
                    .model("mock").toolRegistry(new ToolRegistry().register(AgentTool.of("counter", "Counts", child)))
                    .treeLimits(Limits.none().maxTime(Duration.ofSeconds(3))).build();

            AgentRun run = lead.run("Count");
            held.reached().get(60, TimeUnit.SECONDS);

            AgentResult result = run.await(Duration.ofSeconds(60)).orElseThrow();
            assertThat(result).isEqualTo(new AgentResult(LoopEndReason.ERROR,
                    "limit reached: the run's agents' together time of 3000 ms is up"));
            cancelled.get(60, TimeUnit.SECONDS);
            held.release();
        }
    }
}
