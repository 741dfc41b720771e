package dev.bellows.server;

import dev.bellows.testkit.Background;
import static dev.bellows.server.ServerFixture.call;
import static dev.bellows.server.ServerFixture.runInput;
import static dev.bellows.server.ServerFixture.turn;
import static dev.bellows.server.ServerFixture.types;
import static org.assertj.core.api.Assertions.assertThat;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;
import dev.bellows.provider.ChatRequest;
import dev.bellows.provider.Message;
import dev.bellows.provider.Role;
import dev.bellows.testkit.MockScript;
import dev.bellows.testkit.MockTurn;
import dev.bellows.tool.ToolRegistry;
import dev.bellows.tool.TypedTool;
import dev.bellows.agent.Agent;
import dev.bellows.agent.AgentRun;
import dev.bellows.agent.DefaultAgent;
import dev.bellows.agent.Session;
import dev.bellows.server.jetty.JettyAgentServer;
import dev.bellows.event.LoopEvent;
import dev.bellows.testkit.ScriptedProvider;
import java.io.BufferedReader;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.InterruptedIOException;
import java.io.OutputStream;
import java.net.Socket;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** {@code AgentServer} on a real Jetty server, as cli.md's "bellows serve" describes it. */
class AgentServerTest {

    record Question(String q) {
    }

    private static final String PLAN = "{\"steps\": [{\"description\": \"add the numbers\", \"status\": \"completed\"},"
            + " {\"description\": \"answer\", \"status\": \"in_progress\"}]}";

    static MockScript addingScript() {
        return MockScript.of(
                turn("<thinking>Add them.</thinking>Let me add. " + call("add", "{\"a\": 40, \"b\": 2}")),
                turn(call("update_plan", PLAN)),
                turn(call("task_completion", "{\"result\": \"It is **42**.\"}")));
    }

    @Test
    void aRunStreamsItsStepsAsAgUiEventsInOrder() throws Exception {
        try (ServerFixture fixture = new ServerFixture(addingScript(), b -> { })) {
            List<JsonNode> events = fixture.agui(runInput("t1", "What is 40 + 2?"));
            List<String> types = types(events);

            assertThat(types.get(0)).isEqualTo("RUN_STARTED");
            assertThat(types.get(types.size() - 1)).isEqualTo("RUN_FINISHED");
            assertThat(events.get(0).get("threadId").asString()).isEqualTo("t1");
            JsonNode finished = events.get(events.size() - 1);
            assertThat(finished.get("result").asString()).isEqualTo("It is **42**.");
            assertThat(finished.path("outcome").path("type").asString()).isEqualTo("success");
            assertThat(types).containsSubsequence("STEP_STARTED", "REASONING_START", "REASONING_MESSAGE_START",
                    "REASONING_MESSAGE_CONTENT", "REASONING_MESSAGE_END", "REASONING_END", "TEXT_MESSAGE_START",
                    "TEXT_MESSAGE_CONTENT", "TEXT_MESSAGE_END", "TOOL_CALL_START", "TOOL_CALL_ARGS", "TOOL_CALL_END",
                    "TOOL_CALL_RESULT", "STEP_FINISHED", "STEP_STARTED", "STATE_SNAPSHOT", "STEP_FINISHED",
                    "STEP_STARTED", "STEP_FINISHED", "TEXT_MESSAGE_START", "TEXT_MESSAGE_CONTENT", "TEXT_MESSAGE_END",
                    "RUN_FINISHED");

            JsonNode start = events.stream().filter(e -> e.get("type").asString().equals("TOOL_CALL_START")
                    && e.get("toolCallName").asString().equals("add")).findFirst().orElseThrow();
            String callId = start.get("toolCallId").asString();
            StringBuilder args = new StringBuilder();
            events.stream().filter(e -> e.get("type").asString().equals("TOOL_CALL_ARGS")
                    && e.get("toolCallId").asString().equals(callId)).forEach(e -> args.append(e.get("delta").asString()));
            assertThat(ServerFixture.MAPPER.readTree(args.toString()))
                    .isEqualTo(ServerFixture.MAPPER.readTree("{\"a\": 40, \"b\": 2}"));
            JsonNode result = events.stream().filter(e -> e.get("type").asString().equals("TOOL_CALL_RESULT")
                    && e.get("toolCallId").asString().equals(callId)).findFirst().orElseThrow();
            assertThat(result.get("content").asString()).isEqualTo("42");

            JsonNode snapshot = events.stream().filter(e -> e.get("type").asString().equals("STATE_SNAPSHOT"))
                    .findFirst().orElseThrow();
            assertThat(snapshot.at("/snapshot/plan/0/description").asString()).isEqualTo("add the numbers");
            assertThat(snapshot.at("/snapshot/plan/1/status").asString()).isEqualTo("in_progress");
            assertThat(events).filteredOn(e -> e.get("type").asString().equals("TEXT_MESSAGE_CONTENT"))
                    .extracting(e -> e.get("delta").asString()).contains("It is **42**.");
        }
    }

