package dev.bellows.anthropic;

import dev.bellows.json.internal.Jackson;
import static org.assertj.core.api.Assertions.assertThat;

import tools.jackson.databind.JsonNode;
import dev.bellows.agent.AgentResult;
import dev.bellows.agent.DefaultAgent;
import dev.bellows.agent.ToolMode;
import dev.bellows.tool.LoopEndReason;
import dev.bellows.provider.ApiKey;
import dev.bellows.tool.ToolRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The Anthropic configuration of docs/providers.md (a key, {@code .thinking(2048)}, native
 * tool calling), pointed at a fake Messages endpoint on 127.0.0.1: the headers and body go out
 * as the page says and a run ends with the model's {@code task_completion}.
 */
class ProvidersGuideAnthropicTest {

    private static final String KEY = "sk-ant-providers-guide-0123456789";

    private final FakeAnthropic server = new FakeAnthropic();

    ProvidersGuideAnthropicTest() throws Exception {
    }

    @AfterEach
    void close() {
        server.close();
    }

    @Test
    void theDocumentedConfigurationRunsAnAgent() throws Exception {
        server.then(FakeAnthropic.sse(NativeAgentTest.completion()));
        try (AnthropicProvider anthropic = AnthropicProvider.builder()
                .baseUrl(server.baseUrl())
                .apiKey(ApiKey.of(KEY))
                .thinking(2048)
                .build()) {
            AgentResult result = DefaultAgent.builder().provider(anthropic).model("claude-sonnet-4-5")
                    .toolMode(ToolMode.NATIVE).toolRegistry(new ToolRegistry()).build()
                    .run("Weather in Oslo?").await();

            assertThat(result).isEqualTo(new AgentResult(LoopEndReason.TASK_COMPLETION, "Sunny in Oslo"));
            FakeAnthropic.Recorded request = server.requests().getFirst();
            assertThat(request.path()).isEqualTo("/v1/messages");
            assertThat(request.header("x-api-key")).isEqualTo(KEY);
            assertThat(request.header("anthropic-version")).isEqualTo(AnthropicProvider.DEFAULT_VERSION);
            JsonNode body = Jackson.JSON.readTree(request.body());
            assertThat(body.path("model").asString()).isEqualTo("claude-sonnet-4-5");
            assertThat(body.path("max_tokens").asInt()).isEqualTo(AnthropicProvider.DEFAULT_MAX_TOKENS);
            assertThat(body.path("thinking").path("budget_tokens").asInt()).isEqualTo(2048);
            assertThat(body.path("tools").isArray()).isTrue();
        }
    }
}
