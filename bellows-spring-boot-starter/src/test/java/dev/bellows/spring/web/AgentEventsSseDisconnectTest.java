package dev.bellows.spring.web;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bellows.agent.Agent;
import dev.bellows.agent.AgentListener;
import dev.bellows.agent.Session;
import dev.bellows.tool.LoopEndReason;
import dev.bellows.event.LoopEvent;
import dev.bellows.testkit.MockLlmServer;
import dev.bellows.testkit.MockScript;
import dev.bellows.testkit.MockTurn;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
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
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.servlet.mvc.method.annotation.SseEmitter;

/** A browser that goes away in the middle of a run cancels it: nobody would read the rest. */
@SpringBootTest(classes = AgentEventsSseDisconnectTest.App.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class AgentEventsSseDisconnectTest {

    // A long answer, streamed slowly, then the end: a run that is not cancelled ends with
    // task_completion, so the test fails instead of waiting forever. Long enough (40 s
    // unread) that even a loaded machine notices the closed connection before the end.
    static final MockLlmServer MODEL = start(MockScript.of(
            MockTurn.content("word ".repeat(20_000)).chunkSize(5).delayMs(2),
            MockTurn.content("<tool>{\"tool_name\": \"task_completion\", \"arguments\": {\"result\": \"done\"}}</tool>")));

    static final CompletableFuture<LoopEndReason> END = new CompletableFuture<>();

    @SpringBootConfiguration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    @Import(AskController.class)
    static class App {
        @Bean
        AgentListener end() {
            return event -> {
                if (event instanceof LoopEvent.LoopEnd loopEnd) {
                    END.complete(loopEnd.reason());
                }
            };
        }
    }

    @RestController
    static class AskController {
        private final Agent agent;

        AskController(Agent agent) {
            this.agent = agent;
        }

        @GetMapping(path = "/ask", produces = MediaType.TEXT_EVENT_STREAM_VALUE)
        SseEmitter ask() {
            return AgentEventsSse.stream(agent.run("Write a lot", new Session()));
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

    @Test
    void closing_the_connection_cancels_the_run() throws Exception {
        HttpResponse<InputStream> response = HttpClient.newHttpClient().send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/ask")).build(),
                HttpResponse.BodyHandlers.ofInputStream());
        try (BufferedReader body = new BufferedReader(new InputStreamReader(response.body(), StandardCharsets.UTF_8))) {
            String line;
            do {
                line = body.readLine();
            } while (line != null && !line.contains("message_content"));
            assertThat(line).as("the model's answer has begun streaming").isNotNull();
        }   // closing before the end drops the connection

        assertThat(END.get()).isEqualTo(LoopEndReason.CANCELLED);
    }

    private static MockLlmServer start(MockScript script) {
        try {
            return MockLlmServer.start(script);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