    @Test
    void runStartedCarriesThePlanTheThreadHadBeforeTheRunEvenOnceTheRunHasReplacedIt() throws Exception {
        // The run starts before the response does; here the response waits until the run has
        // replaced the plan, as a fast run on a slow request thread does. RUN_STARTED still tells
        // the plan from before the run (none), and the run's own update_plan comes as its event.
        CountDownLatch replaced = new CountDownLatch(1);
        DefaultAgent agent = DefaultAgent.builder().provider(new ScriptedProvider(MockScript.of(
                        turn(call("update_plan", PLAN)),
                        turn(call("task_completion", "{\"result\": \"planned\"}")))))
                .model("mock").toolRegistry(new ToolRegistry())
                .listener(event -> {
                    if (event instanceof LoopEvent.PlanUpdate) {
                        replaced.countDown();
                    }
                })
                .build();
        AgentServer server = AgentServer.builder(agent).build();
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        byte[] request = runInput("planned", "Plan it.").toString().getBytes(StandardCharsets.UTF_8);
        server.handle(new ServerExchange() {
            @Override
            public String method() {
                return "POST";
            }

            @Override
            public String path() {
                return "/agui";
            }

            @Override
            public Optional<String> header(String name) {
                return name.equalsIgnoreCase("Content-Type") ? Optional.of("application/json") : Optional.empty();
            }

            @Override
            public InputStream body() {
                return new ByteArrayInputStream(request);
            }

            @Override
            public long contentLength() {
                return request.length;
            }

            @Override
            public OutputStream respond(int status, Map<String, String> headers) throws IOException {
                assertThat(status).isEqualTo(200);
                try {
                    assertThat(replaced.await(30, TimeUnit.SECONDS)).as("the run replaced the plan").isTrue();
                } catch (InterruptedException e) {
                    throw new InterruptedIOException();
                }
                return body;
            }
        });
        List<JsonNode> events = ServerFixture.events(body.toString(StandardCharsets.UTF_8));
        List<String> types = types(events);
        assertThat(types).endsWith("RUN_FINISHED").doesNotContain("STATE_DELTA");
        assertThat(types.get(1)).isEqualTo("STEP_STARTED");
        assertThat(types).containsSubsequence("TOOL_CALL_END", "STATE_SNAPSHOT", "STEP_FINISHED");
        assertThat(events.get(types.indexOf("STATE_SNAPSHOT")).at("/snapshot/plan/0/description").asString())
                .isEqualTo("add the numbers");
    }

    @Test
    void theNameStartsTheToolCallBeforeItsArgumentsHaveStreamed() throws Exception {
        // One character per chunk: TOOL_CALL_START must come as soon as the name is complete,
        // and the arguments follow as deltas, several of them.
        MockScript script = MockScript.of(
                MockTurn.content(call("add", "{\"a\": 40, \"b\": 2}")).chunkSize(1),
                turn(call("task_completion", "{\"result\": \"42\"}")));
        try (ServerFixture fixture = new ServerFixture(script, b -> { })) {
            List<String> types = types(fixture.agui(runInput("t1", "What is 40 + 2?")));
            int start = types.indexOf("TOOL_CALL_START");
            int firstArgs = types.indexOf("TOOL_CALL_ARGS");
            int end = types.indexOf("TOOL_CALL_END");
            assertThat(start).isPositive().isLessThan(firstArgs);
            assertThat(types.subList(firstArgs, end)).hasSizeGreaterThan(5).containsOnly("TOOL_CALL_ARGS");
        }
    }

