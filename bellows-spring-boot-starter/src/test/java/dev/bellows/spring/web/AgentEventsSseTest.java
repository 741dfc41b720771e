package dev.bellows.spring.web;

import tools.jackson.core.JacksonException;
import dev.bellows.json.internal.Jackson;
import static org.assertj.core.api.Assertions.assertThat;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;
import dev.bellows.agent.Agent;
import dev.bellows.agent.Session;
import dev.bellows.testkit.MockLlmServer;
import dev.bellows.testkit.MockScript;
import dev.bellows.testkit.MockTurn;
import dev.bellows.tool.Tool;
import dev.bellows.tool.ToolResult;
import dev.bellows.tool.TypedTool;
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
import org.junit.jupiter.api.io.TempDir;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.http.MediaType;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.servlet.mvc.method.annotation.SseEmitter;

/**
 * A real application: Tomcat on a random port, the auto-configured agent with a tool bean,
 * talking over HTTP to MockLlmServer, and a controller streaming the run as Server-Sent
 * Events to java.net.http's client.
 */
@SpringBootTest(classes = AgentEventsSseTest.App.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class AgentEventsSseTest {

    static final MockLlmServer MODEL = start(MockScript.of(
            MockTurn.content("<thinking>Count first.</thinking>\n"
                    + "<tool>{\"tool_name\": \"word_count\", \"arguments\": {\"text\": \"the quick brown fox\"}}</tool>"),
            MockTurn.content("<tool>{\"tool_name\": \"task_completion\", \"arguments\": {\"result\": \"4 words\"}}</tool>")));

    record Words(String text) { }

    @SpringBootConfiguration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    @Import(AskController.class)
    static class App {
        @Bean
        Tool wordCount() {
            return TypedTool.of("word_count", "Counts the words of a text", Words.class,
                    (context, words) -> ToolResult.of(words.text().trim().split("\\s+").length));
        }
    }

    @RestController
    static class AskController {
        private final Agent agent;

        AskController(Agent agent) {
            this.agent = agent;
        }

        @GetMapping(path = "/ask", produces = MediaType.TEXT_EVENT_STREAM_VALUE)
        SseEmitter ask(@RequestParam String task) {
            return AgentEventsSse.stream(agent.run(task, new Session()));
        }
    }

    /** The session store's folder: without it the application would open one under the user's home. */
    @TempDir
    static Path sessions;

    @DynamicPropertySource
    static void model(DynamicPropertyRegistry properties) {
        properties.add("bellows.base-url", () -> MODEL.baseUrl().toString());
        properties.add("bellows.model", () -> "mock");
        properties.add("bellows.sessions-directory", () -> sessions.toString());
    }

    @AfterAll
    static void stopModel() {
        MODEL.close();
    }

    @LocalServerPort
    int port;

    @Autowired
    Agent agent;

    @Test
    void a_browser_reads_every_event_of_the_run_as_json_then_the_stream_ends() throws Exception {
        HttpClient client = HttpClient.newHttpClient();
        String task = URLEncoder.encode("How many words in 'the quick brown fox'?", StandardCharsets.UTF_8);
        HttpResponse<java.util.stream.Stream<String>> response = client.send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/ask?task=" + task))
                        .header("Accept", "text/event-stream").build(),
                HttpResponse.BodyHandlers.ofLines());

        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.headers().firstValue("Content-Type")).hasValueSatisfying(
                type -> assertThat(type).startsWith("text/event-stream"));
        List<String> lines = response.body().toList();   // ends when the server completes the response
        ObjectMapper mapper = Jackson.JSON;
        List<JsonNode> events = lines.stream()
                .filter(line -> line.startsWith("data:"))
                .map(line -> read(mapper, line.substring("data:".length())))
                .toList();
        List<String> ids = lines.stream().filter(line -> line.startsWith("id:")).map(line -> line.substring(3)).toList();

        assertThat(events).extracting(event -> event.get("type").asString())
                .startsWith("loop_start", "iteration_start")
                .contains("thinking_content", "tool_call_name", "tool_result", "loop_end")
                .endsWith("loop_end");
        assertThat(ids).hasSameSizeAs(events).startsWith("0", "1");
        assertThat(events).filteredOn(event -> event.get("type").asString().equals("tool_call_name"))
                .first().satisfies(event -> assertThat(event.get("tool_name").asString()).isEqualTo("word_count"));
        assertThat(events).filteredOn(event -> event.get("type").asString().equals("tool_result")
                        && event.get("tool_name").asString().equals("word_count"))
                .singleElement().satisfies(event -> {
                    assertThat(event.get("result").asString()).isEqualTo("4");
                    assertThat(event.has("chunk")).as("the agent's log form has no chunk indices").isFalse();
                });
        assertThat(events.getLast().get("reason").asString()).isEqualTo("task_completion");
        assertThat(events.getLast().get("result").asString()).isEqualTo("4 words");
        assertThat(MODEL.requests()).hasSize(2);
    }

    private static JsonNode read(ObjectMapper mapper, String json) {
        try {
            return mapper.readTree(json);
        } catch (JacksonException e) {
            throw new IllegalStateException("not JSON: " + json, e);
        }
    }

    private static MockLlmServer start(MockScript script) {
        try {
            return MockLlmServer.start(script);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
