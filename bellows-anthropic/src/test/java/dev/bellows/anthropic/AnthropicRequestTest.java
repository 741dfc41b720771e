package dev.bellows.anthropic;

import dev.bellows.json.internal.Jackson;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;
import dev.bellows.provider.ApiKey;
import dev.bellows.provider.ChatRequest;
import dev.bellows.provider.ChatStream;
import dev.bellows.provider.Message;
import dev.bellows.provider.NativeToolCall;
import dev.bellows.provider.SignedThinking;
import dev.bellows.provider.ToolSpec;
import dev.bellows.provider.ProviderException;
import dev.bellows.provider.ProviderException.Kind;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/** What goes over the wire: URL, headers and the exact JSON body. */
class AnthropicRequestTest {

    private static final String SECRET = "sk-ant-api03-test-KEY-0123456789";
    private static final ObjectMapper JSON = Jackson.JSON;

    private final FakeAnthropic server = new FakeAnthropic();
    private AnthropicProvider provider;

    AnthropicRequestTest() throws Exception {
    }

    @AfterEach
    void close() {
        if (provider != null) {
            provider.close();
        }
        server.close();
    }

    private AnthropicProvider provider(AnthropicProvider.Builder builder) {
        provider = builder.build();
        return provider;
    }

    private AnthropicProvider.Builder builder() {
        return AnthropicProvider.builder().baseUrl(server.baseUrl());
    }

    /** Streams the request against a server that answers with the documentation's basic stream. */
    private FakeAnthropic.Recorded send(AnthropicProvider provider, ChatRequest request) throws ProviderException {
        server.then(FakeAnthropic.sse(DocsStreams.BASIC));
        try (ChatStream stream = provider.stream(request)) {
            while (stream.next() != null) {
                // drain
            }
        }
        return server.requests().getLast();
    }

    private static ChatRequest.Builder hello() {
        return ChatRequest.builder().model("claude-sonnet-4-5").message(Message.user("Hello"));
    }

    private static void assertJson(String actual, String expected) throws Exception {
        JsonNode actualTree = JSON.readTree(actual);
        assertThat(actualTree).as("request body %s", actual).isEqualTo(JSON.readTree(expected));
    }

    @Test
    void postsToMessagesWithTheKeyVersionAndJsonHeaders() throws Exception {
        FakeAnthropic.Recorded request = send(provider(builder().apiKey(ApiKey.of(SECRET))), hello().build());

        assertThat(request.method()).isEqualTo("POST");
        assertThat(request.path()).isEqualTo("/v1/messages");
        assertThat(request.header("x-api-key")).isEqualTo(SECRET);
        assertThat(request.header("anthropic-version")).isEqualTo("2023-06-01");
        assertThat(request.header("content-type")).isEqualTo("application/json");
        assertThat(request.header("accept")).isEqualTo("text/event-stream");
        assertThat(request.headers().containsKey("authorization")).isFalse();
        assertJson(request.body(), """
                {"model": "claude-sonnet-4-5", "max_tokens": 4096,
                 "messages": [{"role": "user", "content": "Hello"}], "stream": true}""");
    }

