package dev.bellows.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import tools.jackson.databind.JsonNode;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The two @a2a-js/sdk fixtures checked against each other before Bellows is tested against
 * either: the SDK's client driver drives the SDK's test agent through every step the interop
 * tests use, so a failure there is Bellows', not the fixtures'.
 */
class A2aJsTest {

    private static A2aJs.Server server;

    @BeforeAll
    static void start() throws Exception {
        server = A2aJs.shared();
    }

    /** The driver's run through the steps, every step done (none printed an error). */
    private static A2aJs.ClientRun run(String transport, String steps) throws Exception {
        A2aJs.ClientRun run = A2aJs.runClient(server.url(), steps, Map.of("TRANSPORT", transport), "", 60);
        assertThat(run.status()).as(run.stderr()).isZero();
        assertThat(run.json()).as("no step failed: %s", run.lines()).noneMatch(line -> line.has("error"));
        return run;
    }

    @Test
    void theSdkClientStreamsAsksAndCancelsOnTheSdkServer() throws Exception {
        for (String transport : List.of("JSONRPC", "HTTP+JSON")) {
            A2aJs.ClientRun driven = run(transport, """
                    [{"op":"card"},{"op":"stream","text":"hi"},{"op":"get"},{"op":"list"},
                     {"op":"stream","text":"ask me"},{"op":"send","text":"Oslo","answer":true},
                     {"op":"stream","text":"hold","name":"h"},{"op":"await","name":"h","events":2},
                     {"op":"subscribe","name":"s"},{"op":"await","name":"s","events":1},{"op":"cancel"},
                     {"op":"join","name":"h"},{"op":"join","name":"s"}]""");
            List<JsonNode> lines = driven.json();
            assertThat(lines.getFirst().at("/card/supportedInterfaces/0/protocolBinding").asString()).isEqualTo("JSONRPC");
            assertThat(driven.events(1)).as(transport).containsExactly("task:TASK_STATE_SUBMITTED", "TASK_STATE_WORKING",
                    "artifact:Echo: ", "artifact:hi", "artifact:!", "TASK_STATE_COMPLETED");
            assertThat(driven.events(4)).containsExactly("task:TASK_STATE_SUBMITTED", "TASK_STATE_WORKING",
                    "TASK_STATE_INPUT_REQUIRED");
            JsonNode answered = lines.stream().filter(l -> l.path("step").asInt() == 5).findFirst().orElseThrow();
            assertThat(answered.at("/result/task/artifacts/0/parts/0/text").asString()).isEqualTo("Weather in Oslo: sunny");
            assertThat(driven.events(6)).containsExactly("task:TASK_STATE_SUBMITTED", "TASK_STATE_WORKING",
                    "TASK_STATE_CANCELED");
            assertThat(driven.events(8)).containsExactly("task:TASK_STATE_WORKING", "TASK_STATE_CANCELED");
        }
    }

    @Test
    void theSdkClientSetsPushConfigsAndTheSdkServerPushes() throws Exception {
        A2aJs.ClientRun driven = run("JSONRPC", """
                [{"op":"webhook"},{"op":"send","text":"pushed","push":true},{"op":"await-pushes","count":3},
                 {"op":"stream","text":"hold","name":"h"},{"op":"await","name":"h","events":1},
                 {"op":"push-create"},{"op":"push-get"},{"op":"push-list"},{"op":"push-delete"},{"op":"push-list"},
                 {"op":"cancel"},{"op":"join","name":"h"}]""");
        List<JsonNode> lines = driven.json();
        JsonNode pushes = lines.stream().filter(l -> l.has("pushes")).findFirst().orElseThrow().path("pushes");
        assertThat(pushes.get(0).path("token").asString()).isEqualTo("push-token");
        assertThat(pushes.get(0).at("/body/task/status/state").asString()).isEqualTo("TASK_STATE_SUBMITTED");
        List<JsonNode> lists = lines.stream().filter(l -> l.has("configs")).toList();
        assertThat(lists.get(0).path("configs")).hasSize(1);
        assertThat(lists.get(1).path("configs")).isEmpty();
    }
}
