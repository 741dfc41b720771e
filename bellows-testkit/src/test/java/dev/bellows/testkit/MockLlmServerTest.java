package dev.bellows.testkit;

import tools.jackson.core.JacksonException;
import dev.bellows.json.internal.Jackson;
import static org.assertj.core.api.Assertions.assertThat;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class MockLlmServerTest {

    private static final ObjectMapper MAPPER = Jackson.JSON;
    private static final HttpClient CLIENT = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    private static final String HI = "{\"model\":\"gpt-test\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]";
    private static final String STREAM = HI + ",\"stream\":true}";
    private static final String NO_STREAM = HI + "}";

    @AfterAll
    static void closeClient() {
        CLIENT.close();
    }

    /** What a client read of a response body, and how the read ended. */
    record Body(String text, int reads, IOException failure) {

        List<JsonNode> events() {
            List<JsonNode> events = new ArrayList<>();
            for (String block : text.split("\n\n")) {
                if (block.startsWith("data: {")) {
                    events.add(json(block.substring("data: ".length())));
                }
            }
            return events;
        }

        String content(String field) {
            StringBuilder text = new StringBuilder();
            for (JsonNode event : events()) {
                JsonNode value = event.path("choices").path(0).path("delta").path(field);
                if (value.isString()) {
                    text.append(value.asString());
                }
            }
            return text.toString();
        }
    }

    static JsonNode json(String text) {
        try {
            return MAPPER.readTree(text);
        } catch (JacksonException e) {
            throw new AssertionError(e);
        }
    }

    static HttpResponse<InputStream> post(MockLlmServer server, String path, String body, String... headers)
            throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + path))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body));
        if (headers.length > 0) {
            request.headers(headers);
        }
        return CLIENT.send(request.build(), HttpResponse.BodyHandlers.ofInputStream());
    }

    static HttpResponse<String> get(MockLlmServer server, String path) throws Exception {
        return CLIENT.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + path)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    /** Reads the body to its end or failure, counting the reads that returned bytes. */
    static Body read(HttpResponse<InputStream> response) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        int reads = 0;
        IOException failure = null;
        try (InputStream in = response.body()) {
            byte[] buffer = new byte[8192];
            for (int n; (n = in.read(buffer)) != -1; ) {
                if (n > 0) {
                    reads++;
                    bytes.write(buffer, 0, n);
                }
            }
        } catch (IOException e) {
            failure = e;
        }
        return new Body(bytes.toString(StandardCharsets.UTF_8), reads, failure);
    }

    private static MockLlmServer fixedClock(MockScript script) throws IOException {
        return MockLlmServer.builder(script)
                .clock(Clock.fixed(Instant.ofEpochSecond(1_700_000_000L), ZoneOffset.UTC))
                .start();
    }

    @Test
    void streams_the_exact_sse_of_a_small_turn() throws Exception {
        try (MockLlmServer server = fixedClock(MockScript.of(MockTurn.content("Hello").chunkSize(2)))) {
            HttpResponse<InputStream> response = post(server, "/v1/chat/completions", STREAM);
            assertThat(response.statusCode()).isEqualTo(200);
            assertThat(response.headers().firstValue("Content-Type")).hasValue("text/event-stream");
            assertThat(response.headers().firstValue("Cache-Control")).hasValue("no-cache");
            assertThat(response.headers().firstValue("Transfer-Encoding")).hasValue("chunked");
            Body body = read(response);
            assertThat(body.failure()).isNull();
            String head = "data: {\"id\":\"chatcmpl-mock-1\",\"object\":\"chat.completion.chunk\","
                    + "\"created\":1700000000,\"model\":\"gpt-test\",\"choices\":[{\"index\":0,\"delta\":";
            String tail = ",\"logprobs\":null,\"finish_reason\":null}]}\n\n";
            assertThat(body.text()).isEqualTo(
                    head + "{\"role\":\"assistant\",\"content\":\"\"}" + tail
                    + head + "{\"content\":\"He\"}" + tail
                    + head + "{\"content\":\"ll\"}" + tail
                    + head + "{\"content\":\"o\"}" + tail
                    + head + "{},\"logprobs\":null,\"finish_reason\":\"stop\"}],"
                    + "\"usage\":{\"prompt_tokens\":1,\"completion_tokens\":2,\"total_tokens\":3}}\n\n"
                    + "data: [DONE]\n\n");
        }
    }

    @Test
    void chunks_count_code_points_and_never_split_an_emoji() throws Exception {
        try (MockLlmServer server = MockLlmServer.start(MockScript.of(MockTurn.content("a😀b😀c").chunkSize(2)))) {
            Body body = read(post(server, "/v1/chat/completions", STREAM));
            List<String> pieces = new ArrayList<>();
            for (JsonNode event : body.events()) {
                JsonNode content = event.path("choices").path(0).path("delta").path("content");
                if (content.isString() && !content.asString().isEmpty()) {
                    pieces.add(content.asString());
                }
            }
            assertThat(pieces).containsExactly("a😀", "b😀", "c");
        }
    }

    @Test
    void streams_reasoning_first_then_content() throws Exception {
        MockScript script = MockScript.of(MockTurn.reasoning("deep thoughts").withContent("Done.").chunkSize(5));
        try (MockLlmServer server = MockLlmServer.start(script)) {
            Body body = read(post(server, "/chat/completions", STREAM));
            List<String> deltas = new ArrayList<>();
            for (JsonNode event : body.events()) {
                event.path("choices").path(0).path("delta").properties()
                        .forEach(field -> deltas.add(field.getKey() + "=" + field.getValue().asString()));
            }
            assertThat(deltas).containsExactly("role=assistant", "content=", "reasoning_content=deep ",
                    "reasoning_content=thoug", "reasoning_content=hts", "content=Done.");
            assertThat(body.events().getLast().path("usage").path("completion_tokens").asInt()).isEqualTo(5);
            assertThat(body.text()).endsWith("data: [DONE]\n\n");
        }
    }

    @Test
    void a_delay_between_pieces_makes_the_client_read_several_times() throws Exception {
        // 100 ms apart: a reader starved by a loaded machine may take two pieces in one read,
        // but not four of the five gaps
        try (MockLlmServer server = MockLlmServer.start(MockScript.of(MockTurn.content("abcdef").chunkSize(1).delayMs(100)))) {
            Body body = read(post(server, "/v1/chat/completions", STREAM));
            assertThat(body.failure()).isNull();
            assertThat(body.content("content")).isEqualTo("abcdef");
            assertThat(body.reads()).as("reads of the body").isGreaterThanOrEqualTo(3);
        }
    }

    @Test
    void a_status_turn_answers_with_its_status_headers_and_body() throws Exception {
        MockScript script = MockScript.parse("""
                {"turns": [{"status": 429, "headers": {"Retry-After": "1", "X-Mock": "yes"},
                            "body": {"error": {"message": "slow down"}}}]}""");
        try (MockLlmServer server = MockLlmServer.start(script)) {
            HttpResponse<InputStream> response = post(server, "/v1/chat/completions", STREAM);
            assertThat(response.statusCode()).isEqualTo(429);
            assertThat(response.headers().firstValue("Retry-After")).hasValue("1");
            assertThat(response.headers().firstValue("X-Mock")).hasValue("yes");
            assertThat(response.headers().firstValue("Content-Type")).hasValue("application/json");
            assertThat(json(read(response).text())).isEqualTo(json("{\"error\": {\"message\": \"slow down\"}}"));
        }
    }

    @Test
    void a_status_turn_without_body_gets_an_openai_style_error() throws Exception {
        try (MockLlmServer server = MockLlmServer.start(MockScript.of(MockTurn.status(503)))) {
            HttpResponse<InputStream> response = post(server, "/v1/chat/completions", NO_STREAM);
            assertThat(response.statusCode()).isEqualTo(503);
            JsonNode error = json(read(response).text()).path("error");
            assertThat(error.path("message").asString()).isEqualTo("scripted status 503");
            assertThat(error.path("type").asString()).isEqualTo("server_error");
        }
    }

    @Test
    void cut_after_breaks_the_chunked_stream_without_a_final_chunk() throws Exception {
        MockScript script = MockScript.of(MockTurn.content("This breaks off somewhere in the middle").cutAfter(12));
        try (MockLlmServer server = MockLlmServer.start(script)) {
            HttpResponse<InputStream> response = post(server, "/v1/chat/completions", STREAM);
            assertThat(response.statusCode()).isEqualTo(200);
            Body body = read(response);
            // What the JDK client really sees: the connection closes before the chunked
            // encoding's last chunk, and reading fails. The client may drop what was still in
            // its buffers when the connection broke, so it has seen at most the 12 characters.
            assertThat(body.failure()).isInstanceOf(IOException.class);
            assertThat("This breaks ").startsWith(body.content("content"));
            assertThat(body.text()).doesNotContain("[DONE]").doesNotContain("finish_reason\":\"stop");

            // and the server goes on serving
            assertThat(get(server, "/v1/models").statusCode()).isEqualTo(200);
        }
    }

    @Test
    void cut_after_zero_sends_only_the_role_chunk() throws Exception {
        try (MockLlmServer server = MockLlmServer.start(MockScript.of(MockTurn.content("never").cutAfter(0)))) {
            Body body = read(post(server, "/v1/chat/completions", STREAM));
            assertThat(body.failure()).isNotNull();
            assertThat(body.events()).hasSize(1);
            assertThat(body.content("content")).isEmpty();
        }
    }

    @Test
    void turns_running_out_answer_500_saying_so() throws Exception {
        try (MockLlmServer server = MockLlmServer.start(MockScript.of(MockTurn.content("only")))) {
            assertThat(post(server, "/v1/chat/completions", NO_STREAM).statusCode()).isEqualTo(200);
            HttpResponse<InputStream> response = post(server, "/v1/chat/completions", STREAM);
            assertThat(response.statusCode()).isEqualTo(500);
            assertThat(response.headers().firstValue("Content-Type")).hasValue("application/json");
            JsonNode error = json(read(response).text()).path("error");
            assertThat(error.path("message").asString()).isEqualTo("mock script has no more turns (1 were scripted)");
            assertThat(error.path("type").asString()).isEqualTo("server_error");
            assertThat(server.requests()).extracting(RecordedRequest::turn).containsExactly(0, -1);
        }
    }

    @Test
    void lists_one_model() throws Exception {
        try (MockLlmServer server = MockLlmServer.start(MockScript.of())) {
            for (String path : List.of("/v1/models", "/models")) {
                HttpResponse<String> response = get(server, path);
                assertThat(response.statusCode()).isEqualTo(200);
                JsonNode models = json(response.body());
                assertThat(models.path("object").asString()).isEqualTo("list");
                assertThat(models.path("data")).hasSize(1);
                JsonNode model = models.path("data").path(0);
                assertThat(model.path("id").asString()).isEqualTo("mock");
                assertThat(model.path("object").asString()).isEqualTo("model");
                assertThat(model.path("owned_by").asString()).isEqualTo("bellows");
                assertThat(model.path("created").isIntegralNumber()).isTrue();
            }
        }
    }

    @Test
    void a_request_without_stream_gets_one_chat_completion() throws Exception {
        MockScript script = MockScript.of(MockTurn.reasoning("hmm").withContent("Hello there").chunkSize(1));
        try (MockLlmServer server = MockLlmServer.start(script)) {
            HttpResponse<InputStream> response = post(server, "/v1/chat/completions", NO_STREAM);
            assertThat(response.statusCode()).isEqualTo(200);
            assertThat(response.headers().firstValue("Content-Type")).hasValue("application/json");
            JsonNode completion = json(read(response).text());
            assertThat(completion.path("object").asString()).isEqualTo("chat.completion");
            assertThat(completion.path("id").asString()).isEqualTo("chatcmpl-mock-1");
            assertThat(completion.path("model").asString()).isEqualTo("gpt-test");
            JsonNode choice = completion.path("choices").path(0);
            assertThat(choice.path("index").asInt()).isZero();
            assertThat(choice.path("message").path("role").asString()).isEqualTo("assistant");
            assertThat(choice.path("message").path("content").asString()).isEqualTo("Hello there");
            assertThat(choice.path("message").path("reasoning_content").asString()).isEqualTo("hmm");
            assertThat(choice.path("finish_reason").asString()).isEqualTo("stop");
            assertThat(completion.path("usage")).isEqualTo(json(
                    "{\"prompt_tokens\":1,\"completion_tokens\":4,\"total_tokens\":5}"));
        }
    }

    @Test
    void records_requests_with_keys_redacted_in_memory_and_in_the_file(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("requests.jsonl");
        try (MockLlmServer server = MockLlmServer.builder(MockScript.of(MockTurn.content("a"), MockTurn.content("b")))
                .recordTo(file).start()) {
            read(post(server, "/v1/chat/completions", STREAM, "Authorization", "Bearer sk-secret-123"));
            read(post(server, "/v1/chat/completions?x=1", "not json", "x-api-key", "sk-secret-456"));
            get(server, "/v1/models");

            List<RecordedRequest> requests = server.requests();
            assertThat(requests).hasSize(3);
            RecordedRequest first = requests.get(0);
            assertThat(first.method()).isEqualTo("POST");
            assertThat(first.path()).isEqualTo("/v1/chat/completions");
            assertThat(first.header("Authorization")).isEqualTo("Bearer [REDACTED]");
            assertThat(first.header("content-type")).isEqualTo("application/json");
            assertThat(first.body()).isEqualTo(json(STREAM));
            assertThat(first.turn()).isZero();
            RecordedRequest second = requests.get(1);
            assertThat(second.path()).isEqualTo("/v1/chat/completions?x=1");
            assertThat(second.header("X-Api-Key")).isEqualTo("[REDACTED]");
            assertThat(second.body().isString()).isTrue();
            assertThat(second.body().asString()).isEqualTo("not json");
            assertThat(second.turn()).isEqualTo(-1);
            assertThat(requests.get(2).method()).isEqualTo("GET");
            assertThat(requests.get(2).body().isNull()).isTrue();

            List<String> lines = Files.readAllLines(file);
            assertThat(lines).hasSize(3);
            assertThat(String.join("\n", lines)).doesNotContain("sk-secret");
            JsonNode line = json(lines.get(0));
            assertThat(line.path("method").asString()).isEqualTo("POST");
            assertThat(line.path("path").asString()).isEqualTo("/v1/chat/completions");
            assertThat(line.path("headers").path("authorization").asString()).isEqualTo("Bearer [REDACTED]");
            assertThat(line.path("body")).isEqualTo(json(STREAM));
        }
        // appended, not overwritten, by the next server
        try (MockLlmServer server = MockLlmServer.builder(MockScript.of()).recordTo(file).start()) {
            get(server, "/models");
        }
        assertThat(Files.readAllLines(file)).hasSize(4);
    }

    @Test
    void a_bad_json_body_is_a_400_in_openai_shape_and_takes_no_turn() throws Exception {
        try (MockLlmServer server = MockLlmServer.start(MockScript.of(MockTurn.content("kept")))) {
            HttpResponse<InputStream> response = post(server, "/v1/chat/completions", "{\"model\": ");
            assertThat(response.statusCode()).isEqualTo(400);
            JsonNode error = json(read(response).text()).path("error");
            assertThat(error.path("type").asString()).isEqualTo("invalid_request_error");
            assertThat(error.path("message").asString()).isNotBlank();
            assertThat(json(read(post(server, "/v1/chat/completions", NO_STREAM)).text())
                    .path("choices").path(0).path("message").path("content").asString()).isEqualTo("kept");
        }
    }

    @Test
    void other_paths_are_404_and_wrong_methods_405() throws Exception {
        try (MockLlmServer server = MockLlmServer.start(MockScript.of())) {
            HttpResponse<String> notFound = get(server, "/v1/embeddings");
            assertThat(notFound.statusCode()).isEqualTo(404);
            assertThat(json(notFound.body()).path("error").path("message").asString()).contains("/v1/embeddings");
            HttpResponse<String> wrongMethod = get(server, "/v1/chat/completions");
            assertThat(wrongMethod.statusCode()).isEqualTo(405);
            assertThat(wrongMethod.headers().firstValue("Allow")).hasValue("POST");
        }
    }

    @Test
    void concurrent_requests_take_distinct_turns() throws Exception {
        int count = 16;
        MockScript.Builder builder = MockScript.builder();
        Set<String> scripted = new HashSet<>();
        for (int i = 0; i < count; i++) {
            builder.turn(MockTurn.content("answer " + i).delayMs(10).chunkSize(3));
            scripted.add("answer " + i);
        }
        try (MockLlmServer server = MockLlmServer.start(builder.build())) {
            List<CompletableFuture<String>> answers = new ArrayList<>();
            for (int i = 0; i < count; i++) {
                String body = i % 2 == 0 ? STREAM : NO_STREAM;
                boolean stream = i % 2 == 0;
                answers.add(Background.supply(() -> {
                    try {
                        Body read = read(post(server, "/v1/chat/completions", body));
                        return stream ? read.content("content")
                                : json(read.text()).path("choices").path(0).path("message").path("content").asString();
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    }
                }));
            }
            Set<String> received = new HashSet<>();
            for (CompletableFuture<String> answer : answers) {
                received.add(answer.get());
            }
            assertThat(received).isEqualTo(scripted);
            assertThat(server.requests()).extracting(RecordedRequest::turn).doesNotHaveDuplicates().hasSize(count);
            assertThat(server.turnsTaken()).isEqualTo(count);
        }
    }

    @Test
    void binds_loopback_and_reports_its_base_url() throws Exception {
        try (MockLlmServer server = MockLlmServer.start(MockScript.of(), 0)) {
            assertThat(server.baseUrl().toString()).isEqualTo("http://127.0.0.1:" + server.port() + "/v1");
            assertThat(server.port()).isPositive();
        }
    }

    @Test
    void a_port_in_use_is_a_bind_exception() throws Exception {
        try (MockLlmServer first = MockLlmServer.start(MockScript.of())) {
            org.assertj.core.api.Assertions.assertThatThrownBy(() -> MockLlmServer.start(MockScript.of(), first.port()))
                    .isInstanceOf(java.net.BindException.class);
        }
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> MockLlmServer.start(MockScript.of(), 70000))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("70000");
    }

    @Test
    void a_hold_stops_the_stream_after_its_pieces_until_it_is_released() throws Exception {
        StreamHold hold = StreamHold.after(0, 2);
        try (MockLlmServer server = MockLlmServer.builder(MockScript.of(MockTurn.content("abcdef").chunkSize(1)))
                .hold(hold).start()) {
            HttpResponse<InputStream> response = post(server, "/v1/chat/completions", STREAM);
            java.io.BufferedReader lines = new java.io.BufferedReader(
                    new java.io.InputStreamReader(response.body(), StandardCharsets.UTF_8));
            StringBuilder before = new StringBuilder();
            while (before.length() < 2) {
                String line = lines.readLine();
                assertThat(line).as("the stream ended before the hold").isNotNull();
                if (line.startsWith("data: {")) {
                    before.append(json(line.substring("data: ".length())).at("/choices/0/delta/content").asString(""));
                }
            }
            hold.reached().get(30, java.util.concurrent.TimeUnit.SECONDS);     // a hang guard
            assertThat(before.toString()).isEqualTo("ab");
            hold.release();
            StringBuilder after = new StringBuilder();
            boolean done = false;
            for (String line; (line = lines.readLine()) != null; ) {
                if (line.equals("data: [DONE]")) {
                    done = true;
                } else if (line.startsWith("data: {")) {
                    after.append(json(line.substring("data: ".length())).at("/choices/0/delta/content").asString(""));
                }
            }
            assertThat(after.toString()).isEqualTo("cdef");
            assertThat(done).isTrue();
        }
    }

    @Test
    void a_hold_that_could_never_hold_is_refused_when_the_server_starts() {
        MockScript script = MockScript.of(MockTurn.content("abc").chunkSize(1), MockTurn.status(500));
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> MockLlmServer.builder(script)
                        .hold(StreamHold.after(0, 4)).start())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("after 4 pieces of turn 0");
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> MockLlmServer.builder(script)
                        .hold(StreamHold.after(1, 0)).start())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("turn 1");
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> MockLlmServer.builder(script)
                        .hold(StreamHold.after(2, 0)).start())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("turn 2");
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> StreamHold.after(0, -1))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
