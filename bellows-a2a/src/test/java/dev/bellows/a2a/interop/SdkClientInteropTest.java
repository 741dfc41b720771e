package dev.bellows.a2a.interop;

import dev.bellows.json.internal.Jackson;
import static org.assertj.core.api.Assertions.assertThat;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;
import dev.bellows.a2a.AgentCard;
import dev.bellows.a2a.AgentCapabilities;
import dev.bellows.a2a.AgentSkill;
import dev.bellows.a2a.Part;
import dev.bellows.a2a.TaskState;
import dev.bellows.a2a.client.A2aAgentTool;
import dev.bellows.a2a.client.A2aClient;
import dev.bellows.a2a.client.TaskEvents;
import dev.bellows.a2a.server.A2aExecutor;
import dev.bellows.a2a.server.A2aServer;
import dev.bellows.a2a.server.RequestContext;
import dev.bellows.a2a.server.TaskUpdater;
import dev.bellows.server.AgentServer;
import dev.bellows.server.jetty.JettyAgentServer;
import dev.bellows.testkit.A2aJs;
import dev.bellows.tool.ToolContext;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

/**
 * Bellows' A2A server (an {@link A2aServer} on Jetty, with an executor that behaves as the
 * @a2a-js/sdk test agent does) driven by the official @a2a-js/sdk client over both bindings
 * (send, stream, get, list, cancel, subscribe, push configs and webhooks, input-required and
 * its answer), and by Bellows' own client: the two sides of Bellows checked against the SDK and
 * against each other.
 */
class SdkClientInteropTest {

    private static final ObjectMapper JSON = Jackson.JSON;
    private static JettyAgentServer http;
    private static String url;

    /** The test agent of the SDK's fixture, written on the server's executor API. */
    static final class TestAgent implements A2aExecutor {
        private final Map<String, CountDownLatch> held = new ConcurrentHashMap<>();

        @Override
        public void execute(RequestContext context, TaskUpdater updater) throws Exception {
            String said = context.text();
            if (context.task() != null && context.task().status().state() == TaskState.INPUT_REQUIRED) {
                updater.startWork();
                updater.addArtifact("answer", "answer", List.of(Part.text("Weather in " + said + ": sunny")), false, true);
                updater.complete();
                return;
            }
            if (said.contains("direct")) {
                updater.reply(updater.newAgentMessage(List.of(Part.text("Direct: " + said))));
                return;
            }
            updater.startWork(updater.newAgentMessage(List.of(Part.text("working on it"))));
            if (said.contains("ask")) {
                updater.requiresInput(updater.newAgentMessage(List.of(Part.text("Which city?"))));
            } else if (said.contains("hold")) {
                CountDownLatch latch = held.computeIfAbsent(updater.taskId(), id -> new CountDownLatch(1));
                try {
                    latch.await();
                } catch (InterruptedException e) {
                    // cancelled: the server interrupts the executor after cancel()
                }
            } else if (said.contains("fail")) {
                updater.fail(updater.newAgentMessage(List.of(Part.text("the agent failed on purpose"))));
            } else {
                updater.addArtifact("answer", "answer", List.of(Part.text("Echo: ")), false, false);
                updater.addArtifact("answer", "answer", List.of(Part.text(said)), true, false);
                updater.addArtifact("answer", "answer", List.of(Part.text("!")), true, true);
                updater.complete();
            }
        }

        @Override
        public void cancel(RequestContext context, TaskUpdater updater) {
            updater.cancel();
            held.computeIfAbsent(updater.taskId(), id -> new CountDownLatch(1)).countDown();
        }
    }

    @BeforeAll
    static void start() throws Exception {
        AgentCard card = new AgentCard("bellows-test-agent", "Echoes, asks for a city, holds until cancelled.", null, null,
                "1.0.0", null, new AgentCapabilities(true, true, null, null), null, null, List.of("text/plain"),
                List.of("text/plain"), List.of(new AgentSkill("echo", "Echo", "Echoes the text back.", List.of("test"),
                        null, null, null, null)), null, null);
        A2aServer a2a = A2aServer.builder(card, new TestAgent()).pushNotifications(true).build();
        http = JettyAgentServer.start(AgentServer.builder().mount(a2a).build(), "127.0.0.1", 0);
        url = "http://127.0.0.1:" + http.port();
    }

    @AfterAll
    static void stop() {
        if (http != null) {
            http.close();
        }
    }

    /** The driver's run through the steps, every step done (none printed an error). */
    private static A2aJs.ClientRun run(String transport, String steps) throws Exception {
        A2aJs.ClientRun run = A2aJs.runClient(url, steps, Map.of("TRANSPORT", transport), "", 90);
        assertThat(run.status()).as(run.stderr()).isZero();
        assertThat(run.json()).as("no step failed: %s", run.lines()).noneMatch(line -> line.has("error"));
        return run;
    }

    private static JsonNode step(List<JsonNode> lines, int step) {
        return lines.stream().filter(l -> l.path("step").asInt() == step).findFirst().orElseThrow();
    }

