package dev.bellows.server;

import static dev.bellows.server.ServerFixture.call;
import static dev.bellows.server.ServerFixture.runInput;
import static dev.bellows.server.ServerFixture.turn;
import static dev.bellows.server.ServerFixture.types;
import static org.assertj.core.api.Assertions.assertThat;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;
import dev.bellows.memory.SessionStore;
import dev.bellows.server.jetty.JettyAgentServer;
import dev.bellows.sessions.sqlite.SqliteSessionStore;
import dev.bellows.testkit.MockScript;
import dev.bellows.tool.ToolRegistry;
import dev.bellows.tool.ToolResult;
import dev.bellows.tool.TypedTool;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * cli.md "bellows serve": a call waiting for approval ends the run with AG-UI's interrupt
 * outcome, and the next run of the thread answers it in {@code resume}, on this server or,
 * since the waiting run is kept in the session store, on another one after a restart. Every
 * call that ran is counted by the tool itself.
 */
class ApprovalsOverAguiTest {

    record Add(int a, int b) {
    }

    record Target(String path) {
    }

    @TempDir
    Path dir;

    /** Every write_file call that ran, by path. */
    final List<String> writes = new CopyOnWriteArrayList<>();

    ServerFixture server(SessionStore store, MockScript script) throws Exception {
        return server(store, script, agent -> { });
    }

    /** The server's agent needs approval for write_file; {@code more} adds to its settings. */
    ServerFixture server(SessionStore store, MockScript script,
                         java.util.function.Consumer<dev.bellows.agent.DefaultAgent.Builder> more) throws Exception {
        ToolRegistry tools = new ToolRegistry()
                .register(TypedTool.of("add", "Adds two numbers.", Add.class, (context, args) -> ToolResult.of(args.a() + args.b())))
                .register(TypedTool.of("write_file", "Writes a file.", Target.class, (context, args) -> {
                    writes.add(args.path());
                    return ToolResult.of("wrote " + args.path());
                }));
        return new ServerFixture(script, b -> b.sessionStore(store), tools, JettyAgentServer.IDLE_TIMEOUT,
                agent -> more.accept(agent.requireApproval("local/write_file")));
    }

    static ObjectNode resume(String threadId, String id, String status, String payload) throws Exception {
        ObjectNode input = runInput(threadId, "Tidy up.");
        ObjectNode entry = input.putArray("resume").addObject().put("interruptId", id).put("status", status);
        if (payload != null) {
            entry.set("payload", ServerFixture.MAPPER.readTree(payload));
        }
        return input;
    }

    static JsonNode last(List<JsonNode> events) {
        return events.get(events.size() - 1);
    }

    static List<String> ids(List<JsonNode> events, String type) {
        return events.stream().filter(e -> e.get("type").asString().equals(type)).map(e -> e.get("toolCallId").asString()).toList();
    }

