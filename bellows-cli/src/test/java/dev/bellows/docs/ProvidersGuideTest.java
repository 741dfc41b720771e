package dev.bellows.docs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bellows.agent.AgentResult;
import dev.bellows.agent.AgentRun;
import dev.bellows.agent.DefaultAgent;
import dev.bellows.agent.ToolMode;
import dev.bellows.event.AgentEvent;
import dev.bellows.tool.LoopEndReason;
import dev.bellows.event.StreamEvent;
import dev.bellows.http.HttpSettings;
import dev.bellows.openai.OpenAiProvider;
import dev.bellows.provider.ApiKey;
import dev.bellows.provider.ChatRequest;
import dev.bellows.provider.ChatStream;
import dev.bellows.provider.Message;
import dev.bellows.provider.Provider;
import dev.bellows.provider.RetryPolicy;
import dev.bellows.provider.RetryingProvider;
import dev.bellows.stream.StreamChunk;
import dev.bellows.testkit.MockLlmServer;
import dev.bellows.testkit.MockScript;
import dev.bellows.testkit.MockToolCall;
import dev.bellows.testkit.MockTurn;
import dev.bellows.testkit.RecordedRequest;
import dev.bellows.tool.ToolRegistry;
import java.time.Duration;
import java.util.List;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * Each OpenAI-compatible configuration of docs/providers.md, as written there but pointed at
 * {@link MockLlmServer} on 127.0.0.1, runs an agent over real HTTP: the model name, the key
 * and the extra headers arrive as the page says, and the server's reasoning channel reaches the
 * agent as thinking. Change a configuration on the page and change it here.
 */
class ProvidersGuideTest {

    private static final String KEY = "sk-providers-guide-0123456789";

    /** A thinking answer that ends the loop, as any of these servers would stream it. */
    private static MockScript answer() {
        return MockScript.builder()
                .turn(MockTurn.reasoning("The answer is known.")
                        .withContent("<tool>{\"tool_name\": \"task_completion\", \"arguments\": {\"result\": \"42\"}}</tool>"))
                .build();
    }

    private record Outcome(AgentResult result, List<AgentEvent> events, RecordedRequest request) {

        String thinking() {
            return events.stream().filter(StreamEvent.ThinkingContent.class::isInstance)
                    .map(event -> ((StreamEvent.ThinkingContent) event).content()).collect(Collectors.joining());
        }
    }

    private static Outcome run(MockScript script, String model, ToolMode mode, Function<String, Provider> configuration)
            throws Exception {
        try (MockLlmServer server = MockLlmServer.start(script);
             Provider provider = configuration.apply(server.baseUrl().toString())) {
            AgentRun run = DefaultAgent.builder().provider(provider).model(model).toolMode(mode)
                    .toolRegistry(new ToolRegistry()).build()
                    .run("What is six times seven?");
            List<AgentEvent> events = run.events().toList();
            return new Outcome(run.await(), events, server.requests().getFirst());
        }
    }

    private static void assertAnswered(Outcome outcome, String model) {
        assertThat(outcome.result().reason()).isEqualTo(LoopEndReason.TASK_COMPLETION);
        assertThat(outcome.result().result()).isEqualTo("42");
        assertThat(outcome.request().path()).isEqualTo("/v1/chat/completions");
        assertThat(outcome.request().body().path("model").asString()).isEqualTo(model);
        assertThat(outcome.request().body().path("stream").asBoolean()).isTrue();
    }

    @Test
    void openAiSendsTheKeyAndCallsToolsNatively() throws Exception {
        MockScript script = MockScript.builder()
                .turn(MockTurn.toolCalls(MockToolCall.of("task_completion", "{\"result\": \"42\"}")))
                .build();
        Outcome outcome = run(script, "gpt-4o-mini", ToolMode.NATIVE,
                baseUrl -> OpenAiProvider.builder().baseUrl(baseUrl).apiKey(ApiKey.of(KEY)).build());

        assertAnswered(outcome, "gpt-4o-mini");
        assertThat(outcome.request().header("authorization")).isEqualTo("Bearer " + RecordedRequest.REDACTED);
        assertThat(outcome.request().body().path("tools").isArray()).isTrue();
        assertThat(outcome.events()).anyMatch(event -> event instanceof StreamEvent.ToolCallName name
                && name.toolName().equals("task_completion"));
    }

    @Test
    void ollamaNeedsNoKeyAndStreamsReasoning() throws Exception {
        Outcome outcome = run(answer(), "qwen3:8b", ToolMode.TAGS, baseUrl -> OpenAiProvider.builder()
                .baseUrl(baseUrl)
                .httpSettings(HttpSettings.defaults().withIdleTimeout(Duration.ofMinutes(5)))
                .build());

        assertAnswered(outcome, "qwen3:8b");
        assertThat(outcome.request().header("authorization")).isNull();
        assertThat(outcome.thinking()).isEqualTo("The answer is known.");
    }

