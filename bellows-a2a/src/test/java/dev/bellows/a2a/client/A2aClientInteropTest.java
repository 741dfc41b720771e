package dev.bellows.a2a.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.bellows.a2a.A2aError;
import dev.bellows.a2a.A2aException;
import dev.bellows.a2a.AgentInterface;
import dev.bellows.a2a.ListTasksRequest;
import dev.bellows.a2a.Message;
import dev.bellows.a2a.Part;
import dev.bellows.a2a.Role;
import dev.bellows.a2a.SendMessageResponse;
import dev.bellows.a2a.StreamResponse;
import dev.bellows.a2a.Task;
import dev.bellows.a2a.TaskPushNotificationConfig;
import dev.bellows.a2a.TaskState;
import dev.bellows.testkit.A2aJs;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

/**
 * Bellows' A2A client against the official @a2a-js/sdk server (the testkit's test agent), over
 * both bindings: the card, send, stream (chunks as they arrive), get, list, cancel, subscribe,
 * push configs, input-required and its answer, and the A2A errors the SDK answers with.
 */
class A2aClientInteropTest {

    private static A2aJs.Server server;

    @BeforeAll
    static void start() throws Exception {
        server = A2aJs.shared();
    }

    static A2aClient client(String binding) {
        return A2aClient.builder(server.url()).binding(binding).connect();
    }

    static Message user(String text) {
        return Message.of(Role.USER, List.of(Part.text(text)));
    }

    /** Each event as one word: the task's state, a status update's state, or an artifact chunk's text. */
    static List<String> describe(TaskEvents events) {
        List<String> seen = new ArrayList<>();
        for (StreamResponse event : events) {
            seen.add(describe(event));
        }
        return seen;
    }

    static String describe(StreamResponse event) {
        if (event.task() != null) {
            return "task:" + event.task().status().state();
        }
        if (event.statusUpdate() != null) {
            return event.statusUpdate().status().state().toString();
        }
        if (event.artifactUpdate() != null) {
            return "artifact:" + event.artifactUpdate().artifact().parts().getFirst().text();
        }
        return "message:" + event.message().parts().getFirst().text();
    }