    @Test
    void aWaitingCallIsAnInterruptAndARestartedServerCarriesItOnFromTheStore() throws Exception {
        MockScript before = MockScript.of(
                turn(call("add", "{\"a\": 1, \"b\": 2}")),
                turn(call("write_file", "{\"path\": \"a.txt\"}") + call("add", "{\"a\": 3, \"b\": 4}")));
        MockScript after = MockScript.of(
                turn(call("write_file", "{\"path\": \"b.txt\"}")),
                turn(call("task_completion", "{\"result\": \"Tidied.\"}")));
        List<JsonNode> first;
        try (SessionStore store = SqliteSessionStore.open(dir); ServerFixture a = server(store, before)) {
            first = a.agui(runInput("tidy", "Tidy up."));
        }
        // the second iteration's calls: write_file waits for approval, add is held behind it
        assertThat(ids(first, "TOOL_CALL_START")).containsExactly("call_1_1", "call_2_1", "call_2_2");
        assertThat(ids(first, "TOOL_CALL_RESULT")).containsExactly("call_1_1");
        JsonNode outcome = last(first).get("outcome");
        assertThat(last(first).get("type").asString()).isEqualTo("RUN_FINISHED");
        assertThat(outcome.get("type").asString()).isEqualTo("interrupt");
        assertThat(outcome.get("interrupts")).hasSize(1);
        JsonNode interrupt = outcome.get("interrupts").get(0);
        assertThat(interrupt.get("id").asString()).isEqualTo("call_2_1");
        assertThat(interrupt.get("reason").asString()).isEqualTo("tool_approval");
        assertThat(interrupt.get("toolCallId").asString()).isEqualTo("call_2_1");
        assertThat(interrupt.get("message").asString()).contains("write_file").contains("a.txt");
        assertThat(writes).isEmpty();

        // a new server process on the same store: the waiting run is there
        try (SessionStore store = SqliteSessionStore.open(dir); ServerFixture b = server(store, after)) {
            List<JsonNode> second = b.agui(resume("tidy", "call_2_1", "resolved", "{\"approved\": true}"));
            assertThat(types(second)).startsWith("RUN_STARTED", "TOOL_CALL_RESULT", "TOOL_CALL_RESULT", "STEP_STARTED");
            assertThat(ids(second, "TOOL_CALL_RESULT")).startsWith("call_2_1", "call_2_2");
            assertThat(second.get(1).get("content").asString()).isEqualTo("wrote a.txt");
            assertThat(second.get(2).get("content").asString()).isEqualTo("7");
            assertThat(writes).containsExactly("a.txt");
            // the next iteration's call waits in its turn, named as its TOOL_CALL_START named it
            String next = ids(second, "TOOL_CALL_START").get(0);
            assertThat(next).isEqualTo("call_3_1");
            assertThat(last(second).at("/outcome/interrupts/0/id").asString()).isEqualTo(next);
            assertThat(b.provider.turnsTaken()).isEqualTo(1);     // the approved answer was not asked for again

            // denied with a reason: the model reads it; nothing ran
            List<JsonNode> third = b.agui(resume("tidy", next, "resolved",
                    "{\"approved\": false, \"reason\": \"not in the root folder\"}"));
            assertThat(ids(third, "TOOL_CALL_RESULT")).startsWith(next);
            assertThat(third.get(1).get("content").asString()).contains("not in the root folder");
            assertThat(last(third).get("result").asString()).isEqualTo("Tidied.");
            assertThat(writes).containsExactly("a.txt");
            assertThat(b.provider.requests().get(1).messages().toString()).contains("not in the root folder");

            // the thread takes new messages again, the old ones not twice
            List<JsonNode> fourth = b.agui(runInput("tidy", "Tidy up.", "Thanks."));
            assertThat(last(fourth).get("type").asString()).isIn("RUN_FINISHED", "RUN_ERROR");
            String sent = b.provider.requests().get(2).messages().toString();
            assertThat(sent.split("Tidy up\\.", -1)).hasSize(2);
            assertThat(sent).contains("Thanks.");
        }
    }

    /** A tool that asks a remote agent about the city it is given and waits for its answer; what each call and resume saw. */
    static dev.bellows.agent.ResumableTool asking(List<String> seen) {
        return new dev.bellows.agent.ResumableTool() {
            @Override
            public String name() {
                return "ask_remote";
            }

            @Override
            public String description() {
                return "Asks a remote agent about a city.";
            }

            @Override
            public JsonNode inputSchema() {
                return ServerFixture.MAPPER.readTree("{\"type\": \"object\", \"properties\": {\"city\": {\"type\": \"string\"}},"
                        + " \"required\": [\"city\"]}");
            }

            @Override
            public ToolResult<?> call(dev.bellows.tool.ToolContext context, JsonNode arguments)
                    throws dev.bellows.tool.ToolException {
                seen.add("call " + arguments.get("city").asString());
                throw new dev.bellows.agent.ToolSuspended(ServerFixture.MAPPER.readTree("{\"task\": \"t-1\"}"),
                        List.of(new dev.bellows.agent.WaitingCall("input", new dev.bellows.tool.ToolCall("remote", "planner",
                                ServerFixture.MAPPER.readTree("{\"question\": \"when?\"}")),
                                dev.bellows.agent.WaitingCall.Kind.EXTERNAL)));
            }

            @Override
            public ToolResult<?> resume(dev.bellows.tool.ToolContext context, JsonNode arguments,
                                        dev.bellows.agent.Resumption resumption) {
                seen.add("resume " + arguments.get("city").asString());
                return ToolResult.of("asked about " + arguments.get("city").asString());
            }
        };
    }