    @Test
    void aRequestsOwnHeadersAreSentBesideTheProvidersAndNeverPrinted() throws Exception {
        String traceparent = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";
        ChatRequest withHeader = hello().header("traceparent", traceparent).build();
        FakeAnthropic.Recorded request = send(provider(builder().apiKey(ApiKey.of(SECRET))), withHeader);

        assertThat(request.header("traceparent")).isEqualTo(traceparent);
        assertThat(request.header("x-api-key")).isEqualTo(SECRET);
        assertThat(request.header("anthropic-version")).isEqualTo("2023-06-01");
        assertThat(withHeader.toString()).contains("traceparent").doesNotContain(traceparent);
        assertThatThrownBy(() -> hello().header("x-api-key", "mine"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("set by the provider");
        assertThatThrownBy(() -> hello().header("traceparent", "a\r\nInjected: yes"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("line break");
    }

    @Test
    void withoutAKeyNoKeyHeaderIsSent() throws Exception {
        FakeAnthropic.Recorded request = send(provider(builder()), hello().build());

        assertThat(request.headers().containsKey("x-api-key")).isFalse();
        assertThat(request.headers().containsKey("authorization")).isFalse();
        assertThat(request.header("anthropic-version")).isEqualTo("2023-06-01");
    }

    @Test
    void aBaseUrlWithoutV1StillCallsV1Messages() throws Exception {
        FakeAnthropic.Recorded request = send(provider(AnthropicProvider.builder().baseUrl(server.root() + "/")),
                hello().build());

        assertThat(request.path()).isEqualTo("/v1/messages");
    }

    @Test
    void versionAndExtraHeadersAreSent() throws Exception {
        FakeAnthropic.Recorded request = send(provider(builder()
                        .anthropicVersion("2024-01-01")
                        .header("anthropic-beta", "interleaved-thinking-2025-05-14")),
                hello().build());

        assertThat(request.header("anthropic-version")).isEqualTo("2024-01-01");
        assertThat(request.header("anthropic-beta")).isEqualTo("interleaved-thinking-2025-05-14");
    }

    @ParameterizedTest
    @ValueSource(strings = {"x-api-key", "X-Api-Key", "anthropic-version", "Content-Type", "accept"})
    void headersTheProviderSetsCannotBeOverridden(String name) {
        assertThatThrownBy(() -> AnthropicProvider.builder().header(name, "x"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("set by the provider");
    }

    @Test
    void systemMessagesGoToTopLevelSystemJoinedWithBlankLines() throws Exception {
        ChatRequest request = ChatRequest.builder().model("claude-sonnet-4-5")
                .message(Message.system("You are terse."))
                .message(Message.system("Answer in English."))
                .message(Message.user("Hi"))
                .message(Message.assistant("Hello."))
                .message(Message.user("What is 2+2?"))
                .build();

        assertJson(send(provider(builder()), request).body(), """
                {"model": "claude-sonnet-4-5", "max_tokens": 4096,
                 "system": "You are terse.\\n\\nAnswer in English.",
                 "messages": [{"role": "user", "content": "Hi"},
                              {"role": "assistant", "content": "Hello."},
                              {"role": "user", "content": "What is 2+2?"}],
                 "stream": true}""");
    }

    @Test
    void consecutiveMessagesOfOneRoleAreMergedAlsoAcrossAMovedSystemMessage() throws Exception {
        ChatRequest request = ChatRequest.builder().model("m")
                .message(Message.user("Task: count."))
                .message(Message.user("Observation: 3 files"))
                .message(Message.assistant("I see three."))
                .message(Message.assistant(""))
                .message(Message.assistant("Done?"))
                .message(Message.user("Go on."))
                .message(Message.system("Reminder: be brief."))
                .message(Message.user("Please."))
                .build();

        assertJson(send(provider(builder()), request).body(), """
                {"model": "m", "max_tokens": 4096,
                 "system": "Reminder: be brief.",
                 "messages": [{"role": "user", "content": "Task: count.\\n\\nObservation: 3 files"},
                              {"role": "assistant", "content": "I see three.\\n\\nDone?"},
                              {"role": "user", "content": "Go on.\\n\\nPlease."}],
                 "stream": true}""");
    }

    @Test
    void requestMaxTokensWinsOverTheDefault() throws Exception {
        assertThat(JSON.readTree(send(provider(builder().defaultMaxTokens(1000)), hello().maxTokens(77).build())
                .body()).path("max_tokens").asInt()).isEqualTo(77);
    }

    @Test
    void theConfiguredDefaultMaxTokensIsSentWhenTheRequestHasNone() throws Exception {
        assertThat(JSON.readTree(send(provider(builder().defaultMaxTokens(1000)), hello().build())
                .body()).path("max_tokens").asInt()).isEqualTo(1000);
    }

    @Test
    void samplingOptionsAndStopSequencesAreSentWhenSet() throws Exception {
        ChatRequest request = hello().temperature(0.25).topP(0.9).stopSequences(List.of("</answer>", "\n\nHuman:"))
                .maxTokens(512).build();

        assertJson(send(provider(builder()), request).body(), """
                {"model": "claude-sonnet-4-5", "max_tokens": 512,
                 "messages": [{"role": "user", "content": "Hello"}], "stream": true,
                 "temperature": 0.25, "top_p": 0.9, "stop_sequences": ["</answer>", "\\n\\nHuman:"]}""");
    }

    @Test
    void extendedThinkingIsSentWithItsBudget() throws Exception {
        ChatRequest request = hello().maxTokens(16000).build();

        assertJson(send(provider(builder().thinking(10000).defaultMaxTokens(20000)), request).body(), """
                {"model": "claude-sonnet-4-5", "max_tokens": 16000,
                 "messages": [{"role": "user", "content": "Hello"}], "stream": true,
                 "thinking": {"type": "enabled", "budget_tokens": 10000}}""");
    }

    @Test
    void aThinkingBudgetNotBelowMaxTokensIsRefusedBeforeSending() {
        AnthropicProvider anthropic = provider(builder().thinking(2048));

        ProviderException e = catchThrowableOfType(ProviderException.class,
                () -> anthropic.stream(hello().maxTokens(2048).build()));

        assertThat(e.kind()).isEqualTo(Kind.CLIENT_ERROR);
        assertThat(e.getMessage()).contains("thinking budget");
        assertThat(server.requests()).isEmpty();
    }

    @Test
    void builderRefusesAThinkingBudgetTheApiWouldRefuse() {
        assertThatThrownBy(() -> AnthropicProvider.builder().thinking(1023))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("at least 1024");
        assertThatThrownBy(() -> AnthropicProvider.builder().thinking(4096).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("raise defaultMaxTokens");
    }

    @Test
    void aConversationStartingWithTheAssistantIsRefusedBeforeSending() {
        AnthropicProvider anthropic = provider(builder());
        ChatRequest request = ChatRequest.builder().model("m")
                .message(Message.system("sys"))
                .message(Message.assistant("I'll start."))
                .message(Message.user("Fine."))
                .build();

        ProviderException e = catchThrowableOfType(ProviderException.class, () -> anthropic.stream(request));

        assertThat(e.kind()).isEqualTo(Kind.CLIENT_ERROR);
        assertThat(e.getMessage()).contains("starts with an assistant message").contains("user message first");
        assertThat(server.requests()).isEmpty();
    }

    @Test
    void aConversationWithOnlySystemMessagesIsRefused() {
        AnthropicProvider anthropic = provider(builder());
        ChatRequest request = ChatRequest.builder().model("m").message(Message.system("sys")).build();

        ProviderException e = catchThrowableOfType(ProviderException.class, () -> anthropic.stream(request));

        assertThat(e.kind()).isEqualTo(Kind.CLIENT_ERROR);
        assertThat(e.getMessage()).contains("no user message");
    }

    @Test
    void aTrailingAssistantMessageIsSentAsAPrefill() throws Exception {
        ChatRequest request = ChatRequest.builder().model("m")
                .message(Message.user("Answer in JSON."))
                .message(Message.assistant("{"))
                .build();

        assertThat(JSON.readTree(send(provider(builder()), request).body()).path("messages").get(1))
                .isEqualTo(JSON.readTree("{\"role\": \"assistant\", \"content\": \"{\"}"));
    }

    @ParameterizedTest
    @CsvSource({
            "https://api.anthropic.com/v1,              https://api.anthropic.com/v1/messages",
            "https://api.anthropic.com/v1/,             https://api.anthropic.com/v1/messages",
            "https://api.anthropic.com,                 https://api.anthropic.com/v1/messages",
            "https://api.anthropic.com/,                https://api.anthropic.com/v1/messages",
            "http://127.0.0.1:8080/proxy/anthropic,     http://127.0.0.1:8080/proxy/anthropic/v1/messages",
            "http://127.0.0.1:8080/proxy/anthropic/V1,  http://127.0.0.1:8080/proxy/anthropic/V1/messages",
    })
    void baseUrlsWithAndWithoutV1(String base, String endpoint) {
        assertThat(AnthropicProvider.messagesEndpoint(base)).hasToString(endpoint);
    }

    @ParameterizedTest
    @ValueSource(strings = {"api.anthropic.com", "ftp://api.anthropic.com", "https://api.anthropic.com/v1?key=x",
            "https://", "not a url"})
    void badBaseUrlsAreRefusedWithAnExample(String base) {
        assertThatThrownBy(() -> AnthropicProvider.builder().baseUrl(base))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("https://api.anthropic.com/v1")
                .hasMessageNotContaining("key=x");
    }

    @Test
    void defaultEndpointIsAnthropicsPublicApi() {
        try (AnthropicProvider anthropic = AnthropicProvider.builder().build()) {
            assertThat(anthropic.endpoint()).hasToString("https://api.anthropic.com/v1/messages");
            assertThat(anthropic.name()).isEqualTo("anthropic");
        }
    }

    @Test
    void nativeToolsCallsResultsAndSignedThinkingGoOutAsContentBlocksUnchanged() throws Exception {
        ChatRequest request = ChatRequest.builder().model("claude-sonnet-4-5")
                .message(Message.system("Be useful."))
                .message(Message.user("Weather in Oslo?"))
                .message(Message.assistant("Let me check.",
                        List.of(new NativeToolCall("toolu_1", "get_weather", "{\"city\": \"Oslo\"}")),
                        List.of(SignedThinking.signed("The user wants the weather.", "sig-123"),
                                SignedThinking.redacted("ENCRYPTED"))))
                .message(Message.toolResult("toolu_1", "sunny, 21 C"))
                .tools(List.of(new ToolSpec("get_weather", "The weather in a city",
                        JSON.readTree("{\"type\": \"object\", \"properties\": {\"city\": {\"type\": \"string\"}}}"))))
                .build();
        FakeAnthropic.Recorded sent = send(provider(builder().thinking(2048).defaultMaxTokens(8192)), request);
        assertJson(sent.body(), """
                {"model": "claude-sonnet-4-5", "max_tokens": 8192, "system": "Be useful.",
                 "messages": [
                   {"role": "user", "content": "Weather in Oslo?"},
                   {"role": "assistant", "content": [
                     {"type": "thinking", "thinking": "The user wants the weather.", "signature": "sig-123"},
                     {"type": "redacted_thinking", "data": "ENCRYPTED"},
                     {"type": "text", "text": "Let me check."},
                     {"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": {"city": "Oslo"}}]},
                   {"role": "user", "content": [
                     {"type": "tool_result", "tool_use_id": "toolu_1", "content": "sunny, 21 C"}]}],
                 "tools": [{"name": "get_weather", "description": "The weather in a city",
                            "input_schema": {"type": "object", "properties": {"city": {"type": "string"}}}}],
                 "stream": true,
                 "thinking": {"type": "enabled", "budget_tokens": 2048}}""");
    }

    @Test
    void promptCachingMarksTheSystemBlockAndTheLastToolOnTheWire() throws Exception {
        ChatRequest request = ChatRequest.builder().model("claude-sonnet-4-5")
                .message(Message.system("Be useful."))
                .message(Message.user("Weather in Oslo?"))
                .tools(List.of(new ToolSpec("get_weather", "The weather in a city",
                                JSON.readTree("{\"type\": \"object\"}")),
                        new ToolSpec("get_time", "The time in a city", JSON.readTree("{\"type\": \"object\"}"))))
                .build();
        AnthropicProvider cached = provider(builder().promptCaching(true));

        FakeAnthropic.Recorded sent = send(cached, request);

        assertJson(sent.body(), """
                {"model": "claude-sonnet-4-5", "max_tokens": 4096,
                 "system": [{"type": "text", "text": "Be useful.", "cache_control": {"type": "ephemeral"}}],
                 "messages": [{"role": "user", "content": "Weather in Oslo?"}],
                 "tools": [{"name": "get_weather", "description": "The weather in a city",
                            "input_schema": {"type": "object"}},
                           {"name": "get_time", "description": "The time in a city",
                            "input_schema": {"type": "object"},
                            "cache_control": {"type": "ephemeral"}}],
                 "stream": true}""");
        assertThat(sent.header("content-length")).isEqualTo(String.valueOf(sent.body().getBytes(
                java.nio.charset.StandardCharsets.UTF_8).length));
        assertThat(send(cached, request).body()).as("the second request, from the cache").isEqualTo(sent.body());
        assertThat(cached.toString()).contains("promptCaching=true");
    }

    @Test
    void withoutPromptCachingNothingIsMarked() throws Exception {
        ChatRequest request = hello().message(Message.system("Be useful."))
                .tools(List.of(new ToolSpec("get_time", "The time", JSON.readTree("{\"type\": \"object\"}")))).build();

        String body = send(provider(builder().promptCaching(false)), request).body();

        assertThat(body).doesNotContain("cache_control");
        assertThat(JSON.readTree(body).path("system").isString()).isTrue();
        assertThat(provider.toString()).doesNotContain("promptCaching");
    }
}
