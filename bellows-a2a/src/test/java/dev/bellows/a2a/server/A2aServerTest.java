package dev.bellows.a2a.server;

import static dev.bellows.a2a.server.A2aFixture.MAPPER;
import static dev.bellows.a2a.server.A2aFixture.answer;
import static dev.bellows.a2a.server.A2aFixture.call;
import static dev.bellows.a2a.server.A2aFixture.message;
import static dev.bellows.a2a.server.A2aFixture.send;
import static org.assertj.core.api.Assertions.assertThat;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;
import dev.bellows.testkit.MockScript;
import dev.bellows.testkit.MockTurn;
import dev.bellows.testkit.Background;
import java.io.BufferedReader;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * cli.md "A2A": a Bellows agent served over A2A 1.0 by a real server on 127.0.0.1, driven with
 * raw JSON-RPC and HTTP+JSON requests: the card, the version check, a run as a task whose answer
 * streams as artifact chunks, approvals as input-required, conversations by contextId,
 * cancellation, re-attaching, listing, and callers kept apart.
 */
class A2aServerTest {

    static String state(JsonNode task) {
        return task.path("status").path("state").asString();
    }

    @Test
    void theCardListsTheInterfacesSkillsAndTheBearerSchemeAndOnlyItIsOpen() throws Exception {
        try (A2aFixture f = new A2aFixture(MockScript.of())) {
            HttpResponse<String> response = f.client.send(HttpRequest.newBuilder(f.uri(A2aServer.CARD_PATH)).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(response.statusCode()).isEqualTo(200);
            assertThat(response.headers().firstValue("ETag")).isPresent();
            JsonNode card = MAPPER.readTree(response.body());
            assertThat(card.path("supportedInterfaces").findValuesAsString("protocolBinding")).containsExactly("JSONRPC", "HTTP+JSON");
            assertThat(card.path("supportedInterfaces").findValuesAsString("protocolVersion")).containsOnly("1.0");
            assertThat(card.path("supportedInterfaces").get(0).path("url").asString()).isEqualTo(f.uri(A2aServer.JSONRPC_PATH).toString());
            assertThat(card.path("capabilities").path("streaming").asBoolean()).isTrue();
            assertThat(card.path("capabilities").path("pushNotifications").asBoolean()).isTrue();
            assertThat(card.path("securitySchemes").path("bearer").path("httpAuthSecurityScheme").path("scheme").asString())
                    .isEqualTo("Bearer");
            assertThat(card.path("skills").findValuesAsString("name")).contains("helper", "write_file");

            HttpResponse<String> refused = f.client.send(f.rpcRequest("GetTask", MAPPER.createObjectNode().put("id", "x"),
                    "Bearer wrong").build(), HttpResponse.BodyHandlers.ofString());
            assertThat(refused.statusCode()).isEqualTo(401);
        }
    }

    @Test
    void aRequestOfNoOrAnotherVersionIsRefusedAsTheSpecificationSays() throws Exception {
        try (A2aFixture f = new A2aFixture(MockScript.of())) {
            HttpRequest none = HttpRequest.newBuilder(f.uri(A2aServer.JSONRPC_PATH)).header("Content-Type", "application/json")
                    .header("Authorization", "Bearer " + A2aFixture.TOKEN)
                    .POST(HttpRequest.BodyPublishers.ofString("{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"GetTask\",\"params\":{\"id\":\"x\"}}"))
                    .build();
            JsonNode error = MAPPER.readTree(f.client.send(none, HttpResponse.BodyHandlers.ofString()).body()).path("error");
            assertThat(error.path("code").asInt()).isEqualTo(-32009);
            assertThat(error.path("message").asString()).contains("0.3");
            HttpResponse<String> rest = f.client.send(HttpRequest.newBuilder(f.uri(A2aServer.REST_PATH + "/tasks/x"))
                    .header("A2A-Version", "2.0").header("Authorization", "Bearer " + A2aFixture.TOKEN).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(rest.statusCode()).isEqualTo(400);
            assertThat(MAPPER.readTree(rest.body()).path("error").path("details").get(0).path("reason").asString())
                    .isEqualTo("VERSION_NOT_SUPPORTED");
            // a patch number is not considered
            HttpResponse<String> patch = f.client.send(HttpRequest.newBuilder(f.uri(A2aServer.REST_PATH + "/tasks/x"))
                    .header("A2A-Version", "1.0.1").header("Authorization", "Bearer " + A2aFixture.TOKEN).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(patch.statusCode()).isEqualTo(404);
        }
    }

    @Test
    void aRunIsATaskWhoseAnswerStreamsAsArtifactChunksThenCompletes() throws Exception {
        String streamed = "Let me think about that question. ";
        try (A2aFixture f = new A2aFixture(MockScript.of(answer(streamed, "It is 42.")))) {
            List<JsonNode> events = f.rpcStream("SendStreamingMessage", send(message("What is six times seven?", null, null)));
            assertThat(state(events.get(0).path("task"))).isEqualTo("TASK_STATE_SUBMITTED");
            assertThat(state(events.get(1).path("statusUpdate"))).isEqualTo("TASK_STATE_WORKING");
            List<JsonNode> chunks = events.stream().filter(e -> e.has("artifactUpdate")).map(e -> e.get("artifactUpdate")).toList();
            assertThat(chunks.size()).as("chunks as the answer streams, then the whole answer").isGreaterThan(2);
            StringBuilder text = new StringBuilder();
            for (JsonNode chunk : chunks.subList(0, chunks.size() - 1)) {
                assertThat(chunk.path("artifact").path("artifactId").asString()).isEqualTo(BellowsExecutor.ANSWER);
                assertThat(chunk.path("lastChunk").asBoolean()).isFalse();
                if (!chunk.path("append").asBoolean()) {
                    text.setLength(0);
                }
                text.append(chunk.path("artifact").path("parts").get(0).path("text").asString());
            }
            assertThat(text.toString()).isEqualTo(streamed.strip());
            JsonNode last = chunks.get(chunks.size() - 1);
            assertThat(last.path("lastChunk").asBoolean()).isTrue();
            assertThat(last.path("append").asBoolean()).isFalse();
            assertThat(last.path("artifact").path("parts").get(0).path("text").asString()).isEqualTo("It is 42.");
            assertThat(state(events.get(events.size() - 1).path("statusUpdate"))).isEqualTo("TASK_STATE_COMPLETED");

            String id = events.get(0).path("task").path("id").asString();
            HttpResponse<String> got = f.rest("GET", "/tasks/" + id + "?historyLength=1", null);
            JsonNode task = MAPPER.readTree(got.body());
            assertThat(task.path("artifacts").get(0).path("parts").get(0).path("text").asString()).isEqualTo("It is 42.");
            assertThat(task.path("history")).hasSize(1);
        }
    }

    @Test
    void aSecretOfTheProcessNeverLeavesEvenSplitAcrossChunks() throws Exception {
        String secret = "sk-a2a-never-shown-7731";
        dev.bellows.secret.Secrets.register(secret);
        try (A2aFixture f = new A2aFixture(MockScript.of(answer("The key is " + secret + " as you asked. ",
                "It is " + secret + ".")))) {
            List<JsonNode> events = f.rpcStream("SendStreamingMessage", send(message("Show the key.", null, null)));
            assertThat(events.toString()).doesNotContain(secret).contains("[REDACTED]");
            String id = events.get(0).path("task").path("id").asString();
            assertThat(f.rest("GET", "/tasks/" + id, null).body()).doesNotContain(secret).contains("[REDACTED]");
        }
    }

    @Test
    void aTypedAnswerIsAlsoADataPart() throws Exception {
        try (A2aFixture f = new A2aFixture(MockScript.of(MockTurn.content(
                call("task_completion", "{\"result\": \"{\\\"city\\\": \\\"Oslo\\\", \\\"celsius\\\": 21}\"}"))))) {
            JsonNode task = f.rpc("SendMessage", send(message("Weather?", null, null))).path("result").path("task");
            assertThat(state(task)).isEqualTo("TASK_STATE_COMPLETED");
            JsonNode parts = task.path("artifacts").get(0).path("parts");
            assertThat(parts.get(1).path("data").path("city").asString()).isEqualTo("Oslo");
            assertThat(parts.get(1).path("data").path("celsius").asInt()).isEqualTo(21);
        }
    }

    @Test
    void aCallWaitingForApprovalIsInputRequiredAndTheTasksNextMessageDecidesIt() throws Exception {
        MockScript script = MockScript.of(
                MockTurn.content(call("write_file", "{\"path\": \"a.txt\"}")),
                MockTurn.content(call("task_completion", "{\"result\": \"Wrote a.txt.\"}")),
                MockTurn.content(call("write_file", "{\"path\": \"b.txt\"}")),
                MockTurn.content(call("task_completion", "{\"result\": \"Left b.txt alone.\"}")));
        try (A2aFixture f = new A2aFixture(script)) {
            JsonNode task = f.rpc("SendMessage", send(message("Write a.txt", null, null))).path("result").path("task");
            assertThat(state(task)).isEqualTo("TASK_STATE_INPUT_REQUIRED");
            JsonNode parts = task.path("status").path("message").path("parts");
            JsonNode waiting = parts.get(0).path("data").path("waiting").get(0);
            assertThat(waiting.path("tool").asString()).isEqualTo("write_file");
            assertThat(waiting.path("arguments").path("path").asString()).isEqualTo("a.txt");
            assertThat(parts.get(1).path("text").asString()).contains("approve");
            assertThat(f.writes).isEmpty();
            String id = task.path("id").asString();

            JsonNode unclear = f.rpc("SendMessage", send(message("maybe later", id, null)));
            assertThat(unclear.path("error").path("code").asInt()).isEqualTo(-32602);
            assertThat(state(f.rpc("GetTask", MAPPER.createObjectNode().put("id", id)).path("result")))
                    .isEqualTo("TASK_STATE_INPUT_REQUIRED");

            JsonNode done = f.rpc("SendMessage", send(message("approve", id, null))).path("result").path("task");
            assertThat(state(done)).isEqualTo("TASK_STATE_COMPLETED");
            assertThat(done.path("artifacts").get(0).path("parts").get(0).path("text").asString()).isEqualTo("Wrote a.txt.");
            assertThat(f.writes).containsExactly("a.txt");

            JsonNode second = f.rpc("SendMessage", send(message("Write b.txt", null, null))).path("result").path("task");
            String callId = second.path("status").path("message").path("parts").get(0).path("data").path("waiting").get(0)
                    .path("id").asString();
            ObjectNode decision = message("", second.path("id").asString(), null);
            decision.putArray("parts").addObject().putObject("data").putArray("deny").addObject().put("id", callId)
                    .put("reason", "b.txt is read-only");
            JsonNode denied = f.rpc("SendMessage", send(decision)).path("result").path("task");
            assertThat(state(denied)).isEqualTo("TASK_STATE_COMPLETED");
            assertThat(f.writes).containsExactly("a.txt");
            assertThat(f.provider.requests().get(3).messages().toString()).contains("b.txt is read-only");
        }
    }

    @Test
    void aNewTaskOfTheSameContextContinuesTheConversation() throws Exception {
        try (A2aFixture f = new A2aFixture(MockScript.of(answer("", "Noted."), answer("", "It was 7.")))) {
            JsonNode first = f.rpc("SendMessage", send(message("Remember the number 7.", null, "ctx-1"))).path("result").path("task");
            assertThat(first.path("contextId").asString()).isEqualTo("ctx-1");
            JsonNode second = f.rpc("SendMessage", send(message("Which number?", null, "ctx-1"))).path("result").path("task");
            assertThat(second.path("id").asString()).isNotEqualTo(first.path("id").asString());
            assertThat(f.provider.requests().get(1).messages().toString()).contains("Remember the number 7.", "Noted.");
            assertThat(state(second)).isEqualTo("TASK_STATE_COMPLETED");
        }
    }

    @Test
    void cancelingATaskCancelsItsRunAndASecondCancelIsRefused() throws Exception {
        MockTurn slow = MockTurn.content("counting " + "one two three four five six seven eight nine ten ".repeat(40)
                + call("task_completion", "{\"result\": \"Counted.\"}")).chunkSize(4).delayMs(20);
        try (A2aFixture f = new A2aFixture(MockScript.of(slow))) {
            ObjectNode params = send(message("Count.", null, null));
            params.putObject("configuration").put("returnImmediately", true);
            String id = f.rpc("SendMessage", params).path("result").path("task").path("id").asString();
            JsonNode canceled = f.rpc("CancelTask", MAPPER.createObjectNode().put("id", id)).path("result");
            assertThat(state(canceled)).isEqualTo("TASK_STATE_CANCELED");
            JsonNode task = f.rpc("GetTask", MAPPER.createObjectNode().put("id", id)).path("result");
            assertThat(state(task)).isEqualTo("TASK_STATE_CANCELED");
            assertThat(task.path("artifacts").findValuesAsString("text")).doesNotContain("Counted.");
            assertThat(f.rpc("CancelTask", MAPPER.createObjectNode().put("id", id)).path("error").path("code").asInt())
                    .isEqualTo(-32002);
        }
    }

    @Test
    void aSubscriberReattachesWithNoEventLostOrRepeated() throws Exception {
        String streamed = "one two three four five six seven eight nine ten ".repeat(6);
        MockTurn slow = MockTurn.content(streamed + call("task_completion", "{\"result\": \"Counted.\"}")).chunkSize(6).delayMs(15);
        try (A2aFixture f = new A2aFixture(MockScript.of(slow))) {
            ObjectNode params = send(message("Count.", null, null));
            params.putObject("configuration").put("returnImmediately", true);
            String id = f.rpc("SendMessage", params).path("result").path("task").path("id").asString();
            Thread.sleep(100);      // some chunks were streamed before the subscriber arrives: it must get them from the snapshot
            List<JsonNode> events = f.rpcStream("SubscribeToTask", MAPPER.createObjectNode().put("id", id));
            JsonNode snapshot = events.get(0).path("task");
            assertThat(snapshot.path("id").asString()).isEqualTo(id);
            StringBuilder text = new StringBuilder(String.join("", snapshot.path("artifacts").findValuesAsString("text")));
            boolean finished = false;
            for (JsonNode event : events.subList(1, events.size())) {
                JsonNode chunk = event.path("artifactUpdate");
                if (chunk.path("lastChunk").asBoolean()) {
                    assertThat(text.toString()).as("the snapshot and the chunks after it, each once").isEqualTo(streamed.strip());
                    finished = true;
                } else if (!chunk.isMissingNode()) {
                    if (!chunk.path("append").asBoolean()) {
                        text.setLength(0);
                    }
                    text.append(chunk.path("artifact").path("parts").get(0).path("text").asString());
                }
            }
            assertThat(finished).isTrue();
            assertThat(state(events.get(events.size() - 1).path("statusUpdate"))).isEqualTo("TASK_STATE_COMPLETED");
            assertThat(f.rpc("SubscribeToTask", MAPPER.createObjectNode().put("id", id)).path("error").path("code").asInt())
                    .as("a finished task has nothing to stream").isEqualTo(-32004);
        }
    }

    @Test
    void tasksAreListedNewestFirstByPageWithFiltersAndEachCallerSeesItsOwn() throws Exception {
        try (A2aFixture f = new A2aFixture(MockScript.of(answer("", "A"), answer("", "B"), answer("", "C")), null, b -> { },
                null)) {
            String first = f.rpc("SendMessage", send(message("a", null, "x"))).path("result").path("task").path("id").asString();
            f.rpc("SendMessage", send(message("b", null, "y")));
            String third = f.rpc("SendMessage", send(message("c", null, "x"))).path("result").path("task").path("id").asString();

            HttpResponse<String> page1 = f.rest("GET", "/tasks?contextId=x&pageSize=1", null);
            JsonNode one = MAPPER.readTree(page1.body());
            assertThat(one.path("tasks")).hasSize(1);
            assertThat(one.path("tasks").get(0).path("id").asString()).isEqualTo(third);
            assertThat(one.path("tasks").get(0).has("artifacts")).isFalse();
            assertThat(one.path("totalSize").asInt()).isEqualTo(2);
            String token = one.path("nextPageToken").asString();
            assertThat(token).isNotEmpty();
            JsonNode two = MAPPER.readTree(f.rest("GET", "/tasks?contextId=x&pageSize=1&includeArtifacts=true&pageToken="
                    + token, null).body());
            assertThat(two.path("tasks").get(0).path("id").asString()).isEqualTo(first);
            assertThat(two.path("tasks").get(0).path("artifacts")).hasSize(1);
            assertThat(two.path("nextPageToken").asString()).isEmpty();
            String firstEnded = f.rpc("GetTask", MAPPER.createObjectNode().put("id", first)).path("result").path("status")
                    .path("timestamp").asString();
            JsonNode later = f.rpc("ListTasks", MAPPER.createObjectNode().put("statusTimestampAfter", firstEnded)).path("result");
            assertThat(later.path("tasks").findValuesAsString("id")).doesNotContain(first).contains(third).hasSize(2);
            assertThat(f.rpc("ListTasks", MAPPER.createObjectNode().put("statusTimestampAfter", "yesterday"))
                    .path("error").path("code").asInt()).isEqualTo(-32602);
            JsonNode completed = f.rpc("ListTasks", MAPPER.createObjectNode().put("status", "TASK_STATE_COMPLETED")).path("result");
            assertThat(completed.path("totalSize").asInt()).isEqualTo(3);
            assertThat(f.rpc("ListTasks", MAPPER.createObjectNode().put("pageSize", 1000)).path("error").path("code").asInt())
                    .isEqualTo(-32602);

            JsonNode openCard = MAPPER.readTree(f.client.send(HttpRequest.newBuilder(f.uri(A2aServer.CARD_PATH)).build(),
                    HttpResponse.BodyHandlers.ofString()).body());
            assertThat(openCard.path("securitySchemes").size()).as("no --auth-token, no scheme").isZero();

            JsonNode stranger = f.rpc("GetTask", MAPPER.createObjectNode().put("id", first), "Bearer someone-else");
            assertThat(stranger.path("error").path("code").asInt()).isEqualTo(-32001);
            JsonNode continued = f.rpc("SendMessage", send(message("more", first, null)), "Bearer someone-else");
            assertThat(continued.path("error").path("code").asInt()).isEqualTo(-32001);
            JsonNode strangersList = f.rpc("ListTasks", MAPPER.createObjectNode(), "Bearer someone-else").path("result");
            assertThat(strangersList.path("tasks")).isEmpty();
            JsonNode mismatched = f.rpc("SendMessage", send(message("more", first, "y")));
            assertThat(mismatched.path("error").path("code").asInt()).as("a task of another context").isEqualTo(-32001);
        }
    }

    @Test
    void badInputGetsTheBindingsErrorAndAnOversizedBodyIsRefused() throws Exception {
        try (A2aFixture f = new A2aFixture(MockScript.of(), null, b -> b.maxRequestBytes(2000))) {
            ObjectNode noParts = message("x", null, null);
            noParts.putArray("parts");
            assertThat(f.rpc("SendMessage", send(noParts)).path("error").path("code").asInt()).isEqualTo(-32602);
            assertThat(f.rpc("NoSuchMethod", MAPPER.createObjectNode()).path("error").path("code").asInt()).isEqualTo(-32601);
            HttpResponse<String> missing = f.rest("GET", "/tasks/nope", null);
            assertThat(missing.statusCode()).isEqualTo(404);
            assertThat(MAPPER.readTree(missing.body()).path("error").path("details").get(0).path("reason").asString())
                    .isEqualTo("TASK_NOT_FOUND");
            HttpResponse<String> big = f.rest("POST", "/message:send", "{\"message\": {\"parts\": [{\"text\": \""
                    + "x".repeat(5000) + "\"}]}}");
            assertThat(big.statusCode()).isEqualTo(413);
            HttpResponse<String> plain = f.client.send(HttpRequest.newBuilder(f.uri(A2aServer.REST_PATH + "/message:send"))
                    .header("A2A-Version", "1.0").header("Authorization", "Bearer " + A2aFixture.TOKEN)
                    .header("Content-Type", "text/plain").POST(HttpRequest.BodyPublishers.ofString("{}")).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(plain.statusCode()).isEqualTo(415);
            assertThat(plain.body()).contains("CONTENT_TYPE_NOT_SUPPORTED");
        }
    }

    /** Reads a stream's events up to its first artifact chunk; null when the stream ends first. */
    private static JsonNode firstChunk(BufferedReader reader) {
        String line;
        while ((line = readLine(reader)) != null) {
            if (line.startsWith("data: ")) {
                JsonNode event = MAPPER.readTree(line.substring(6)).path("result");
                if (event.has("artifactUpdate")) {
                    return event.get("artifactUpdate");
                }
            }
        }
        return null;
    }

    private static String readLine(BufferedReader reader) {
        try {
            return reader.readLine();
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /** The model held after {@code chunks} chunks of its first answer, kept in {@code held} for the test. */
    private static HeldModel holding(AtomicReference<HeldModel> held, dev.bellows.provider.Provider model, int chunks) {
        held.set(new HeldModel(model, chunks));
        return held.get();
    }

    @Test
    void theAnswersChunksGoOutWhileTheModelIsStillWriting() throws Exception {
        AtomicReference<HeldModel> held = new AtomicReference<>();
        try (A2aFixture f = new A2aFixture(MockScript.of(answer("Let me think about that question. ", "It is 42.")),
                model -> holding(held, model, 5))) {
            HttpResponse<InputStream> response = f.client.send(f.rpcRequest("SendStreamingMessage",
                    send(message("What is six times seven?", null, null)), "Bearer " + A2aFixture.TOKEN).build(),
                    HttpResponse.BodyHandlers.ofInputStream());
            try (BufferedReader reader = new BufferedReader(new InputStreamReader(response.body(), StandardCharsets.UTF_8))) {
                // the model stands still after its first pieces until released: a chunk now comes from them alone
                JsonNode chunk = Background.supply(() -> firstChunk(reader)).get(30, TimeUnit.SECONDS);
                assertThat(chunk).as("a chunk before the stream's end").isNotNull();
                assertThat(held.get().released).isNotDone();
                assertThat(chunk.path("artifact").path("parts").get(0).path("text").asString()).isNotEmpty()
                        .isSubstringOf("Let me think about that question.");
                held.get().released.complete(null);
                String rest = reader.lines().collect(java.util.stream.Collectors.joining("\n"));
                assertThat(rest).contains("TASK_STATE_COMPLETED", "It is 42.");
            }
        }
    }

    @Test
    void cancelTaskCancelsTheModelRequestInFlight() throws Exception {
        AtomicReference<HeldModel> held = new AtomicReference<>();
        try (A2aFixture f = new A2aFixture(MockScript.of(answer("Counting one two three. ", "Counted.")),
                model -> holding(held, model, 3))) {
            ObjectNode params = send(message("Count.", null, null));
            params.putObject("configuration").put("returnImmediately", true);
            String id = f.rpc("SendMessage", params).path("result").path("task").path("id").asString();
            held.get().reached.get(30, TimeUnit.SECONDS);
            JsonNode canceled = f.rpc("CancelTask", MAPPER.createObjectNode().put("id", id)).path("result");
            assertThat(state(canceled)).isEqualTo("TASK_STATE_CANCELED");
            held.get().cancelled.get(30, TimeUnit.SECONDS);    // the model request itself, not only the task
            assertThat(held.get().released).isNotDone();
            assertThat(f.provider.turnsTaken()).isEqualTo(1);
            assertThat(f.rpc("GetTask", MAPPER.createObjectNode().put("id", id)).path("result").path("artifacts")
                    .findValuesAsString("text")).doesNotContain("Counted.");
        }
    }

    @Test
    void aRunThatEndsInAnErrorIsAFailedTaskThatSaysWhy() throws Exception {
        try (A2aFixture f = new A2aFixture(MockScript.of(MockTurn.status(400)))) {
            JsonNode task = f.rpc("SendMessage", send(message("Hello", null, null))).path("result").path("task");
            assertThat(state(task)).isEqualTo("TASK_STATE_FAILED");
            JsonNode parts = task.path("status").path("message").path("parts");
            assertThat(parts.get(0).path("text").asString()).isNotBlank();
            assertThat(parts.get(1).path("data").path("reason").asString()).isEqualTo("error");
            assertThat(task.path("artifacts").findValuesAsString("text")).isEmpty();
        }
    }

    @Test
    void aTasksHistoryKeepsOnlyItsNewestMessages() throws Exception {
        MockScript script = MockScript.of(MockTurn.content(call("write_file", "{\"path\": \"a.txt\"}")),
                MockTurn.content(call("task_completion", "{\"result\": \"Wrote a.txt.\"}")));
        try (A2aFixture f = new A2aFixture(script, null, b -> b.maxHistory(2))) {
            String id = f.rpc("SendMessage", send(message("Write a.txt", null, null))).path("result").path("task")
                    .path("id").asString();
            assertThat(state(f.rpc("SendMessage", send(message("approve", id, null))).path("result").path("task")))
                    .isEqualTo("TASK_STATE_COMPLETED");
            JsonNode history = f.rpc("GetTask", MAPPER.createObjectNode().put("id", id)).path("result").path("history");
            assertThat(history).hasSize(2);
            assertThat(history.toString()).doesNotContain("Write a.txt").contains("approve");
        }
    }
}