    @Test
    void theCardIsReadAndTheFirstInterfaceTheClientSpeaksIsChosen() throws Exception {
        try (A2aClient client = A2aClient.builder(server.url()).connect()) {
            assertThat(client.card().name()).isEqualTo("js-test-agent");
            assertThat(client.streams()).isTrue();
            assertThat(client.endpoint().protocolBinding()).isEqualTo(AgentInterface.JSONRPC);
        }
        try (A2aClient client = A2aClient.builder(server.url() + A2aClient.CARD_PATH).binding(AgentInterface.HTTP_JSON).connect()) {
            assertThat(client.endpoint().protocolBinding()).as("asked for, and offered").isEqualTo(AgentInterface.HTTP_JSON);
        }
        try (A2aJs.Server restFirst = A2aJs.startServer(Map.of("PREFER", "HTTP+JSON"));
             A2aClient client = A2aClient.builder(restFirst.url()).connect()) {
            assertThat(client.endpoint().protocolBinding()).as("the card's order").isEqualTo(AgentInterface.HTTP_JSON);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {AgentInterface.JSONRPC, AgentInterface.HTTP_JSON})
    void aStreamedTaskArrivesEventByEventAndCanBeReadBackAndListed(String binding) throws Exception {
        try (A2aClient client = client(binding)) {
            List<String> seen;
            String taskId;
            try (TaskEvents events = client.stream(user("hello"))) {
                StreamResponse first = events.next();
                taskId = first.task().id();
                seen = new ArrayList<>(List.of(describe(first)));
                seen.addAll(describe(events));
            }
            assertThat(seen).containsExactly("task:SUBMITTED", "WORKING", "artifact:Echo: ", "artifact:hello",
                    "artifact:!", "COMPLETED");
            Task task = client.getTask(taskId, 1);
            assertThat(task.status().state()).isEqualTo(TaskState.COMPLETED);
            assertThat(task.artifacts().getFirst().parts()).extracting(Part::text).containsExactly("Echo: ", "hello", "!");
            assertThat(client.listTasks(new ListTasksRequest(null, task.contextId(), null, 10, null, null, null, null)).tasks())
                    .extracting(Task::id).containsExactly(taskId);
            SendMessageResponse sent = client.send(user("blocking"));
            assertThat(sent.task().status().state()).isEqualTo(TaskState.COMPLETED);
            assertThat(client.send(user("direct please")).message().parts().getFirst().text()).isEqualTo("Direct: direct please");
        }
    }

    @Test
    void chunksArriveBeforeTheAgentHasWrittenTheRest() throws Exception {
        try (A2aClient client = client(AgentInterface.JSONRPC); TaskEvents events = client.stream(user("gate"))) {
            assertThat(describe(events.next())).isEqualTo("task:SUBMITTED");
            assertThat(describe(events.next())).isEqualTo("WORKING");
            // The agent now waits for the release before it writes the second chunk: this chunk was
            // read while the stream is still open, not collected at its end.
            assertThat(describe(events.next())).isEqualTo("artifact:Echo: ");
            release();
            assertThat(describe(events)).containsExactly("artifact:gate", "artifact:!", "COMPLETED");
        }
    }

    static void release() throws Exception {
        try (HttpClient http = HttpClient.newHttpClient()) {
            HttpResponse<String> released = http.send(HttpRequest.newBuilder(URI.create(server.url() + "/test/release"))
                    .POST(HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());
            assertThat(released.body()).isEqualTo("{\"released\":1}");
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {AgentInterface.JSONRPC, AgentInterface.HTTP_JSON})
    void inputRequiredEndsTheStreamWithTheQuestionAndTheAnswerCompletesTheTask(String binding) throws Exception {
        try (A2aClient client = client(binding)) {
            StreamResponse last = null;
            try (TaskEvents events = client.stream(user("ask me about the weather"))) {
                for (StreamResponse event : events) {
                    last = event;
                }
            }
            assertThat(last.statusUpdate().status().state()).isEqualTo(TaskState.INPUT_REQUIRED);
            assertThat(last.statusUpdate().status().message().parts().getFirst().text()).isEqualTo("Which city?");
            Message answer = user("Oslo").inTask(last.statusUpdate().taskId(), last.statusUpdate().contextId());
            List<String> seen;
            try (TaskEvents events = client.stream(answer)) {
                seen = describe(events);
            }
            assertThat(seen).contains("artifact:Weather in Oslo: sunny").last().isEqualTo("COMPLETED");
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {AgentInterface.JSONRPC, AgentInterface.HTTP_JSON})
    void aHeldTaskIsCancelledAndASubscriberSeesItToo(String binding) throws Exception {
        try (A2aClient client = client(binding); TaskEvents events = client.stream(user("hold"))) {
            String taskId = events.next().task().id();
            assertThat(describe(events.next())).isEqualTo("WORKING");
            try (TaskEvents subscribed = client.subscribe(taskId)) {
                assertThat(describe(subscribed.next())).isEqualTo("task:WORKING");
                assertThat(client.cancelTask(taskId).status().state()).isEqualTo(TaskState.CANCELED);
                assertThat(describe(subscribed)).containsExactly("CANCELED");
            }
            assertThat(describe(events)).containsExactly("CANCELED");
            assertThatThrownBy(() -> client.subscribe(taskId).next()).as("a finished task cannot be subscribed to")
                    .isInstanceOf(A2aException.class);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {AgentInterface.JSONRPC, AgentInterface.HTTP_JSON})
    void pushConfigsAreCreatedReadListedAndDeleted(String binding) throws Exception {
        try (A2aClient client = client(binding); TaskEvents events = client.stream(user("hold"))) {
            String taskId = events.next().task().id();
            TaskPushNotificationConfig created = client.createPushConfig(new TaskPushNotificationConfig(null, null, taskId,
                    "http://127.0.0.1:9/hook", "push-token", null));
            assertThat(created.id()).isNotBlank();
            assertThat(client.getPushConfig(taskId, created.id()).url()).isEqualTo("http://127.0.0.1:9/hook");
            assertThat(client.listPushConfigs(taskId).configs()).extracting(TaskPushNotificationConfig::id)
                    .containsExactly(created.id());
            client.deletePushConfig(taskId, created.id());
            assertThat(client.listPushConfigs(taskId).configs()).isNullOrEmpty();
            client.cancelTask(taskId);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {AgentInterface.JSONRPC, AgentInterface.HTTP_JSON})
    void anA2aErrorNamesItsKind(String binding) {
        try (A2aClient client = client(binding)) {
            assertThatThrownBy(() -> client.getTask("no-such-task"))
                    .isInstanceOfSatisfying(A2aException.class, e -> assertThat(e.error()).isEqualTo(A2aError.TASK_NOT_FOUND))
                    .hasMessageContaining("TASK_NOT_FOUND").hasMessageContaining("127.0.0.1");
        }
    }

    @Test
    void theHeadersAreSentAndAMissingTokenIsAClearErrorThatNeverShowsOne() throws Exception {
        try (A2aJs.Server guarded = A2aJs.startServer(Map.of("A2A_TOKEN", "s3cret-token"))) {
            try (A2aClient client = A2aClient.builder(guarded.url()).header("Authorization", "Bearer wrong-token").connect()) {
                assertThatThrownBy(() -> client.send(user("hello")))
                        .isInstanceOfSatisfying(A2aClientException.class, e -> {
                            assertThat(e.kind()).isEqualTo(A2aClientException.Kind.HTTP_STATUS);
                            assertThat(e.status()).isEqualTo(401);
                        })
                        .hasMessageContaining("HTTP 401").hasMessageContaining("not [redacted]")
                        .hasMessageNotContaining("wrong-token");
            }
            try (A2aClient client = A2aClient.builder(guarded.url()).header("Authorization", "Bearer s3cret-token")
                    .header("X-Trace", "t-1").connect()) {
                assertThat(client.send(user("hello")).task().status().state()).isEqualTo(TaskState.COMPLETED);
            }
            guarded.close();
            assertThat(guarded.stderr()).contains("\"x-trace\":\"t-1\"").contains("\"a2a-version\":\"1.0\"");
        }
    }

    @Test
    void interruptingAReaderCancelsItsCallNotTheRemoteTask() throws Exception {
        try (A2aClient client = client(AgentInterface.JSONRPC); TaskEvents events = client.stream(user("hold"))) {
            String taskId = events.next().task().id();
            events.next();
            Thread reader = Thread.currentThread();
            Thread interrupter = Thread.ofPlatform().start(() -> {
                while (reader.getState() != Thread.State.WAITING && reader.getState() != Thread.State.TIMED_WAITING) {
                    Thread.onSpinWait();
                }
                reader.interrupt();
            });
            assertThatThrownBy(events::next).isInstanceOfSatisfying(A2aClientException.class,
                    e -> assertThat(e.kind()).isEqualTo(A2aClientException.Kind.CANCELLED));
            Thread.interrupted();     // the interrupt stays set for the caller; cleared before waiting here
            interrupter.join();
            assertThat(client.getTask(taskId).status().state()).isEqualTo(TaskState.WORKING);
            client.cancelTask(taskId);
        }
    }
}