    ServerFixture askingServer(SessionStore store, MockScript script, List<String> seen) throws Exception {
        return new ServerFixture(script, b -> b.sessionStore(store), new ToolRegistry().register(asking(seen)),
                JettyAgentServer.IDLE_TIMEOUT, agent -> agent.requireApproval("local/ask_remote"));
    }

    @Test
    void aCallApprovedWithEditedArgsThatSuspendsIsResumedWithThemOnARestartedServer() throws Exception {
        List<String> seen = new CopyOnWriteArrayList<>();
        try (SessionStore store = SqliteSessionStore.open(dir);
             ServerFixture a = askingServer(store, MockScript.of(turn(call("ask_remote", "{\"city\": \"Pari\"}"))), seen)) {
            List<JsonNode> first = a.agui(runInput("cities", "Tidy up."));
            assertThat(last(first).at("/outcome/interrupts").findValuesAsString("id")).containsExactly("call_1_1");
            List<JsonNode> second = a.agui(resume("cities", "call_1_1", "resolved",
                    "{\"approved\": true, \"editedArgs\": {\"city\": \"Paris\"}}"));
            assertThat(last(second).get("outcome").toString()).contains("call_1_1/input");
        }
        try (SessionStore store = SqliteSessionStore.open(dir);
             ServerFixture b = askingServer(store, MockScript.of(turn(call("task_completion", "{\"result\": \"Asked.\"}"))),
                     seen)) {
            List<JsonNode> third = b.agui(resume("cities", "call_1_1/input", "resolved", "{\"result\": \"tomorrow\"}"));
            assertThat(last(third).get("result").asString()).isEqualTo("Asked.");
            assertThat(b.provider.requests().getFirst().messages().toString()).contains("asked about Paris");
        }
        assertThat(seen).containsExactly("call Paris", "resume Paris");
    }

    /** A lead whose one tool is a writer agent, whose write_file needs approval. */
    ServerFixture leadServer(SessionStore store, MockScript lead, MockScript writer) throws Exception {
        dev.bellows.agent.DefaultAgent writerAgent = dev.bellows.agent.DefaultAgent.builder()
                .provider(new dev.bellows.testkit.ScriptedProvider(writer)).model("mock")
                .toolRegistry(new ToolRegistry().register(TypedTool.of("write_file", "Writes a file.", Target.class,
                        (context, args) -> {
                            writes.add(args.path());
                            return ToolResult.of("wrote " + args.path());
                        })))
                .requireApproval("local/write_file").build();
        ToolRegistry tools = new ToolRegistry().register(dev.bellows.agent.AgentTool.of("writer", "Writes files",
                writerAgent));
        return new ServerFixture(lead, b -> b.sessionStore(store), tools);
    }

