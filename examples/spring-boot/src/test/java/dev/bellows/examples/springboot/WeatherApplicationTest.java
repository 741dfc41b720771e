package dev.bellows.examples.springboot;

import tools.jackson.core.JacksonException;
import static org.assertj.core.api.Assertions.assertThat;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;
import dev.bellows.testkit.MockLlmServer;
import dev.bellows.testkit.MockScript;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/** The application as it runs, its model a scripted one on 127.0.0.1, read by a real HTTP client. */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class WeatherApplicationTest {

    // The script the README serves with bellows mock-server to try the application by hand.
    static final MockLlmServer MODEL = start(Path.of("mock-script.json"));

    @DynamicPropertySource
    static void model(DynamicPropertyRegistry properties) {
        properties.add("bellows.base-url", () -> MODEL.baseUrl().toString());
        properties.add("bellows.model", () -> "mock");
    }

    @AfterAll
    static void stopModel() {
        MODEL.close();
    }

    @LocalServerPort
    int port;

    private final HttpClient client = HttpClient.newHttpClient();

    @Test
    void ask_streams_the_runs_events_and_the_tool_bean_answers() throws Exception {
        String task = URLEncoder.encode("Will it be warm in Oslo in three days?", StandardCharsets.UTF_8);
        HttpResponse<java.util.stream.Stream<String>> response = client.send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/ask?task=" + task)).build(),
                HttpResponse.BodyHandlers.ofLines());
        ObjectMapper mapper = new ObjectMapper();
        List<JsonNode> events = response.body()
                .filter(line -> line.startsWith("data:"))
                .map(line -> read(mapper, line.substring("data:".length())))
                .toList();

        assertThat(response.headers().firstValue("Content-Type").orElseThrow()).startsWith("text/event-stream");
        assertThat(events).extracting(event -> event.get("type").asString())
                .startsWith("loop_start").contains("tool_call_name", "tool_result").endsWith("loop_end");
        assertThat(events).filteredOn(event -> event.path("tool_name").asString().equals("get_weather")
                        && event.get("type").asString().equals("tool_result"))
                .singleElement()
                .satisfies(event -> assertThat(event.get("result").asString()).isEqualTo("{\"city\":\"Oslo\",\"days\":3,\"celsius\":21.5}"));
        assertThat(events.getLast().get("result").asString()).isEqualTo("It will be 21.5 °C in Oslo in three days.");
        // The instructions of application.properties reached the model.
        assertThat(MODEL.requests().getFirst().body().toString()).contains("You answer questions about the weather.");
    }

    @Test
    void the_page_reads_the_events_with_an_event_source() throws Exception {
        HttpResponse<String> page = client.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/")).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(page.statusCode()).isEqualTo(200);
        assertThat(page.body()).contains("new EventSource(\"/ask?task=\"", "source.close()");
    }

    private static JsonNode read(ObjectMapper mapper, String json) {
        try {
            return mapper.readTree(json);
        } catch (JacksonException e) {
            throw new IllegalStateException("not JSON: " + json, e);
        }
    }

    private static MockLlmServer start(Path script) {
        try {
            return MockLlmServer.start(MockScript.read(script));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