    @Test
    void aThreadContinuesWhetherTheClientSendsAllOfItOrOnlyTheNewMessage() throws Exception {
        MockScript script = MockScript.of(turn(call("task_completion", "{\"result\": \"42\"}")),
                turn(call("task_completion", "{\"result\": \"43\"}")),
                turn(call("task_completion", "{\"result\": \"44\"}")));
        try (ServerFixture fixture = new ServerFixture(script, b -> { })) {
            fixture.agui(runInput("t1", "What is 40 + 2?"));
            // the whole conversation again, with one new message
            List<JsonNode> second = fixture.agui(runInput("t1", "What is 40 + 2?", "And 40 + 3?"));
            assertThat(second.get(second.size() - 1).get("result").asString()).isEqualTo("43");
            // only the new message (the ids are the client's: u2 is new)
            ObjectNode third = runInput("t1");
            third.withArray("messages").addObject().put("id", "t1-u2").put("role", "user").put("content", "And 40 + 4?");
            fixture.agui(third);

            ChatRequest last = fixture.provider.requests().get(2);
            List<String> userTexts = last.messages().stream().filter(m -> m.role() == Role.USER).map(Message::content).toList();
            assertThat(userTexts).filteredOn(t -> t.contains("What is 40 + 2?")).hasSize(1);
            assertThat(userTexts).filteredOn(t -> t.contains("And 40 + 3?")).hasSize(1);
            assertThat(userTexts).filteredOn(t -> t.contains("And 40 + 4?")).hasSize(1);

            // nothing new: 400, and no model call
            HttpResponse<String> again = fixture.post("/agui", runInput("t1", "What is 40 + 2?").toString());
            assertThat(again.statusCode()).isEqualTo(400);
            assertThat(again.body()).contains("\"param\":\"messages\"");
            assertThat(fixture.provider.turnsTaken()).isEqualTo(3);
        }
    }

    @Test
    void malformedInputGets400NamingTheField() throws Exception {
        try (ServerFixture fixture = new ServerFixture(addingScript(), b -> { })) {
            HttpResponse<String> notJson = fixture.post("/agui", "{\"threadId\": ");
            assertThat(notJson.statusCode()).isEqualTo(400);
            assertThat(notJson.headers().firstValue("Content-Type")).hasValue("application/json");
            assertThat(notJson.body()).contains("not valid JSON");

            ObjectNode badRole = runInput("t1", "hi");
            ((ObjectNode) badRole.withArray("messages").get(0)).put("role", "robot");
            HttpResponse<String> role = fixture.post("/agui", badRole.toString());
            assertThat(role.statusCode()).isEqualTo(400);
            assertThat(ServerFixture.MAPPER.readTree(role.body()).at("/error/param").asString()).isEqualTo("messages[0].role");

            ObjectNode wrongType = runInput("t1", "hi");
            wrongType.put("messages", 12);
            assertThat(ServerFixture.MAPPER.readTree(fixture.post("/agui", wrongType.toString()).body())
                    .at("/error/param").asString()).isEqualTo("messages");

            ObjectNode noThread = runInput("t1", "hi");
            noThread.remove("threadId");
            assertThat(ServerFixture.MAPPER.readTree(fixture.post("/agui", noThread.toString()).body())
                    .at("/error/param").asString()).isEqualTo("threadId");

            ObjectNode unknownResume = runInput("t1", "hi");
            unknownResume.putArray("resume").addObject().put("interruptId", "nope").put("status", "resolved");
            HttpResponse<String> resume = fixture.post("/agui", unknownResume.toString());
            assertThat(resume.statusCode()).isEqualTo(400);
            assertThat(resume.body()).contains("resume[0].interruptId");

            assertThat(fixture.post("/v1/chat/completions", "{\"messages\": [{\"role\": \"user\"}]}").body())
                    .contains("messages[0].content");
            assertThat(fixture.provider.turnsTaken()).isZero();
        }
    }

    @Test
    void aBodyOverTheLimitGets413() throws Exception {
        try (ServerFixture fixture = new ServerFixture(addingScript(), b -> b.maxRequestBytes(1000))) {
            HttpResponse<String> response = fixture.post("/agui", runInput("t1", "x".repeat(2000)).toString());
            assertThat(response.statusCode()).isEqualTo(413);
            assertThat(response.body()).contains("1000 bytes");
        }
    }