    @Test
    void aSubAgentsWaitingCallIsTheRunsInterruptAndTheResumeGoesDownToItAfterARestart() throws Exception {
        List<JsonNode> first;
        try (SessionStore store = SqliteSessionStore.open(dir);
             ServerFixture a = leadServer(store, MockScript.of(turn(call("writer", "{\"task\": \"write a.txt\"}"))),
                     MockScript.of(turn(call("write_file", "{\"path\": \"a.txt\"}"))))) {
            first = a.agui(runInput("team", "Get a.txt written."));
        }
        JsonNode outcome = last(first).get("outcome");
        assertThat(outcome.get("type").asString()).isEqualTo("interrupt");
        JsonNode interrupt = outcome.get("interrupts").get(0);
        assertThat(interrupt.get("id").asString()).isEqualTo("call_1_1/call_1_1");
        assertThat(interrupt.get("reason").asString()).isEqualTo("tool_approval");
        assertThat(interrupt.get("message").asString()).contains("write_file").contains("a.txt");
        assertThat(writes).isEmpty();

        try (SessionStore store = SqliteSessionStore.open(dir);
             ServerFixture b = leadServer(store, MockScript.of(turn(call("task_completion", "{\"result\": \"Done.\"}"))),
                     MockScript.of(turn(call("task_completion", "{\"result\": \"a.txt written\"}"))))) {
            List<JsonNode> second = b.agui(resume("team", "call_1_1/call_1_1", "resolved", "{\"approved\": true}"));
            assertThat(last(second).get("result").asString()).isEqualTo("Done.");
            assertThat(writes).containsExactly("a.txt");
            assertThat(b.provider.requests()).singleElement().satisfies(request ->
                    assertThat(request.messages().getLast().content()).contains("a.txt written"));
        }
    }

    @Test
    void aResumeCarriesOnTheRequestItAnswersAndStartsNoNewOne() throws Exception {
        MockScript script = MockScript.of(
                turn(call("add", "{\"a\": 1, \"b\": 2}")),
                turn(call("write_file", "{\"path\": \"a.txt\"}")),
                turn(call("task_completion", "{\"result\": \"Tidied.\"}")),
                turn(call("task_completion", "{\"result\": \"You are welcome.\"}")));
        try (SessionStore store = SqliteSessionStore.open(dir); ServerFixture server = server(store, script)) {
            assertThat(last(server.agui(runInput("count", "Tidy up."))).at("/outcome/type").asString()).isEqualTo("interrupt");
            assertThat(last(server.agui(resume("count", "call_2_1", "resolved", "{\"approved\": true}"))).get("result").asString())
                    .isEqualTo("Tidied.");
            // one request so far: "Tidy up.", answered over two runs
            assertThat(store.find("count").orElseThrow().requests()).isEqualTo(1);
            assertThat(store.exchanges("count").orElseThrow()).hasSize(1);

            server.agui(runInput("count", "Tidy up.", "Thanks."));
            assertThat(store.find("count").orElseThrow().requests()).isEqualTo(2);
        }
    }

    @Test
    void anApprovalOnAServerWithoutTheToolIs400NamingItAndADenialNeedsNoTool() throws Exception {
        MockScript before = MockScript.of(turn(call("write_file", "{\"path\": \"a.txt\"}")));
        try (SessionStore store = SqliteSessionStore.open(dir); ServerFixture a = server(store, before)) {
            assertThat(last(a.agui(runInput("moved", "Tidy up."))).at("/outcome/interrupts/0/id").asString())
                    .isEqualTo("call_1_1");
            // the thread's session records the model and tool mode, as bellows run --session does
            assertThat(store.find("moved").orElseThrow().metadata())
                    .containsEntry("model", "mock").containsEntry("tool_mode", "tags");
        }
        MockScript after = MockScript.of(turn(call("task_completion", "{\"result\": \"Left as it was.\"}")));
        ToolRegistry fewer = new ToolRegistry().register(TypedTool.of("add", "Adds two numbers.", Add.class,
                (context, args) -> ToolResult.of(args.a() + args.b())));
        try (SessionStore store = SqliteSessionStore.open(dir);
             ServerFixture b = new ServerFixture(after, s -> s.sessionStore(store), fewer, JettyAgentServer.IDLE_TIMEOUT,
                     agent -> agent.requireApproval("local/write_file"))) {
            String waitingBefore = store.waitingRun("moved").orElseThrow().toString();
            HttpResponse<String> refused = b.post("/agui", resume("moved", "call_1_1", "resolved",
                    "{\"approved\": true}").toString());
            assertThat(refused.statusCode()).as(refused.body()).isEqualTo(400);
            JsonNode error = ServerFixture.MAPPER.readTree(refused.body()).get("error");
            assertThat(error.get("param").asString()).isEqualTo("resume[0]");
            assertThat(error.get("message").asString()).contains("call_1_1", "local/write_file");
            assertThat(store.waitingRun("moved").orElseThrow().toString()).isEqualTo(waitingBefore);
            assertThat(b.provider.turnsTaken()).isZero();

            List<JsonNode> denied = b.agui(resume("moved", "call_1_1", "resolved",
                    "{\"approved\": false, \"reason\": \"leave it\"}"));
            assertThat(last(denied).get("result").asString()).isEqualTo("Left as it was.");
            assertThat(b.provider.requests().get(0).messages().toString()).contains("leave it");
            assertThat(writes).isEmpty();
        }
    }