    @Test
    void vllmSendsItsKeyAndTheHuggingFaceModelId() throws Exception {
        Outcome outcome = run(answer(), "Qwen/Qwen3-8B", ToolMode.TAGS,
                baseUrl -> OpenAiProvider.builder().baseUrl(baseUrl).apiKey(ApiKey.of("token-abc123")).build());

        assertAnswered(outcome, "Qwen/Qwen3-8B");
        assertThat(outcome.request().header("authorization")).isEqualTo("Bearer " + RecordedRequest.REDACTED);
        assertThat(outcome.thinking()).isEqualTo("The answer is known.");
    }

    @Test
    void llamaCppAndLmStudioNeedOnlyTheBaseUrl() throws Exception {
        for (String model : List.of("qwen3-8b", "qwen/qwen3-8b")) {
            Outcome outcome = run(answer(), model, ToolMode.TAGS,
                    baseUrl -> OpenAiProvider.builder().baseUrl(baseUrl).build());

            assertAnswered(outcome, model);
            assertThat(outcome.request().header("authorization")).isNull();
            assertThat(outcome.thinking()).isEqualTo("The answer is known.");
        }
    }

    @Test
    void openRouterSendsTheAppHeaders() throws Exception {
        Outcome outcome = run(answer(), "deepseek/deepseek-r1", ToolMode.TAGS, baseUrl -> OpenAiProvider.builder()
                .baseUrl(baseUrl)
                .apiKey(ApiKey.of(KEY))
                .header("HTTP-Referer", "https://example.com/my-app")
                .header("X-Title", "My App")
                .build());

        assertAnswered(outcome, "deepseek/deepseek-r1");
        assertThat(outcome.request().header("http-referer")).isEqualTo("https://example.com/my-app");
        assertThat(outcome.request().header("x-title")).isEqualTo("My App");
    }

    @Test
    void aModelWithoutVisionIsToldWhichImagesItWasNotShown() throws Exception {
        MockScript script = MockScript.builder()
                .turn(MockTurn.content("<tool>{\"tool_name\": \"look\", \"arguments\": {}}</tool>"))
                .turn(MockTurn.content("<tool>{\"tool_name\": \"task_completion\", \"arguments\": {\"result\": \"blind\"}}</tool>"))
                .build();
        dev.bellows.tool.Tool look = dev.bellows.tool.TypedTool.of("look", "Takes a picture", Empty.class,
                (context, nothing) -> dev.bellows.tool.ToolResult.of("a picture",
                        dev.bellows.tool.Media.image(new byte[] {1, 2, 3}, "image/png")));
        try (MockLlmServer server = MockLlmServer.start(script);
             Provider textOnly = OpenAiProvider.builder().baseUrl(server.baseUrl().toString())
                     .imageInput(false)
                     .build()) {
            AgentResult result = DefaultAgent.builder().provider(textOnly).model("llama3.1")
                    .toolRegistry(new ToolRegistry().register(look)).build().run("Look").await();
            assertThat(result.result()).isEqualTo("blind");
            String sent = server.requests().get(1).body().path("messages").toString();
            assertThat(sent).contains("(not shown to you: image/png, 3 bytes; images cannot be sent to this model)")
                    .doesNotContain("image_url");
        }
    }

    record Empty() {
    }

    @Test
    void retryingProviderRetriesA503AndReportsWhy() throws Exception {
        MockScript script = MockScript.builder()
                .turn(MockTurn.status(503).errorMessage("overloaded"))
                .turn(answer().turns().getFirst())
                .build();
        List<String> reasons = new java.util.concurrent.CopyOnWriteArrayList<>();
        RetryPolicy immediately = RetryPolicy.defaults();
        try (MockLlmServer server = MockLlmServer.start(script);
             Provider patient = new RetryingProvider(OpenAiProvider.builder().baseUrl(server.baseUrl().toString()).build(),
                     immediately, notice -> reasons.add(notice.reason()), delay -> { }, null)) {
            StringBuilder answer = new StringBuilder();
            try (ChatStream stream = patient.stream(ChatRequest.builder().model("llama3.1")
                    .message(Message.user("What is six times seven?")).build())) {
                for (StreamChunk chunk; (chunk = stream.next()) != null; ) {
                    switch (chunk) {
                        case StreamChunk.Restart restart -> answer.setLength(0);   // a retry: the answer starts over
                        case StreamChunk.Text text -> answer.append(text.text());
                        default -> { }                                             // reasoning, usage, ...
                    }
                }
            }

            assertThat(answer.toString()).endsWith("</tool>");
            assertThat(reasons).hasSize(1);
            assertThat(reasons.getFirst()).contains("503");
        }
    }
}