    @Test
    void withATokenEveryEndpointButThePageAndHealthNeedsIt() throws Exception {
        String token = "s3cret-t0ken-value";
        // a model that repeats the token it was shown: it never reaches the client
        MockScript script = MockScript.of(turn("The token is " + token + ". "
                + call("task_completion", "{\"result\": \"You said " + token + "\"}")));
        try (ServerFixture fixture = new ServerFixture(script, b -> b.authToken(token))) {
            HttpResponse<String> without = fixture.post("/agui", runInput("t1", "hi").toString());
            assertThat(without.statusCode()).isEqualTo(401);
            assertThat(without.headers().firstValue("WWW-Authenticate")).hasValue("Bearer");
            assertThat(fixture.post("/agui", runInput("t1", "hi").toString(), "Authorization", "Bearer wrong").statusCode())
                    .isEqualTo(401);
            assertThat(fixture.post("/v1/chat/completions", "{}").statusCode()).isEqualTo(401);
            assertThat(fixture.get("/v1/models").statusCode()).isEqualTo(401);
            HttpResponse<String> health = fixture.get("/health");
            assertThat(health.statusCode()).isEqualTo(200);
            assertThat(health.body()).isEqualTo("{\"status\":\"ok\"}");
            HttpResponse<String> page = fixture.get("/");
            assertThat(page.statusCode()).isEqualTo(200);
            assertThat(page.body()).contains("<title>Bellows</title>").doesNotContain(token);

            List<JsonNode> events = fixture.agui(runInput("t1", "Say " + token),
                    "Authorization", "Bearer " + token);
            assertThat(types(events)).endsWith("RUN_FINISHED");
            assertThat(events.toString()).doesNotContain(token).contains(Redactor.MARK);
        }
    }

    /** The status line and headers of one response read from a raw connection, the header names lower case. */
    private static java.util.Map<String, String> rawResponse(ServerFixture fixture, String request, byte[] body)
            throws Exception {
        try (Socket socket = new Socket("127.0.0.1", fixture.http.port())) {
            OutputStream out = socket.getOutputStream();
            out.write(request.getBytes(StandardCharsets.US_ASCII));
            out.write(body);
            out.flush();
            BufferedReader in = new BufferedReader(new InputStreamReader(socket.getInputStream(), StandardCharsets.UTF_8));
            java.util.Map<String, String> head = new java.util.HashMap<>();
            head.put("status", in.readLine());
            for (String line = in.readLine(); line != null && !line.isEmpty(); line = in.readLine()) {
                int colon = line.indexOf(':');
                head.put(line.substring(0, colon).toLowerCase(java.util.Locale.ROOT), line.substring(colon + 1).strip());
            }
            return head;
        }
    }