    @Test
    void badResumesAre400AndChangeNothing() throws Exception {
        MockScript script = MockScript.of(
                turn(call("write_file", "{\"path\": \"a.txt\"}") + call("write_file", "{\"path\": \"b.txt\"}")),
                turn(call("task_completion", "{\"result\": \"Done.\"}")));
        try (SessionStore store = SqliteSessionStore.open(dir); ServerFixture server = server(store, script)) {
            HttpResponse<String> nothingWaits = server.post("/agui", resume("bad", "call_1_1", "resolved",
                    "{\"approved\": true}").toString());
            assertThat(nothingWaits.statusCode()).isEqualTo(400);
            assertThat(nothingWaits.body()).contains("\"param\":\"resume[0].interruptId\"");

            List<JsonNode> first = server.agui(runInput("bad", "Tidy up."));
            JsonNode interrupts = last(first).at("/outcome/interrupts");
            assertThat(interrupts).hasSize(2);
            String waitingBefore = store.waitingRun("bad").orElseThrow().toString();

            List<ObjectNode> bad = List.of(
                    resume("bad", "call_9_9", "resolved", "{\"approved\": true}"),                    // unknown
                    resume("bad", "call_1_1", "resolved", "{\"approved\": true}"),                    // one left out
                    resume("bad", "call_1_1", "resolved", "{\"approve\": true}"),                     // no "approved"
                    resume("bad", "call_1_1", "resolved", "{\"approved\": \"yes\"}"),                 // not a boolean
                    resume("bad", "call_1_1", "resolved", null),                                       // no payload
                    resume("bad", "call_1_1", "paused", "{\"approved\": true}"),                      // no such status
                    runInput("bad", "Tidy up.", "Just do it."));                                        // no resume at all
            List<String> params = List.of("resume[0].interruptId", "resume", "resume[0].payload.approved",
                    "resume[0].payload.approved", "resume[0].payload", "resume[0].status", "resume");
            for (int i = 0; i < bad.size(); i++) {
                HttpResponse<String> answer = server.post("/agui", bad.get(i).toString());
                assertThat(answer.statusCode()).as(answer.body()).isEqualTo(400);
                assertThat(ServerFixture.MAPPER.readTree(answer.body()).at("/error/param").asString()).as(answer.body())
                        .isEqualTo(params.get(i));
            }
            // every call answered, but the edited arguments do not fit the tool's schema
            ObjectNode misfit = resume("bad", "call_1_1", "resolved", "{\"approved\": true, \"editedArgs\": {\"file\": 1}}");
            misfit.withArray("resume").addObject().put("interruptId", "call_1_2").put("status", "cancelled");
            HttpResponse<String> refused = server.post("/agui", misfit.toString());
            assertThat(refused.statusCode()).as(refused.body()).isEqualTo(400);
            assertThat(refused.body()).contains("\"param\":\"resume\"").contains("call_1_1").contains("schema");
            HttpResponse<String> notObject = server.post("/agui", resume("bad", "call_1_1", "resolved",
                    "{\"approved\": true, \"editedArgs\": [1]}").toString());
            assertThat(notObject.body()).contains("resume[0].payload.editedArgs");

            assertThat(writes).isEmpty();
            assertThat(server.provider.turnsTaken()).isEqualTo(1);
            assertThat(store.waitingRun("bad").orElseThrow().toString()).isEqualTo(waitingBefore);

            // both answered: one approved with the person's own arguments (AG-UI's editedArgs), one cancelled (denied)
            ObjectNode both = resume("bad", "call_1_1", "resolved", "{\"approved\": true, \"editedArgs\": {\"path\": \"edited.txt\"}}");
            both.withArray("resume").addObject().put("interruptId", "call_1_2").put("status", "cancelled");
            List<JsonNode> done = server.agui(both);
            assertThat(ids(done, "TOOL_CALL_RESULT")).startsWith("call_1_1", "call_1_2");
            assertThat(last(done).get("result").asString()).isEqualTo("Done.");
            assertThat(writes).containsExactly("edited.txt");
            assertThat(store.waitingRun("bad")).isEmpty();
        }
    }

