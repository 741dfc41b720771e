package dev.bellows.cli;

import dev.bellows.json.internal.Jackson;
import dev.bellows.testkit.Background;
import static dev.bellows.cli.RunCommandTest.complete;
import static org.assertj.core.api.Assertions.assertThat;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.node.ObjectNode;
import dev.bellows.sessions.postgres.EmbeddedPostgres;
import dev.bellows.testkit.MockLlmServer;
import dev.bellows.testkit.MockScript;
import dev.bellows.testkit.MockTurn;
import dev.bellows.testkit.RecordedRequest;
import dev.bellows.testkit.StreamHold;
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

    private static final ObjectMapper MAPPER = Jackson.JSON;
    private final HttpClient client = HttpClient.newHttpClient();

    @TempDir
    Path dir;

    /**
     * A {@code bellows serve} child process, its address once it listens, and its stderr so far.
     * Started without waiting for it to listen, so that two servers start side by side; {@link
     * #uri()} waits.
     */
    record Server(Process process, CompletableFuture<String> listening, StringBuilder err) implements AutoCloseable {

        /** Its address, once it says it listens. */
        URI uri() {
            String line = listening.join();
            String said;
            synchronized (err) {
                said = err.toString();
            }
            assertThat(line).as("stderr: %s", said).isNotNull().matches("listening on http://127\\.0\\.0\\.1:\\d+/");
            return URI.create(line.substring("listening on ".length()));
        }

        @Override
        public void close() throws Exception {
            process.destroy();
            if (!process.waitFor(30, TimeUnit.SECONDS)) {
                process.destroyForcibly();
            }
        }
    }

    private Server serve(String... args) throws Exception {
        List<String> command = new ArrayList<>(ChildJvm.bellows().java());
        command.addAll(List.of(BellowsCommand.class.getName(), "serve"));
        command.addAll(List.of(args));
        ProcessBuilder builder = new ProcessBuilder(command);
        builder.environment().put("HOME", dir.toString());
        builder.environment().remove("BELLOWS_SERVE_TOKEN");
        Process process = builder.start();
        StringBuilder err = new StringBuilder();
        // Platform threads: a read of a process's pipe holds the thread that runs a virtual one
        // until a line comes, and with one such reader per server the two carriers of a two-core
        // machine were both held, once the pool's spare had gone idle and ended; the mock model's
        // handlers (virtual threads) then never ran, and the servers waited for it for ever.
        Thread.ofPlatform().daemon().name("serve-stderr").start(() -> {
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
        CompletableFuture<String> listening = new CompletableFuture<>();
        Thread.ofPlatform().daemon().name("serve-stdout").start(() -> {
            try {
                listening.complete(new BufferedReader(new InputStreamReader(process.getInputStream(),
                        StandardCharsets.UTF_8)).readLine());
            } catch (Exception e) {
                listening.complete(null);
            }
        });
        return new Server(process, listening, err);
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
                .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(input.toString())).build(),
                HttpResponse.BodyHandlers.ofString());
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
            switch (event.get("type").asString()) {
                case "TEXT_MESSAGE_START" -> text.append(text.isEmpty() ? "" : " ");
                case "TEXT_MESSAGE_CONTENT" -> text.append(event.get("delta").asString());
                default -> { }
            }
        }
        return text.toString().strip().replaceAll("\\s+", " ");
    }

    private static String last(List<JsonNode> events, String field) {
        return events.get(events.size() - 1).path(field).asString();
    }

    @Test
    void twoServersOnOnePostgresServeOneThreadInTurnAndKeepThreadsApart() throws Exception {
        EmbeddedPostgres postgres = EmbeddedPostgres.shared();
        String jdbc = postgres.newDatabase();
        String store = "postgresql://postgres@127.0.0.1:" + postgres.port() + "/" + jdbc.substring(jdbc.lastIndexOf('/') + 1);
        MockScript script = MockScript.of(
                MockTurn.content(complete("first answer")),
                MockTurn.content(complete("second answer")),
                // a call that never returns: while its run holds the thread on one server, the other
                // refuses the thread, however slow either server is
                MockTurn.content("Let me look. " + ApprovalsCliTest.files("hang", "h.txt")),
                MockTurn.content(complete("third answer")),
                MockTurn.content("ALPHA-TEXT " + complete("alpha")).chunkSize(3).delayMs(10),
                MockTurn.content("BETA-TEXT " + complete("beta")).chunkSize(3).delayMs(10));
        String config = recordingConfig().toString();
        try (MockLlmServer model = MockLlmServer.start(script);
             Server a = serve("--base-url", model.baseUrl().toString(), "--model", "mock", "--session-store", store,
                     "--mcp-config", config);
             Server b = serve("--base-url", model.baseUrl().toString(), "--model", "mock", "--session-store", store,
                     "--mcp-config", config)) {
            List<JsonNode> first = events(agui(a, input("shared", "Question one?")).body());
            assertThat(last(first, "result")).isEqualTo("first answer");

            // the other server, the whole conversation as a client sends it: it knows the thread
            List<JsonNode> second = events(agui(b, input("shared", "Question one?", "Question two?")).body());
            assertThat(last(second, "result")).isEqualTo("second answer");
            RecordedRequest sent = model.requests().get(1);
            String conversation = sent.body().get("messages").toString();
            assertThat(conversation).contains("Question one?", "first answer", "Question two?");
            assertThat(conversation.split("Question one\\?", -1)).hasSize(2);     // once

            // a run of the thread going on on A (it is under way, its call never returns): B answers 409
            // for the same thread
            ObjectNode third = input("shared", "Question one?", "Question two?", "Question three?");
            HttpResponse<java.io.InputStream> held = client.send(HttpRequest.newBuilder(a.uri().resolve("/agui"))
                    .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(third.toString())).build(),
                    HttpResponse.BodyHandlers.ofInputStream());
            BufferedReader heldLines = new BufferedReader(new InputStreamReader(held.body(), StandardCharsets.UTF_8));
            String line;
            while ((line = heldLines.readLine()) != null && !line.contains("RUN_STARTED")) {
                // until the run is under way
            }
            assertThat(line).isNotNull();
            for (int i = 0; i < 600 && recordedPaths().isEmpty(); i++) {      // a hang guard, not a measure
                Thread.sleep(100);
            }
            assertThat(recordedPaths()).as("the call in flight").containsExactly("h.txt");
            HttpResponse<String> busy = agui(b, third);
            assertThat(busy.statusCode()).as(busy.body()).isEqualTo(409);
            // the client goes away: A cancels the run, its call with it, and lets the thread go
            held.body().close();
            HttpResponse<String> again = agui(b, third);
            for (int i = 0; i < 600 && again.statusCode() == 409; i++) {     // a hang guard, not a measure
                Thread.sleep(100);
                again = agui(b, third);
            }
            assertThat(again.statusCode()).as(again.body()).isEqualTo(200);
            assertThat(last(events(again.body()), "result")).isEqualTo("third answer");

            // two threads at once, one on each server: each stream holds its own run only
            CompletableFuture<HttpResponse<String>> alpha = Background.supply(() -> {
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
            assertThat(alphaEvents).allSatisfy(e -> assertThat(e.path("threadId").asString("alpha")).isEqualTo("alpha"));
            assertThat(betaEvents).allSatisfy(e -> assertThat(e.path("threadId").asString("beta")).isEqualTo("beta"));
        }
    }

    @Test
    void anApprovedCallCutShortByKillingTheServerLeavesTheThreadToTheNextServer() throws Exception {
        MockScript script = MockScript.of(
                MockTurn.content(ApprovalsCliTest.files("hang", "h")),
                MockTurn.content(complete("here again")));
        String config = recordingConfig().toString();
        String data = dir.resolve("data").toString();
        try (MockLlmServer model = MockLlmServer.start(script)) {
            try (Server killed = serve("--base-url", model.baseUrl().toString(), "--model", "mock", "--data-dir", data,
                    "--mcp-config", config, "--approve", "files/*")) {
                List<JsonNode> first = events(agui(killed, input("cut", "Hang")).body());
                assertThat(first.get(first.size() - 1).at("/outcome/interrupts/0/id").asString()).isEqualTo("call_1_1");
                CompletableFuture<HttpResponse<String>> approving = client.sendAsync(HttpRequest.newBuilder(
                        killed.uri().resolve("/agui")).header("Content-Type", "application/json")
                        .POST(HttpRequest.BodyPublishers.ofString(approve("cut", "call_1_1", true).toString())).build(),
                        HttpResponse.BodyHandlers.ofString());
                long guard = System.nanoTime() + TimeUnit.SECONDS.toNanos(300);   // a hang guard, not a timing check
                // the approved call hangs, so its answer ends only when the server is killed: one that came first was refused
                while (recordedPaths().isEmpty() && !approving.isDone() && System.nanoTime() < guard) {
                    Thread.sleep(20);
                }
                assertThat(recordedPaths()).as(() -> approving.isDone() ? approving.join().body() : "").containsExactly("h");
                killed.process().destroyForcibly();         // SIGKILL, the approved call in flight
                killed.process().waitFor();
                approving.handle((response, failure) -> null).get(30, TimeUnit.SECONDS);
            }
            try (Server next = serve("--base-url", model.baseUrl().toString(), "--model", "mock", "--data-dir", data,
                    "--mcp-config", config, "--approve", "files/*")) {
                List<JsonNode> carried = events(agui(next, input("cut", "Hang", "Are you there?")).body());
                assertThat(carried.get(carried.size() - 1).get("type").asString()).as(carried.toString())
                        .isEqualTo("RUN_FINISHED");
                assertThat(last(carried, "result")).isEqualTo("here again");
                assertThat(recordedPaths()).containsExactly("h");          // not run twice
                String sent = model.requests().get(model.requests().size() - 1).body().toString();
                assertThat(sent).contains("the outcome of this call is unknown").contains("Are you there?");
            }
        }
    }

    /** The recording MCP server's log: one line per call it got (servers/recording-server.js). */
    private Path callLog() {
        return dir.resolve("calls.jsonl");
    }

    private List<String> recordedPaths() throws Exception {
        if (!java.nio.file.Files.exists(callLog())) {
            return List.of();
        }
        List<String> paths = new ArrayList<>();
        for (String line : java.nio.file.Files.readAllLines(callLog(), StandardCharsets.UTF_8)) {
            paths.add(MAPPER.readTree(line).at("/arguments/path").asString());
        }
        return paths;
    }

    /** An MCP config with the recording server as "files"; its path. */
    private Path recordingConfig() throws Exception {
        Path config = dir.resolve("mcp.json");
        java.nio.file.Files.writeString(config, "{\"mcpServers\": {\"files\": {\"command\": \"node\", \"args\": ["
                + MAPPER.writeValueAsString(ApprovalsCliTest.script()) + "], \"env\": {\"CALL_LOG\": "
                + MAPPER.writeValueAsString(callLog().toString()) + "}}}}");
        return config;
    }

    private static ObjectNode approve(String threadId, String id, boolean approved) {
        ObjectNode input = input(threadId, "Write c.txt");
        ObjectNode payload = input.putArray("resume").addObject().put("interruptId", id).put("status", "resolved")
                .putObject("payload").put("approved", approved);
        if (!approved) {
            payload.put("reason", "no");
        }
        return input;
    }

    @Test
    void approvalsAreInterruptsTheOfficialClientResumesOnEitherServerAndAfterARestart() throws Exception {
        EmbeddedPostgres postgres = EmbeddedPostgres.shared();
        String jdbc = postgres.newDatabase();
        String store = "postgresql://postgres@127.0.0.1:" + postgres.port() + "/" + jdbc.substring(jdbc.lastIndexOf('/') + 1);
        Path modules = dev.bellows.testkit.NpmPackages.install(dev.bellows.testkit.NpmPackages.cacheDir("agui"),
                "@ag-ui/client@1.0.0", "@ag-ui/core@1.0.0");
        Path script = dir.resolve("approvals-client.cjs");
        try (var in = ServeCommandTest.class.getResourceAsStream("/agui/approvals-client.cjs")) {
            java.nio.file.Files.write(script, in.readAllBytes());
        }
        MockScript turns = MockScript.of(
                MockTurn.content(ApprovalsCliTest.files("write_file", "a.txt")),
                MockTurn.content(complete("wrote a.txt")),
                MockTurn.content(ApprovalsCliTest.files("write_file", "b.txt")),
                MockTurn.content(complete("left b.txt alone")),
                MockTurn.content(ApprovalsCliTest.files("write_file", "c.txt")),
                MockTurn.content(complete("wrote c.txt")));
        String config = recordingConfig().toString();
        try (MockLlmServer model = MockLlmServer.start(turns);
             Server a = serve("--base-url", model.baseUrl().toString(), "--model", "mock", "--session-store", store,
                     "--mcp-config", config, "--approve", "files/write_file");
             Server b = serve("--base-url", model.baseUrl().toString(), "--model", "mock", "--session-store", store,
                     "--mcp-config", config, "--approve", "files/write_file")) {
            ProcessBuilder node = new ProcessBuilder("node", script.toString(), a.uri().resolve("/agui").toString(),
                    b.uri().resolve("/agui").toString(), "approvals");
            node.environment().put("NODE_PATH", modules.toString());
            node.redirectError(ProcessBuilder.Redirect.INHERIT);
            Process client = node.start();
            // Read while waiting: a hang guard after a blocking read never fires when the client hangs.
            CompletableFuture<String> written = Background.supply(() -> {
                try {
                    return new String(client.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
                } catch (java.io.IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            });
            boolean ended = client.waitFor(300, TimeUnit.SECONDS);       // a hang guard, not a timing check
            if (!ended) {
                client.destroyForcibly().waitFor();
            }
            String output = written.get(30, TimeUnit.SECONDS);
            if (!ended) {
                String errA;
                String errB;
                synchronized (a.err()) {
                    errA = a.err().toString();
                }
                synchronized (b.err()) {
                    errB = b.err().toString();
                }
                org.assertj.core.api.Assertions.fail("the client did not end in 300 s; it wrote:%n%s%nserver a: %s%nserver b: %s",
                        output, errA, errB);
            }
            JsonNode out = MAPPER.readTree(output.strip().lines().reduce((x, y) -> y).orElse("{}"));
            assertThat(out.path("crashed").asString("")).isEmpty();

            JsonNode first = out.get("first");
            assertThat(first.get("error").isNull()).as(first.toString()).isTrue();
            assertThat(first.get("invalid")).as("events failing @ag-ui/core's schemas").isEmpty();
            assertThat(first.at("/outcome/type").asString()).isEqualTo("interrupt");
            assertThat(first.get("interrupts")).hasSize(1);
            JsonNode interrupt = first.get("interrupts").get(0);
            assertThat(interrupt.get("id").asString()).isEqualTo("call_1_1");
            assertThat(interrupt.get("reason").asString()).isEqualTo("tool_approval");
            assertThat(interrupt.get("toolCallId").asString()).isEqualTo("call_1_1");
            assertThat(interrupt.get("message").asString()).contains("files/write_file").contains("a.txt");

            assertThat(out.at("/unanswered/error").asString()).contains("pending interrupt");

            JsonNode approved = out.get("approved");
            assertThat(approved.get("error").isNull()).as(approved.toString()).isTrue();
            assertThat(approved.get("invalid")).isEmpty();
            assertThat(approved.at("/results/0/toolCallId").asString()).isEqualTo("call_1_1");
            assertThat(approved.at("/results/0/content").asString()).contains("wrote a.txt");
            assertThat(approved.get("result").asString()).isEqualTo("wrote a.txt");
            assertThat(approved.get("interrupts")).isEmpty();

            JsonNode second = out.get("second");
            assertThat(second.get("invalid")).isEmpty();
            assertThat(second.get("interrupts")).hasSize(1);
            JsonNode denied = out.get("denied");
            assertThat(denied.get("error").isNull()).as(denied.toString()).isTrue();
            assertThat(denied.get("invalid")).isEmpty();
            assertThat(denied.at("/results/0/content").asString()).contains("not today");
            assertThat(denied.get("result").asString()).isEqualTo("left b.txt alone");
            assertThat(out.get("warnings")).as("the client stripped nothing unknown").isEmpty();
            assertThat(recordedPaths()).containsExactly("a.txt");

            // a call waits on B; B stops (SIGTERM), and a new server carries the run on from the store
            List<JsonNode> third = events(agui(b, input("restart", "Write c.txt")).body());
            assertThat(third.get(third.size() - 1).at("/outcome/interrupts/0/id").asString()).isEqualTo("call_1_1");
            b.process().destroy();
            assertThat(b.process().waitFor(30, TimeUnit.SECONDS)).isTrue();
            try (Server again = serve("--base-url", model.baseUrl().toString(), "--model", "mock", "--session-store",
                    store, "--mcp-config", config, "--approve", "files/write_file")) {
                HttpResponse<String> unknown = agui(again, approve("restart", "call_7_7", true));
                assertThat(unknown.statusCode()).isEqualTo(400);
                assertThat(unknown.body()).contains("resume[0].interruptId").contains("call_7_7");
                List<JsonNode> resumed = events(agui(again, approve("restart", "call_1_1", true)).body());
                assertThat(last(resumed, "result")).isEqualTo("wrote c.txt");
            }
            assertThat(recordedPaths()).containsExactly("a.txt", "c.txt");
        }
    }

    @Test
    void aPostgresThatGoesAwayMidRunEndsItWithRunErrorAndLosesNoTurn() throws Exception {
        EmbeddedPostgres own = EmbeddedPostgres.own();      // not the shared one: this test takes it away
        String jdbc = own.newDatabase();
        String store = "postgresql://postgres@127.0.0.1:" + own.port() + "/" + jdbc.substring(jdbc.lastIndexOf('/') + 1);
        MockScript script = MockScript.of(
                MockTurn.content(complete("first answer")),
                MockTurn.content("<thinking>" + "slowly ".repeat(60) + "</thinking>" + complete("LOST answer"))
                        .chunkSize(4),
                MockTurn.content(complete("third answer")));
        // the second answer is held in its thinking ("<thinking>" and ten "slowly " out) until the
        // database is gone: it goes away while the model answers, however slow the machine is
        StreamHold midAnswer = StreamHold.after(1, 20);
        try (MockLlmServer model = MockLlmServer.builder(script).hold(midAnswer).start();
             Server server = serve("--base-url", model.baseUrl().toString(), "--model", "mock", "--session-store", store)) {
            List<JsonNode> first = events(agui(server, input("gone", "Question one?")).body());
            assertThat(last(first, "result")).isEqualTo("first answer");

            HttpResponse<java.io.InputStream> stream = client.send(HttpRequest.newBuilder(server.uri().resolve("/agui"))
                    .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(input("gone", "Question one?", "Question two?").toString()))
                    .build(), HttpResponse.BodyHandlers.ofInputStream());
            BufferedReader lines = new BufferedReader(new InputStreamReader(stream.body(), StandardCharsets.UTF_8));
            String line;
            while ((line = lines.readLine()) != null && !line.contains("REASONING_MESSAGE_CONTENT")) {
                // until the run is under way
            }
            own.kill();                         // the database goes away while the model answers
            midAnswer.release();
            StringBuilder rest = new StringBuilder();
            while ((line = lines.readLine()) != null) {
                rest.append(line).append('\n');
            }
            List<JsonNode> cut = events(rest.toString());
            assertThat(last(cut, "type")).isEqualTo("RUN_ERROR");
            assertThat(last(cut, "message")).contains("could not be stored");
            assertThat(cut.stream().filter(e -> e.get("type").asString().startsWith("RUN_"))).hasSize(1);

            // while it is away: a clear 503, nothing run
            HttpResponse<String> away = agui(server, input("gone", "Question one?", "Question two?"));
            assertThat(away.statusCode()).as(away.body()).isEqualTo(503);
            assertThat(away.body()).contains("session store");

            // back: the thread has its first turn, not half of the second; the second question is taken again
            own.restart();
            List<JsonNode> third = events(agui(server, input("gone", "Question one?", "Question two?")).body());
            assertThat(last(third, "result")).as(third.toString()).isEqualTo("third answer");
            String sent = model.requests().get(2).body().get("messages").toString();
            assertThat(sent).contains("Question one?", "first answer", "Question two?").doesNotContain("LOST answer");
            assertThat(sent.split("Question two\\?", -1)).hasSize(2);
            assertThat(server.err().toString()).doesNotContain("Exception in thread");
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
                    .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(input("t", "Take your time.").toString())).build(),
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
            assertThat(events.get(events.size() - 1).at("/outcome/type").asString()).isEqualTo("cancelled");
            assertThat(server.process().waitFor(30, TimeUnit.SECONDS)).isTrue();
            assertThat(server.process().exitValue()).as(server.err().toString()).isZero();
        }
    }

    /**
     * cli.md "Agents that work together": {@code bellows serve --agent NAME} serves an agent of the
     * config file, and streams its sub-agent's work between SUBAGENT_STARTED and SUBAGENT_FINISHED.
     */
    @Test
    void serveAgentServesAConfiguredAgentAndStreamsItsSubAgent() throws Exception {
        Path config = dir.resolve("bellows.json");
        java.nio.file.Files.writeString(config, """
                {"agents": {
                  "lead": {"instructions": "You plan and delegate.", "agents": ["researcher"]},
                  "researcher": {"instructions": "You find facts."}
                }}""");
        MockScript script = MockScript.of(
                MockTurn.content(RunCommandTest.call("researcher", "{\"task\": \"find the boiling point\"}")),
                MockTurn.content(complete("100 C")), MockTurn.content(complete("it boils at 100 C")));
        try (MockLlmServer model = MockLlmServer.start(script);
             Server server = serve("--agent", "lead", "--config", config.toString(), "--base-url",
                     model.baseUrl().toString(), "--model", "mock", "--data-dir", dir.resolve("data").toString())) {
            HttpResponse<String> response = agui(server, input("team", "When does water boil?"));
            assertThat(response.statusCode()).as(server.err().toString()).isEqualTo(200);
            List<JsonNode> events = events(response.body());
            JsonNode call = events.stream().filter(e -> e.get("type").asString().equals("TOOL_CALL_START")).findFirst()
                    .orElseThrow();
            assertThat(call.get("toolCallName").asString()).isEqualTo("researcher");
            JsonNode started = events.stream().filter(e -> e.get("type").asString().equals("SUBAGENT_STARTED"))
                    .findFirst().orElseThrow();
            assertThat(started.get("name").asString()).isEqualTo("researcher");
            assertThat(started.get("parentToolCallId").asString()).isEqualTo(call.get("toolCallId").asString());
            JsonNode finished = events.stream().filter(e -> e.get("type").asString().equals("SUBAGENT_FINISHED"))
                    .findFirst().orElseThrow();
            assertThat(finished.get("subagentRunId").asString()).isEqualTo(started.get("subagentRunId").asString());
            assertThat(finished.get("result").asString()).isEqualTo("100 C");
            assertThat(events.indexOf(started)).isLessThan(events.indexOf(finished));
            assertThat(last(events, "type")).isEqualTo("RUN_FINISHED");
            assertThat(last(events, "result")).isEqualTo("it boils at 100 C");
            assertThat(model.requests().get(0).body().get("messages").toString()).contains("You plan and delegate.");
            assertThat(model.requests().get(1).body().get("messages").toString()).contains("You find facts.")
                    .doesNotContain("When does water boil?");

            // the thread is a session that keeps the sub-agent's work: sessions show prints it nested
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            ByteArrayOutputStream err = new ByteArrayOutputStream();
            int status = BellowsCommand.commandLine(new ByteArrayInputStream(new byte[0]), out, err, false,
                    new Host(Map.of("HOME", dir.toString()), dir, Interrupts.NONE, false))
                    .execute("sessions", "show", "team", "--data-dir", dir.resolve("data").toString());
            assertThat(status).as(err.toString(StandardCharsets.UTF_8)).isZero();
            assertThat(out.toString(StandardCharsets.UTF_8)).contains("[sub-agents]\n  agent researcher: find the boiling point\n"
                    + "    researcher calls task_completion\u2026\n    \u2713 task_completion: 100 C\n"
                    + "    researcher task_completion: 100 C\n");
        }
    }

    /**
     * cli.md "A2A": {@code bellows serve --a2a} serves the agent card and A2A's two bindings beside
     * AG-UI; a message is a task that completes with the answer as an artifact, read back over
     * HTTP+JSON, and the next task of its context continues the conversation.
     */
    @Test
    void serveA2aAnswersATaskOverJsonRpcAndKeepsItForHttpJson() throws Exception {
        MockScript script = MockScript.of(MockTurn.content(complete("Noted: 7.")), MockTurn.content(complete("It was 7.")));
        try (MockLlmServer model = MockLlmServer.start(script);
             Server server = serve("--a2a", "--base-url", model.baseUrl().toString(), "--model", "mock", "--data-dir",
                     dir.resolve("data").toString())) {
            JsonNode card = MAPPER.readTree(client.send(HttpRequest.newBuilder(server.uri().resolve("/.well-known/agent-card.json"))
                    .build(), HttpResponse.BodyHandlers.ofString()).body());
            assertThat(card.at("/supportedInterfaces/0/protocolVersion").asString()).isEqualTo("1.0");
            assertThat(card.at("/capabilities/streaming").asBoolean()).isTrue();
            String rpc = card.at("/supportedInterfaces/0/url").asString();
            String first = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"SendMessage\",\"params\":{\"message\":"
                    + "{\"messageId\":\"m1\",\"role\":\"ROLE_USER\",\"contextId\":\"c1\",\"parts\":[{\"text\":\"Remember 7.\"}]}}}";
            JsonNode task = MAPPER.readTree(client.send(HttpRequest.newBuilder(URI.create(rpc)).header("A2A-Version", "1.0")
                    .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(first)).build(),
                    HttpResponse.BodyHandlers.ofString()).body()).at("/result/task");
            assertThat(task.at("/status/state").asString()).as(server.err().toString()).isEqualTo("TASK_STATE_COMPLETED");
            assertThat(task.at("/artifacts/0/parts/0/text").asString()).isEqualTo("Noted: 7.");
            JsonNode got = MAPPER.readTree(client.send(HttpRequest.newBuilder(server.uri().resolve("/a2a/rest/tasks/"
                    + task.path("id").asString())).header("A2A-Version", "1.0").build(), HttpResponse.BodyHandlers.ofString()).body());
            assertThat(got.at("/artifacts/0/parts/0/text").asString()).isEqualTo("Noted: 7.");
            String second = first.replace("\"m1\"", "\"m2\"").replace("Remember 7.", "Which number?");
            client.send(HttpRequest.newBuilder(URI.create(rpc)).header("A2A-Version", "1.0")
                    .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(second)).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(model.requests().get(1).body().toString()).contains("Remember 7.", "Noted: 7.");
        }
    }

    /** {@code serve} in this JVM, stopped as soon as it listens: its status, stdout and stderr. */
    private List<String> serveAndStop(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        Interrupts stopAtOnce = action -> {
            action.run();
            return () -> { };
        };
        List<String> command = new ArrayList<>(List.of("serve", "--port", "0"));
        command.addAll(List.of(args));
        int status = BellowsCommand.commandLine(new ByteArrayInputStream(new byte[0]), out, err, false,
                new Host(Map.of("HOME", dir.toString()), dir, stopAtOnce, false)).execute(command.toArray(String[]::new));
        return List.of(String.valueOf(status), out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    @Test
    void aServerSaysAtStartWhichModelItAsksAtWhichEndpointAndNeverTheKey() {
        // serve.md's first example without a key: the default local endpoint, said so
        List<String> local = serveAndStop("--model", "gpt-4o-mini");
        assertThat(local.get(0)).as(local.get(2)).isEqualTo("0");
        assertThat(local.get(2)).startsWith("bellows serve: model gpt-4o-mini at http://localhost:11434/v1 (no API key set)\n");
        assertThat(local.get(1)).matches("listening on http://127\\.0\\.0\\.1:\\d+/\n");     // stdout unchanged

        String key = "sk-serve-start-5e1f";
        List<String> keyed = serveAndStop("--model", "m", "--api-key", key,
                "--base-url", "http://user:pw-9c2@127.0.0.1:9/v1");
        assertThat(keyed.get(0)).as(keyed.get(2)).isEqualTo("0");
        assertThat(keyed.get(2)).startsWith("bellows serve: model m at http://127.0.0.1:9/v1\n")
                .doesNotContain(key).doesNotContain("pw-9c2");
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

    private int serveInProcess(ByteArrayOutputStream out, ByteArrayOutputStream err, String... args) throws Exception {
        List<String> all = new ArrayList<>(List.of("serve", "--model", "m", "--base-url", "http://127.0.0.1:9/v1"));
        all.addAll(List.of(args));
        // a hang guard, not a measure: a server that took the options would serve until stopped
        return Background.supply(() -> BellowsCommand.commandLine(new ByteArrayInputStream(new byte[0]), out, err, false,
                new Host(Map.of("HOME", dir.toString()), dir, Interrupts.NONE, false)).execute(all.toArray(String[]::new)))
                .get(120, TimeUnit.SECONDS);
    }

    @Test
    void anEmptyHostEveryOriginWithoutATokenAndAnOriginWithAPathAreUsageErrors() throws Exception {
        for (List<String> args : List.of(List.of("--host", ""), List.of("--allow-origin", "*"),
                List.of("--allow-origin", "https://app.example.com/chat"), List.of("--allow-host", "http://a.example"))) {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            ByteArrayOutputStream err = new ByteArrayOutputStream();
            assertThat(serveInProcess(out, err, args.toArray(String[]::new))).as(args.toString()).isEqualTo(2);
            assertThat(err.toString(StandardCharsets.UTF_8)).as(args.toString()).contains(args.get(0));
            assertThat(out.toString(StandardCharsets.UTF_8)).as(args.toString()).doesNotContain("listening");
        }
    }

    /** The status and body of a request sent on a raw socket (Java's client will not send a Host of ours). */
    private static String[] raw(URI server, String head) throws Exception {
        try (java.net.Socket socket = new java.net.Socket(server.getHost(), server.getPort())) {
            socket.setSoTimeout(60_000);        // a hang guard, not a measure
            socket.getOutputStream().write((head + "Connection: close\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            String response = new String(socket.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            return new String[] {response.split(" ", 3)[1], response.substring(response.indexOf("\r\n\r\n") + 4)};
        }
    }

    @Test
    void theServerAnswersLoopbackAndAllowedHostsAndItsOwnAndAllowedOriginsOnly() throws Exception {
        try (Server server = serve("--base-url", "http://127.0.0.1:9/v1", "--model", "mock", "--data-dir",
                dir.resolve("data").toString(), "--allow-host", "agents.internal", "--allow-origin", "https://app.example.com")) {
            URI uri = server.uri();
            String[] rebound = raw(uri, "GET /health HTTP/1.1\r\nHost: attacker.example:" + uri.getPort() + "\r\n");
            assertThat(rebound[0]).isEqualTo("403");
            assertThat(rebound[1]).contains("--allow-host attacker.example");
            assertThat(raw(uri, "GET /health HTTP/1.1\r\nHost: agents.internal\r\n")[0]).isEqualTo("200");
            assertThat(raw(uri, "GET /health HTTP/1.1\r\nHost: localhost:" + uri.getPort() + "\r\n")[0]).isEqualTo("200");

            String[] evil = raw(uri, "GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nOrigin: http://evil.example\r\n");
            assertThat(evil[0]).isEqualTo("403");
            assertThat(evil[1]).contains("--allow-origin http://evil.example");
            assertThat(raw(uri, "OPTIONS /agui HTTP/1.1\r\nHost: 127.0.0.1\r\nOrigin: https://app.example.com\r\n"
                    + "Access-Control-Request-Method: POST\r\n")[0]).isEqualTo("204");
            assertThat(raw(uri, "GET /health HTTP/1.1\r\nHost: 127.0.0.1:" + uri.getPort() + "\r\nOrigin: http://127.0.0.1:"
                    + uri.getPort() + "\r\n")[0]).isEqualTo("200");
        }
    }
}
