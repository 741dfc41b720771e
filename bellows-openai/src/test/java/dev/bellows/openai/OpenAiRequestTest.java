package dev.bellows.openai;

import static dev.bellows.openai.TestSupport.DONE;
import static dev.bellows.openai.TestSupport.SECRET;
import static dev.bellows.openai.TestSupport.content;
import static dev.bellows.openai.TestSupport.stop;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.bellows.http.HttpSettings;
import dev.bellows.openai.OpenAiProvider.MaxTokensField;
import dev.bellows.provider.ApiKey;
import dev.bellows.provider.ChatRequest;
import dev.bellows.provider.ChatStream;
import dev.bellows.provider.Message;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class OpenAiRequestTest {

    private static FakeServer okServer() throws Exception {
        return FakeServer.sse(content("ok") + stop() + DONE);
    }

    private static FakeServer.Request send(FakeServer server, OpenAiProvider provider, ChatRequest request)
            throws Exception {
        try (provider; ChatStream stream = provider.stream(request)) {
            TestSupport.drain(stream);
        }
        assertThat(server.requests()).hasSize(1);
        return server.requests().get(0);
    }

    @Test
    void sendsTheRequestBodyAndHeadersExactly() throws Exception {
        try (FakeServer server = okServer()) {
            OpenAiProvider provider = OpenAiProvider.builder().baseUrl(server.base()).apiKey(ApiKey.of(SECRET))
                    .header("HTTP-Referer", "https://bellows.dev").header("X-Title", "Bellows").build();
            ChatRequest request = ChatRequest.builder().model("qwen3:8b")
                    .messages(List.of(Message.system("Be brief."), Message.user("Say \"hi\" ✓"),
                            Message.assistant("<thinking>x</thinking>hi"), Message.user("again")))
                    .temperature(0.2).topP(0.9).maxTokens(512).stopSequences(List.of("</answer>", "\n\n"))
                    .build();
            FakeServer.Request sent = send(server, provider, request);

            assertThat(sent.requestLine()).isEqualTo("POST /v1/chat/completions HTTP/1.1");
            assertThat(sent.body()).isEqualTo("{\"model\":\"qwen3:8b\",\"messages\":["
                    + "{\"role\":\"system\",\"content\":\"Be brief.\"},"
                    + "{\"role\":\"user\",\"content\":\"Say \\\"hi\\\" ✓\"},"
                    + "{\"role\":\"assistant\",\"content\":\"<thinking>x</thinking>hi\"},"
                    + "{\"role\":\"user\",\"content\":\"again\"}],"
                    + "\"stream\":true,\"stream_options\":{\"include_usage\":true},"
                    + "\"temperature\":0.2,\"top_p\":0.9,\"max_tokens\":512,\"stop\":[\"</answer>\",\"\\n\\n\"]}");
            assertThat(sent.header("Content-Type")).isEqualTo("application/json");
            assertThat(sent.header("Accept")).isEqualTo("text/event-stream");
            assertThat(sent.header("Authorization")).isEqualTo("Bearer " + SECRET);
            assertThat(sent.headers().get("authorization")).hasSize(1);
            assertThat(sent.header("HTTP-Referer")).isEqualTo("https://bellows.dev");
            assertThat(sent.header("X-Title")).isEqualTo("Bellows");
        }
    }

    @Test
    void aRequestsOwnHeadersAreSentBesideTheProvidersAndTheKey() throws Exception {
        String traceparent = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";
        try (FakeServer server = okServer()) {
            OpenAiProvider provider = OpenAiProvider.builder().baseUrl(server.base()).apiKey(ApiKey.of(SECRET))
                    .header("X-Title", "Bellows").build();
            FakeServer.Request sent = send(server, provider, TestSupport.request().toBuilder()
                    .header("traceparent", traceparent).build());
            assertThat(sent.header("traceparent")).isEqualTo(traceparent);
            assertThat(sent.header("X-Title")).isEqualTo("Bellows");
            assertThat(sent.header("Authorization")).isEqualTo("Bearer " + SECRET);
            assertThatThrownBy(() -> TestSupport.request().toBuilder().header("Authorization", "Bearer mine"))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("set by the provider");
        }
    }

    @Test
    void withoutAKeyNoAuthorizationHeaderAndNoUnsetOptions() throws Exception {
        try (FakeServer server = okServer()) {
            FakeServer.Request sent = send(server, OpenAiProvider.builder().baseUrl(server.base()).build(),
                    TestSupport.request());
            assertThat(sent.headers()).doesNotContainKey("authorization");
            assertThat(sent.body()).isEqualTo("{\"model\":\"test-model\",\"messages\":[{\"role\":\"user\","
                    + "\"content\":\"Hi\"}],\"stream\":true,\"stream_options\":{\"include_usage\":true}}");
        }
    }

    @Test
    void includeUsageCanBeTurnedOff() throws Exception {
        try (FakeServer server = okServer()) {
            FakeServer.Request sent = send(server,
                    OpenAiProvider.builder().baseUrl(server.base()).includeUsage(false).build(), TestSupport.request());
            assertThat(sent.body()).doesNotContain("stream_options").contains("\"stream\":true");
        }
    }

    @Test
    void maxCompletionTokensWhenAsked() throws Exception {
        try (FakeServer server = okServer()) {
            OpenAiProvider provider = OpenAiProvider.builder().baseUrl(server.base())
                    .maxTokensField(MaxTokensField.MAX_COMPLETION_TOKENS).build();
            FakeServer.Request sent = send(server, provider, TestSupport.request().toBuilder().maxTokens(64).build());
            assertThat(sent.body()).contains("\"max_completion_tokens\":64").doesNotContain("\"max_tokens\"");
        }
    }

    @Test
    void maxTokensFieldDependsOnTheServer() {
        assertThat(OpenAiProvider.defaultMaxTokensField(URI.create("https://api.openai.com/v1")))
                .isEqualTo(MaxTokensField.MAX_COMPLETION_TOKENS);
        assertThat(OpenAiProvider.defaultMaxTokensField(URI.create("http://localhost:11434/v1")))
                .isEqualTo(MaxTokensField.MAX_TOKENS);
        assertThat(OpenAiProvider.defaultMaxTokensField(URI.create("https://openrouter.ai/api/v1")))
                .isEqualTo(MaxTokensField.MAX_TOKENS);
    }

    @Test
    void aTrailingSlashInTheBaseUrlDoesNotDoubleTheSlash() throws Exception {
        try (FakeServer server = okServer()) {
            FakeServer.Request sent = send(server,
                    OpenAiProvider.builder().baseUrl(server.base() + "/").build(), TestSupport.request());
            assertThat(sent.requestLine()).startsWith("POST /v1/chat/completions ");
        }
    }

    @Test
    void defaultBaseUrlFollowsTheCliSpec() {
        try (OpenAiProvider withKey = OpenAiProvider.builder().apiKey(ApiKey.of(SECRET)).build();
             OpenAiProvider withoutKey = OpenAiProvider.builder().build()) {
            assertThat(withKey.baseUrl()).hasToString("https://api.openai.com/v1");
            assertThat(withoutKey.baseUrl()).hasToString("http://localhost:11434/v1");
            assertThat(withKey.name()).isEqualTo("openai");
        }
    }

    @Test
    void theBuilderSaysWhatIsWrong() {
        assertThatThrownBy(() -> OpenAiProvider.builder().baseUrl("ftp://example.com/v1"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("http://");
        assertThatThrownBy(() -> OpenAiProvider.builder().baseUrl("localhost:11434/v1"))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> OpenAiProvider.builder().baseUrl("https://x.example/v1?key=" + SECRET))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("query")
                .hasMessageNotContaining(SECRET);
        assertThatThrownBy(() -> OpenAiProvider.builder().header("Authorization", "Bearer " + SECRET))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("apiKey")
                .hasMessageNotContaining(SECRET);
        assertThatThrownBy(() -> OpenAiProvider.builder().header("Bad Name", "x"))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void toStringNeverShowsTheKeyOrHeaderValues() {
        OpenAiProvider.Builder builder = OpenAiProvider.builder().baseUrl("https://user:pw-" + SECRET + "@openrouter.ai/api/v1")
                .apiKey(ApiKey.of(SECRET)).header("X-Gateway-Key", "gw-" + SECRET)
                .httpSettings(HttpSettings.defaults().withIdleTimeout(Duration.ofSeconds(30)));
        try (OpenAiProvider provider = builder.build()) {
            for (String text : List.of(builder.toString(), provider.toString())) {
                assertThat(text).doesNotContain(SECRET).doesNotContain("pw-").contains("openrouter.ai")
                        .contains("X-Gateway-Key").contains("REDACTED");
            }
        }
    }
}
