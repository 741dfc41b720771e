package dev.bellows.cli;

import static dev.bellows.cli.RunCommandTest.complete;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.bellows.sessions.postgres.EmbeddedPostgres;
import dev.bellows.testkit.MockLlmServer;
import dev.bellows.testkit.MockScript;
import dev.bellows.testkit.MockTurn;
import dev.bellows.testkit.RecordedRequest;
import java.io.BufferedReader;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code bellows serve} as a user runs it: child processes of the CLI's main entry, a model
 * served by the mock on 127.0.0.1, threads in a real PostgreSQL shared by two servers, and
 * SIGTERM.
 */
class ServeCommandTest {

    private static final ObjectMapper MAPPER = new ObjectMapper();
    private final HttpClient client = HttpClient.newHttpClient();

    @TempDir
    Path dir;

    /** A running {@code bellows serve} child process and its address. */
    record Server(Process process, URI uri, StringBuilder err) implements AutoCloseable {
        @Override
        public void close() throws Exception {
            process.destroy();
            if (!process.waitFor(30, TimeUnit.SECONDS)) {
                process.destroyForcibly();
            }
        }
    }

    private Server serve(String... args) throws Exception {
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"), BellowsCommand.class.getName(), "serve"));
        command.addAll(List.of(args));
        ProcessBuilder builder = new ProcessBuilder(command);
        builder.environment().put("HOME", dir.toString());
        builder.environment().remove("BELLOWS_SERVE_TOKEN");
        Process process = builder.start();
        StringBuilder err = new StringBuilder();
        Thread.ofVirtual().start(() -> {
            try (BufferedReader lines = new BufferedReader(new InputStreamReader(process.getErrorStream(), StandardCharsets.UTF_8))) {
                lines.lines().forEach(line -> {
                    synchronized (err) {
                        err.append(line).append('\n');
                    }
                });
            } catch (Exception ignored) {
                // the process ended
            }
        });
        BufferedReader out = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
        String line = out.readLine();
        assertThat(line).as("stderr: %s", err).isNotNull().matches("listening on http://127\\.0\\.0\\.1:\\d+/");
        return new Server(process, URI.create(line.substring("listening on ".length())), err);
    }

    private static ObjectNode input(String threadId, String... texts) {
        ObjectNode input = MAPPER.createObjectNode();
        input.put("threadId", threadId);
        input.put("runId", "r" + System.nanoTime());
        var messages = input.putArray("messages");
        for (int i = 0; i < texts.length; i++) {
            messages.addObject().put("id", threadId + "-" + i).put("role", "user").put("content", texts[i]);
        }
        return input;
    }

    private HttpResponse<String> agui(Server server, JsonNode input) throws Exception {
        return client.send(HttpRequest.newBuilder(server.uri().resolve("/agui"))
                .POST(HttpRequest.BodyPublishers.ofString(input.toString())).build(), HttpResponse.BodyHandlers.ofString());
    }

    private static List<JsonNode> events(String body) throws Exception {
        List<JsonNode> events = new ArrayList<>();
        for (String line : body.split("\n")) {
            if (line.startsWith("data: ")) {
                events.add(MAPPER.readTree(line.substring(6)));
            }
        }
        return events;
    }

    /** The text messages of a stream, joined by spaces. */
    private static String text(List<JsonNode> events) {
        StringBuilder text = new StringBuilder();
        for (JsonNode event : events) {
            switch (event.get("type").asText()) {
                case "TEXT_MESSAGE_START" -> text.append(text.isEmpty() ? "" : " ");
                case "TEXT_MESSAGE_CONTENT" -> text.append(event.get("delta").asText());
                default -> { }
            }
        }
        return text.toString().strip().replaceAll("\\s+", " ");
    }

    private static String last(List<JsonNode> events, String field) {
        return events.get(events.size() - 1).path(field).asText();
    }