    /**
     * docs/machine.md "The seam", over AG-UI and across a restart: an interceptor of the agent's
     * sees a call that needs approval only once approved, with the person's editedArgs; never a
     * denied call, never a call of the client's own tools.
     */
    @Test
    void anInterceptorOfTheAgentSeesApprovedCallsWithTheirEditsAndNeitherDeniedNorClientCalls() throws Exception {
        List<String> seen = new CopyOnWriteArrayList<>();
        MockScript script = MockScript.of(
                turn(call("write_file", "{\"path\": \"a.txt\"}") + call("write_file", "{\"path\": \"c.txt\"}")
                        + call("ask_user", "{\"question\": \"Go on?\"}") + call("add", "{\"a\": 1, \"b\": 2}")));
        java.util.function.Consumer<dev.bellows.agent.DefaultAgent.Builder> watched = agent -> agent.toolInterceptor(chain -> {
            seen.add(chain.callId() + " " + chain.call().toolName() + " " + chain.call().arguments());
            return chain.proceed();
        });
        try (SessionStore store = SqliteSessionStore.open(dir); ServerFixture a = server(store, script, watched)) {
            List<JsonNode> first = a.agui(ClientToolsTest.withTool(runInput("seam", "Tidy up."), "ask_user"));
            assertThat(last(first).at("/outcome/interrupts").findValuesAsString("id")).containsExactly("call_1_1", "call_1_2");
            assertThat(seen).isEmpty();
        }
        // a new server process on the same store carries the run on
        try (SessionStore store = SqliteSessionStore.open(dir);
             ServerFixture b = server(store, MockScript.of(turn(call("task_completion", "{\"result\": \"Tidied.\"}"))),
                     watched)) {
            ObjectNode decided = ClientToolsTest.withTool(resume("seam", "call_1_1", "resolved",
                    "{\"approved\": true, \"editedArgs\": {\"path\": \"b.txt\"}}"), "ask_user");
            decided.withArray("resume").addObject().put("interruptId", "call_1_2").put("status", "resolved")
                    .set("payload", ServerFixture.MAPPER.readTree("{\"approved\": false, \"reason\": \"not that one\"}"));
            List<JsonNode> second = b.agui(decided);
            assertThat(last(second).at("/outcome/pendingToolCallIds").toString()).isEqualTo("[\"call_1_3\"]");
            assertThat(seen).containsExactly("call_1_1 write_file {\"path\":\"b.txt\"}");
            assertThat(writes).containsExactly("b.txt");

            ObjectNode answer = ClientToolsTest.withTool(runInput("seam", "Tidy up."), "ask_user");
            answer.withArray("messages").addObject().put("id", "t1").put("role", "tool").put("toolCallId", "call_1_3")
                    .put("content", "yes");
            List<JsonNode> third = b.agui(answer);
            assertThat(last(third).get("result").asString()).isEqualTo("Tidied.");
            assertThat(seen).containsExactly("call_1_1 write_file {\"path\":\"b.txt\"}",
                    "call_1_4 add {\"a\":1,\"b\":2}", "call_2_1 task_completion {\"result\":\"Tidied.\"}");
            assertThat(writes).containsExactly("b.txt");
            assertThat(b.provider.requests().getFirst().messages().toString()).contains("not that one");
        }
    }
}