    @Test
    void aRequestRefusedBeforeItsBodyWasReadTellsTheClientTheConnectionCloses() throws Exception {
        // Without it, a client that sent its next request on the same connection found it closed
        // by the server, which would not read the refused body ("header parser received no bytes").
        try (ServerFixture fixture = new ServerFixture(addingScript(), b -> b.authToken("the-token"))) {
            byte[] body = runInput("t1", "hi").toString().getBytes(StandardCharsets.UTF_8);
            String post = "POST /agui HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: "
                    + body.length + "\r\n";
            java.util.Map<String, String> refused = rawResponse(fixture, post + "\r\n", body);
            assertThat(refused.get("status")).isEqualTo("HTTP/1.1 401 Unauthorized");
            assertThat(refused.get("connection")).isEqualTo("close");

            // the body read, then refused: the connection is kept
            byte[] notJson = "{not json".getBytes(StandardCharsets.UTF_8);
            java.util.Map<String, String> bad = rawResponse(fixture, "POST /agui HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                    + "Content-Type: application/json\r\nAuthorization: Bearer the-token\r\nContent-Length: " + notJson.length + "\r\n\r\n", notJson);
            assertThat(bad.get("status")).startsWith("HTTP/1.1 400");
            assertThat(bad.get("connection")).isNotEqualTo("close");

            // no body: nothing to say
            java.util.Map<String, String> models = rawResponse(fixture, "GET /v1/models HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n",
                    new byte[0]);
            assertThat(models.get("status")).isEqualTo("HTTP/1.1 401 Unauthorized");
            assertThat(models.get("connection")).isNotEqualTo("close");
        }
    }

    @Test
    void aSecondRunOfABusyThreadGets409AndMoreRunsThanAllowedGet429() throws Exception {
        CountDownLatch entered = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        ToolRegistry tools = new ToolRegistry().register(TypedTool.of("wait", "Waits.", Question.class, (context, q) -> {
            entered.countDown();
            release.await();
            return dev.bellows.tool.ToolResult.of("waited");
        }));
        MockScript script = MockScript.of(turn(call("wait", "{\"q\": \"x\"}")),
                turn(call("task_completion", "{\"result\": \"done\"}")));
        try (ServerFixture fixture = new ServerFixture(script, b -> b.maxRuns(1), tools)) {
            CompletableFuture<List<JsonNode>> first = Background.supply(() -> {
                try {
                    return fixture.agui(runInput("busy", "wait please"));
                } catch (Exception e) {
                    throw new RuntimeException(e);
                }
            });
            assertThat(entered.await(30, TimeUnit.SECONDS)).isTrue();

            HttpResponse<String> tooMany = fixture.post("/agui", runInput("other", "hi").toString());
            assertThat(tooMany.statusCode()).isEqualTo(429);
            assertThat(tooMany.headers().firstValue("Retry-After")).isPresent();

            release.countDown();
            assertThat(types(first.get(30, TimeUnit.SECONDS))).endsWith("RUN_FINISHED");
        }
        CountDownLatch entered2 = new CountDownLatch(1);
        CountDownLatch release2 = new CountDownLatch(1);
        ToolRegistry tools2 = new ToolRegistry().register(TypedTool.of("wait", "Waits.", Question.class, (context, q) -> {
            entered2.countDown();
            release2.await();
            return dev.bellows.tool.ToolResult.of("waited");
        }));
        try (ServerFixture fixture = new ServerFixture(script, b -> { }, tools2)) {
            CompletableFuture<List<JsonNode>> first = Background.supply(() -> {
                try {
                    return fixture.agui(runInput("busy", "wait please"));
                } catch (Exception e) {
                    throw new RuntimeException(e);
                }
            });
            assertThat(entered2.await(30, TimeUnit.SECONDS)).isTrue();
            HttpResponse<String> busy = fixture.post("/agui", runInput("busy", "wait please", "and again").toString());
            assertThat(busy.statusCode()).isEqualTo(409);
            assertThat(busy.body()).contains("busy");
            release2.countDown();
            assertThat(types(first.get(30, TimeUnit.SECONDS))).endsWith("RUN_FINISHED");
        }
    }

    @Test
    void aClientThatGoesAwayCancelsItsRunEvenWhileALongToolRunsSilently() throws Exception {
        CountDownLatch entered = new CountDownLatch(1);
        CompletableFuture<Boolean> interrupted = new CompletableFuture<>();
        ToolRegistry tools = new ToolRegistry().register(TypedTool.of("wait", "Waits.", Question.class, (context, q) -> {
            entered.countDown();
            try {
                Thread.sleep(TimeUnit.MINUTES.toMillis(5));
                interrupted.complete(false);
            } catch (InterruptedException e) {
                interrupted.complete(true);
                throw e;
            }
            return dev.bellows.tool.ToolResult.of("waited");
        }));
        MockScript script = MockScript.of(turn(call("wait", "{\"q\": \"x\"}")),
                turn(call("task_completion", "{\"result\": \"done\"}")));
        try (ServerFixture fixture = new ServerFixture(script, b -> { }, tools)) {
            byte[] body = runInput("gone", "wait please").toString().getBytes(StandardCharsets.UTF_8);
            try (Socket socket = new Socket("127.0.0.1", fixture.http.port())) {
                OutputStream out = socket.getOutputStream();
                out.write(("POST /agui HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: "
                        + body.length + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
                out.write(body);
                out.flush();
                BufferedReader in = new BufferedReader(new InputStreamReader(socket.getInputStream(), StandardCharsets.UTF_8));
                assertThat(in.readLine()).isEqualTo("HTTP/1.1 200 OK");
                assertThat(entered.await(30, TimeUnit.SECONDS)).isTrue();
            }
            // nothing is written while the tool runs but heartbeats: the next ones find the connection closed
            assertThat(interrupted.get(30, TimeUnit.SECONDS)).isTrue();
            assertThat(fixture.provider.turnsTaken()).isEqualTo(1);
        }
    }

    @Test
    void aClientThatNeverReadsCannotHoldItsThread() throws Exception {
        // an answer of 8 MB, far more than the connection's buffers hold; an idle timeout of 10 s, far
        // above any stall of a loaded machine, so that only the client that never reads meets it
        MockScript script = MockScript.of(
                MockTurn.content("x".repeat(8 << 20) + " " + call("task_completion", "{\"result\": \"long\"}"))
                        .chunkSize(1 << 16),
                turn(call("task_completion", "{\"result\": \"after\"}")));
        try (ServerFixture fixture = new ServerFixture(script, b -> { }, new ToolRegistry(), java.time.Duration.ofSeconds(10))) {
            byte[] body = runInput("stuck", "write a lot").toString().getBytes(StandardCharsets.UTF_8);
            try (Socket socket = new Socket("127.0.0.1", fixture.http.port())) {
                socket.setReceiveBufferSize(4096);
                OutputStream out = socket.getOutputStream();
                out.write(("POST /agui HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: "
                        + body.length + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
                out.write(body);
                out.flush();
                // never read: the server's writes stall, and after the idle timeout the thread is free again
                HttpResponse<String> next = null;
                for (int i = 0; i < 1200; i++) {
                    next = fixture.post("/agui", runInput("stuck", "write a lot", "then this").toString());
                    if (next.statusCode() != 409) {
                        break;
                    }
                    Thread.sleep(100);
                }
                assertThat(next.statusCode()).as(next.body()).isEqualTo(200);
                assertThat(types(ServerFixture.events(next.body()))).endsWith("RUN_FINISHED");
            }
        }
    }

    @Test
    void aModelThatFailsEndsTheRunWithRunErrorAndTheThreadGoesOn() throws Exception {
        MockScript script = MockScript.of(MockTurn.status(400).errorMessage("the model broke"),
                turn(call("task_completion", "{\"result\": \"fine now\"}")));
        try (ServerFixture fixture = new ServerFixture(script, b -> { })) {
            List<JsonNode> failed = fixture.agui(runInput("t1", "hello"));
            JsonNode last = failed.get(failed.size() - 1);
            assertThat(last.get("type").asString()).isEqualTo("RUN_ERROR");
            assertThat(last.get("message").asString()).contains("the model broke");
            assertThat(types(failed)).doesNotContain("RUN_FINISHED");

            List<JsonNode> again = fixture.agui(runInput("t1", "hello"));
            assertThat(again.get(again.size() - 1).get("result").asString()).isEqualTo("fine now");
            // the failed run stored nothing, so its message is taken again, once
            List<Message> sent = fixture.provider.requests().get(1).messages();
            assertThat(sent.stream().filter(m -> m.role() == Role.USER && m.content().contains("hello"))).hasSize(1);
        }
    }

    @Test
    void aCompletionWhoseRunStartsAfterShutdownBeganIsCancelledStreamingOrNot() throws Exception {
        for (boolean stream : List.of(true, false)) {
            // The request has its slot, then waits at the agent's door while the server shuts down:
            // shutdown finds no run to cancel, yet waits for that request; the run that starts then
            // must not go on, and shutdown returns only once it ended.
            // Its model answers one piece, then nothing for ten minutes unless the call is cancelled.
            CountDownLatch atTheDoor = new CountDownLatch(1);
            CountDownLatch enter = new CountDownLatch(1);
            DefaultAgent inner = DefaultAgent.builder().provider(new ScriptedProvider(MockScript.of(
                            MockTurn.content("Let me see. " + call("task_completion", "{\"result\": \"42\"}"))
                                    .chunkSize(4).delayMs(600_000))))
                    .model("mock").toolRegistry(new ToolRegistry()).build();
            Agent gated = new Agent() {
                @Override
                public AgentRun run(String task) {
                    return inner.run(task);
                }

                @Override
                public AgentRun run(String task, Session session) {
                    atTheDoor.countDown();
                    try {
                        enter.await();
                    } catch (InterruptedException e) {
                        throw new IllegalStateException(e);
                    }
                    return inner.run(task, session);
                }
            };
            AgentServer server = AgentServer.builder(gated).build();
            // the client closes first: Jetty's stop would wait a second for its idle connection
            try (JettyAgentServer http = JettyAgentServer.start(server, "127.0.0.1", 0);
                 HttpClient client = HttpClient.newHttpClient()) {
                CompletableFuture<HttpResponse<String>> answer = client.sendAsync(HttpRequest.newBuilder(
                                http.uri().resolve("/v1/chat/completions")).POST(HttpRequest.BodyPublishers.ofString(
                                "{\"stream\": " + stream + ", \"messages\": [{\"role\": \"user\", \"content\": \"40 + 2?\"}]}"))
                        .header("Content-Type", "application/json").build(), HttpResponse.BodyHandlers.ofString());
                assertThat(atTheDoor.await(30, TimeUnit.SECONDS)).isTrue();
                CompletableFuture<Long> shutdown = Background.supply(() -> {
                    server.shutdown(java.time.Duration.ZERO);
                    return enter.getCount();      // 0: it returned only after the request went on
                });
                // The server is closing once a new request is refused; only then is the first let in.
                while (client.send(HttpRequest.newBuilder(http.uri().resolve("/v1/chat/completions"))
                                .POST(HttpRequest.BodyPublishers.ofString(
                                        "{\"messages\": [{\"role\": \"user\", \"content\": \"?\"}]}"))
                                .header("Content-Type", "application/json").build(),
                        HttpResponse.BodyHandlers.discarding()).statusCode() != 503) {
                    Thread.onSpinWait();
                }
                assertThat(shutdown).as("shutdown waits for the request let in before it").isNotDone();
                enter.countDown();
                HttpResponse<String> response = answer.get(30, TimeUnit.SECONDS);
                // The answer as a JSON string: a bare 42 may be in the response's id or creation time.
                assertThat(response.body()).as("stream: " + stream).contains("cancelled").doesNotContain("\"42\"");
                assertThat(shutdown.get(30, TimeUnit.SECONDS)).isZero();
                assertThat(server.runningRuns()).isZero();
            }
        }
    }

    @Test
    void chatCompletionsAnswerWithTheAgentsFinalAnswerStreamingOrNot() throws Exception {
        try (ServerFixture fixture = new ServerFixture(MockScript.of(
                turn("<thinking>easy</thinking>" + call("task_completion", "{\"result\": \"42\"}")),
                turn(call("task_completion", "{\"result\": \"43\"}"))), b -> { })) {
            HttpResponse<String> plain = fixture.post("/v1/chat/completions",
                    "{\"model\": \"x\", \"messages\": [{\"role\": \"user\", \"content\": \"40 + 2?\"}]}");
            assertThat(plain.statusCode()).isEqualTo(200);
            JsonNode completion = ServerFixture.MAPPER.readTree(plain.body().strip());
            assertThat(completion.get("object").asString()).isEqualTo("chat.completion");
            assertThat(completion.at("/choices/0/message/content").asString()).isEqualTo("42");
            assertThat(completion.at("/choices/0/finish_reason").asString()).isEqualTo("stop");

            HttpResponse<String> streamed = fixture.post("/v1/chat/completions",
                    "{\"stream\": true, \"messages\": [{\"role\": \"user\", \"content\": \"40 + 2?\"},"
                            + " {\"role\": \"assistant\", \"content\": \"42\"}, {\"role\": \"user\", \"content\": \"+1?\"}]}");
            assertThat(streamed.headers().firstValue("Content-Type").orElse("")).startsWith("text/event-stream");
            assertThat(streamed.body()).endsWith("data: [DONE]\n\n");
            StringBuilder content = new StringBuilder();
            for (JsonNode chunk : ServerFixture.events(streamed.body())) {
                assertThat(chunk.get("object").asString()).isEqualTo("chat.completion.chunk");
                content.append(chunk.at("/choices/0/delta/content").asString(""));
            }
            assertThat(content.toString()).isEqualTo("43");
            List<Message> sent = fixture.provider.requests().get(1).messages();
            assertThat(sent.stream().map(Message::content)).contains("40 + 2?", "42");
        }
    }
}