    @Test
    void twoServersOnOnePostgresServeOneThreadInTurnAndKeepThreadsApart() throws Exception {
        EmbeddedPostgres postgres = EmbeddedPostgres.shared();
        String jdbc = postgres.newDatabase();
        String store = "postgresql://postgres@127.0.0.1:" + postgres.port() + "/" + jdbc.substring(jdbc.lastIndexOf('/') + 1);
        MockScript script = MockScript.of(
                MockTurn.content(complete("first answer")),
                MockTurn.content(complete("second answer")),
                // a slow answer: while it streams on one server, the other refuses the same thread
                MockTurn.content("<thinking>" + "slowly ".repeat(40) + "</thinking>" + complete("slow answer"))
                        .chunkSize(4).delayMs(25),
                MockTurn.content("ALPHA-TEXT " + complete("alpha")).chunkSize(3).delayMs(10),
                MockTurn.content("BETA-TEXT " + complete("beta")).chunkSize(3).delayMs(10));
        try (MockLlmServer model = MockLlmServer.start(script);
             Server a = serve("--base-url", model.baseUrl().toString(), "--model", "mock", "--session-store", store);
             Server b = serve("--base-url", model.baseUrl().toString(), "--model", "mock", "--session-store", store)) {
            List<JsonNode> first = events(agui(a, input("shared", "Question one?")).body());
            assertThat(last(first, "result")).isEqualTo("first answer");

            // the other server, the whole conversation as a client sends it: it knows the thread
            List<JsonNode> second = events(agui(b, input("shared", "Question one?", "Question two?")).body());
            assertThat(last(second, "result")).isEqualTo("second answer");
            RecordedRequest sent = model.requests().get(1);
            String conversation = sent.body().get("messages").toString();
            assertThat(conversation).contains("Question one?", "first answer", "Question two?");
            assertThat(conversation.split("Question one\\?", -1)).hasSize(2);     // once

            // a run of the thread going on on A (it has begun to stream): B answers 409 for the same thread
            HttpResponse<java.io.InputStream> slow = client.send(HttpRequest.newBuilder(a.uri().resolve("/agui"))
                    .POST(HttpRequest.BodyPublishers.ofString(input("shared", "Question one?", "Question two?",
                            "Question three?").toString())).build(), HttpResponse.BodyHandlers.ofInputStream());
            BufferedReader slowLines = new BufferedReader(new InputStreamReader(slow.body(), StandardCharsets.UTF_8));
            String line;
            while ((line = slowLines.readLine()) != null && !line.contains("REASONING_MESSAGE_CONTENT")) {
                // until the run is under way
            }
            HttpResponse<String> busy = agui(b, input("shared", "Question one?", "Question two?", "Question three?"));
            assertThat(busy.statusCode()).as(busy.body()).isEqualTo(409);
            StringBuilder rest = new StringBuilder();
            while ((line = slowLines.readLine()) != null) {
                rest.append(line).append('\n');
            }
            assertThat(last(events(rest.toString()), "result")).isEqualTo("slow answer");

            // two threads at once, one on each server: each stream holds its own run only
            CompletableFuture<HttpResponse<String>> alpha = CompletableFuture.supplyAsync(() -> {
                try {
                    return agui(a, input("alpha", "Alpha?"));
                } catch (Exception e) {
                    throw new RuntimeException(e);
                }
            });
            HttpResponse<String> beta = agui(b, input("beta", "Beta?"));
            List<JsonNode> alphaEvents = events(alpha.get(60, TimeUnit.SECONDS).body());
            List<JsonNode> betaEvents = events(beta.body());
            // the model answers whichever asks first with ALPHA-TEXT: each stream has one answer, whole
            String alphaText = text(alphaEvents);
            String betaText = text(betaEvents);
            assertThat(List.of(alphaText, betaText)).containsExactlyInAnyOrder("ALPHA-TEXT alpha", "BETA-TEXT beta");
            assertThat(alphaEvents).allSatisfy(e -> assertThat(e.path("threadId").asText("alpha")).isEqualTo("alpha"));
            assertThat(betaEvents).allSatisfy(e -> assertThat(e.path("threadId").asText("beta")).isEqualTo("beta"));
        }
    }

    @Test
    void sigtermTakesNoNewRunCancelsTheRunningOneAndExitsZero() throws Exception {
        MockScript script = MockScript.of(MockTurn.content("<thinking>" + "slowly ".repeat(400) + "</thinking>"
                + complete("never")).chunkSize(2).delayMs(20));
        try (MockLlmServer model = MockLlmServer.start(script);
             Server server = serve("--base-url", model.baseUrl().toString(), "--model", "mock", "--data-dir",
                     dir.resolve("data").toString(), "--grace-seconds", "0")) {
            HttpResponse<java.io.InputStream> stream = client.send(HttpRequest.newBuilder(server.uri().resolve("/agui"))
                    .POST(HttpRequest.BodyPublishers.ofString(input("t", "Take your time.").toString())).build(),
                    HttpResponse.BodyHandlers.ofInputStream());
            BufferedReader lines = new BufferedReader(new InputStreamReader(stream.body(), StandardCharsets.UTF_8));
            String line;
            while ((line = lines.readLine()) != null && !line.contains("REASONING_MESSAGE_CONTENT")) {
                // until the run is under way
            }
            server.process().destroy();         // SIGTERM
            StringBuilder rest = new StringBuilder();
            while ((line = lines.readLine()) != null) {
                rest.append(line).append('\n');
            }
            List<JsonNode> events = events(rest.toString());
            assertThat(last(events, "type")).isEqualTo("RUN_FINISHED");
            assertThat(events.get(events.size() - 1).at("/outcome/type").asText()).isEqualTo("cancelled");
            assertThat(server.process().waitFor(30, TimeUnit.SECONDS)).isTrue();
            assertThat(server.process().exitValue()).as(server.err().toString()).isZero();
        }
    }

    @Test
    void aHostOffLoopbackWithoutATokenIsAUsageError() {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int status = BellowsCommand.commandLine(new ByteArrayInputStream(new byte[0]), out, err, false,
                new Host(Map.of("HOME", dir.toString()), dir, Interrupts.NONE, false))
                .execute("serve", "--host", "0.0.0.0", "--model", "m", "--base-url", "http://127.0.0.1:9/v1");
        assertThat(status).isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("--host").contains("not a loopback address")
                .contains("--auth-token");
        assertThat(out.toString(StandardCharsets.UTF_8)).isEmpty();
    }
}