    /** One node run per binding (a node process and the SDK's load cost a second or two each). */
    @ParameterizedTest
    @ValueSource(strings = {"JSONRPC", "HTTP+JSON"})
    void theSdkClientSendsStreamsGetsListsAsksAnswersCancelsAndSubscribes(String transport) throws Exception {
        A2aJs.ClientRun driven = run(transport, """
                [{"op":"card"},{"op":"stream","text":"hi"},{"op":"get","historyLength":1},{"op":"list","contextId":true},
                 {"op":"send","text":"blocking"},{"op":"send","text":"direct please"},
                 {"op":"stream","text":"ask me"},{"op":"stream","text":"Oslo","answer":true},{"op":"get"},
                 {"op":"stream","text":"hold","name":"h"},{"op":"await","name":"h","events":2},
                 {"op":"subscribe","name":"s"},{"op":"await","name":"s","events":1},{"op":"cancel"},
                 {"op":"join","name":"h"},{"op":"join","name":"s"}]""");
        List<JsonNode> lines = driven.json();
        assertThat(step(lines, 0).at("/card/name").asString()).isEqualTo("bellows-test-agent");
        assertThat(driven.events(1)).containsSubsequence("TASK_STATE_WORKING", "artifact:Echo: ", "artifact:hi",
                "artifact:!", "TASK_STATE_COMPLETED");
        assertThat(driven.events(1)).last().isEqualTo("TASK_STATE_COMPLETED");
        JsonNode task = step(lines, 2).path("task");
        assertThat(task.at("/status/state").asString()).isEqualTo("TASK_STATE_COMPLETED");
        assertThat(task.path("history").size()).isLessThanOrEqualTo(1);
        assertThat(step(lines, 3).at("/list/tasks/0/id").asString()).isEqualTo(task.path("id").asString());
        assertThat(step(lines, 4).at("/result/task/status/state").asString()).isEqualTo("TASK_STATE_COMPLETED");
        assertThat(step(lines, 5).at("/result/message/parts/0/text").asString()).isEqualTo("Direct: direct please");
        assertThat(driven.events(6)).last().isEqualTo("TASK_STATE_INPUT_REQUIRED");
        assertThat(driven.events(7)).contains("artifact:Weather in Oslo: sunny").last().isEqualTo("TASK_STATE_COMPLETED");
        assertThat(step(lines, 8).at("/task/status/state").asString()).isEqualTo("TASK_STATE_COMPLETED");
        assertThat(driven.events(9)).last().isEqualTo("TASK_STATE_CANCELED");
        assertThat(driven.events(11)).first().isEqualTo("task:TASK_STATE_WORKING");
        assertThat(driven.events(11)).last().isEqualTo("TASK_STATE_CANCELED");
        assertThat(step(lines, 13).at("/task/status/state").asString()).isEqualTo("TASK_STATE_CANCELED");
    }

    @Test
    void theSdkClientSetsPushConfigsAndBellowsPushesToTheWebhook() throws Exception {
        A2aJs.ClientRun driven = run("JSONRPC", """
                [{"op":"webhook"},{"op":"send","text":"pushed","push":true},{"op":"await-pushes","count":1},
                 {"op":"stream","text":"hold","name":"h"},{"op":"await","name":"h","events":2},
                 {"op":"push-create"},{"op":"push-get"},{"op":"push-list"},{"op":"push-delete"},{"op":"push-list"},
                 {"op":"cancel"},{"op":"join","name":"h"}]""");
        List<JsonNode> lines = driven.json();
        JsonNode pushes = lines.stream().filter(l -> l.has("pushes")).findFirst().orElseThrow().path("pushes");
        assertThat(pushes.get(0).path("token").asString()).isEqualTo("push-token");
        List<JsonNode> lists = lines.stream().filter(l -> l.has("configs")).toList();
        assertThat(lists.get(0).path("configs")).hasSize(1);
        assertThat(lists.get(1).path("configs")).isEmpty();
    }

    @Test
    void bellowsClientAndBellowsServerAgree() throws Exception {
        try (A2aClient client = A2aClient.builder(url).connect()) {
            List<String> seen = new ArrayList<>();
            try (TaskEvents events = client.stream(dev.bellows.a2a.Message.of(dev.bellows.a2a.Role.USER,
                    List.of(Part.text("hello"))))) {
                events.forEach(e -> seen.add(e.statusUpdate() != null ? e.statusUpdate().status().state().toString()
                        : e.task() != null ? "task" : e.artifactUpdate() != null ? "artifact" : "message"));
            }
            assertThat(seen).first().isEqualTo("task");
            assertThat(seen).last().isEqualTo("COMPLETED");
            A2aAgentTool tool = A2aAgentTool.of("echo", client, A2aAgentTool.Listener.NONE);
            assertThat(tool.call(ToolContext.of("local", "echo"), JSON.readTree("{\"task\": \"hello\"}")).output())
                    .isEqualTo("Echo: hello!");
        }
    }
}
