package dev.bellows.a2a.server;

import static dev.bellows.a2a.server.A2aFixture.MAPPER;
import static dev.bellows.a2a.server.A2aFixture.call;
import static dev.bellows.a2a.server.A2aFixture.message;
import static dev.bellows.a2a.server.A2aFixture.send;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpServer;
import dev.bellows.sessions.sqlite.SqliteSessionStore;
import dev.bellows.testkit.MockScript;
import dev.bellows.testkit.MockTurn;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Push notifications to a webhook on 127.0.0.1 (each event POSTed with the client's credentials
 * and token; URLs outside the allow-list refused), and tasks kept in the SQLite session store:
 * a restarted server answers GetTask, has the push configs, and carries a waiting task on.
 */
class PushAndStoreTest {

    @TempDir
    Path dir;

    record Delivery(String authorization, String token, JsonNode body) {
    }

    /** A call of write_file, which waits for approval, then the answer. */
    private static MockScript writeThenDone() {
        return MockScript.of(MockTurn.content(call("write_file", "{\"path\": \"a.txt\"}")),
                MockTurn.content(call("task_completion", "{\"result\": \"Wrote it.\"}")));
    }

    @Test
    void eachEventIsPushedWithTheClientsCredentialsAndUnsafeUrlsAreRefused() throws Exception {
        LinkedBlockingQueue<Delivery> deliveries = new LinkedBlockingQueue<>();
        HttpServer webhook = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        webhook.createContext("/hook", exchange -> {
            byte[] body = exchange.getRequestBody().readAllBytes();
            deliveries.add(new Delivery(exchange.getRequestHeaders().getFirst("Authorization"),
                    exchange.getRequestHeaders().getFirst("X-A2A-Notification-Token"),
                    MAPPER.readTree(new String(body, StandardCharsets.UTF_8))));
            exchange.sendResponseHeaders(204, -1);
            exchange.close();
        });
        webhook.start();
        try (A2aFixture f = new A2aFixture(writeThenDone())) {
            String id = f.rpc("SendMessage", send(message("Write a.txt", null, null))).path("result").path("task")
                    .path("id").asString();
            String url = "http://127.0.0.1:" + webhook.getAddress().getPort() + "/hook";
            ObjectNode config = MAPPER.createObjectNode().put("taskId", id).put("id", "hook-1").put("url", url)
                    .put("token", "client-token");
            config.putObject("authentication").put("scheme", "Bearer").put("credentials", "webhook-secret");
            JsonNode created = f.rpc("CreateTaskPushNotificationConfig", config).path("result");
            assertThat(created.path("id").asString()).isEqualTo("hook-1");
            JsonNode listed = MAPPER.readTree(f.rest("GET", "/tasks/" + id + "/pushNotificationConfigs", null).body());
            assertThat(listed.path("configs").findValuesAsString("url")).containsExactly(url);

            f.rpc("SendMessage", send(message("approve", id, null)));
            List<String> kinds = new java.util.ArrayList<>();
            Delivery last = null;
            while (kinds.isEmpty() || !"TASK_STATE_COMPLETED".equals(last.body().path("statusUpdate").path("status")
                    .path("state").asString())) {
                last = deliveries.poll(20, TimeUnit.SECONDS);
                assertThat(last).as("a delivery").isNotNull();
                assertThat(last.authorization()).isEqualTo("Bearer webhook-secret");
                assertThat(last.token()).isEqualTo("client-token");
                kinds.add(last.body().propertyNames().iterator().next());
            }
            assertThat(kinds).contains("statusUpdate", "artifactUpdate");

            for (String refused : List.of("http://example.com/hook", "https://169.254.169.254/latest/meta-data",
                    "https://metadata.google.internal/x", "ftp://127.0.0.1/x", "https://[fe80::1]/x")) {
                ObjectNode bad = MAPPER.createObjectNode().put("taskId", id).put("url", refused);
                assertThat(f.rpc("CreateTaskPushNotificationConfig", bad).path("error").path("code").asInt())
                        .as(refused).isEqualTo(-32602);
            }
            assertThat(f.rest("DELETE", "/tasks/" + id + "/pushNotificationConfigs/hook-1", null).statusCode()).isEqualTo(200);
            assertThat(f.rest("DELETE", "/tasks/" + id + "/pushNotificationConfigs/hook-1", null).statusCode())
                    .as("idempotent").isEqualTo(200);
        } finally {
            webhook.stop(0);
        }
    }

    @Test
    void aRestartedServerAnswersFromTheSessionStoreAndCarriesAWaitingTaskOn() throws Exception {
        String done;
        String waiting;
        try (SqliteSessionStore store = SqliteSessionStore.open(dir)) {
            MockScript before = MockScript.of(MockTurn.content(call("task_completion", "{\"result\": \"First.\"}")),
                    MockTurn.content(call("write_file", "{\"path\": \"a.txt\"}")));
            try (A2aFixture f = new A2aFixture(before, store, b -> { })) {
                done = f.rpc("SendMessage", send(message("One", null, "ctx"))).path("result").path("task").path("id").asString();
                waiting = f.rpc("SendMessage", send(message("Write a.txt", null, "ctx"))).path("result").path("task")
                        .path("id").asString();
                ObjectNode config = MAPPER.createObjectNode().put("taskId", waiting).put("id", "kept")
                        .put("url", "https://127.0.0.1:9/hook");
                assertThat(f.rpc("CreateTaskPushNotificationConfig", config).path("result").path("id").asString())
                        .isEqualTo("kept");
            }
        }
        try (SqliteSessionStore store = SqliteSessionStore.open(dir)) {
            MockScript after = MockScript.of(MockTurn.content(call("task_completion", "{\"result\": \"Wrote a.txt.\"}")));
            try (A2aFixture f = new A2aFixture(after, store, b -> { })) {
                JsonNode first = f.rpc("GetTask", MAPPER.createObjectNode().put("id", done)).path("result");
                assertThat(first.path("status").path("state").asString()).isEqualTo("TASK_STATE_COMPLETED");
                assertThat(first.path("artifacts").get(0).path("parts").get(0).path("text").asString()).isEqualTo("First.");
                JsonNode configs = f.rpc("ListTaskPushNotificationConfigs", MAPPER.createObjectNode().put("taskId", waiting))
                        .path("result").path("configs");
                assertThat(configs.findValuesAsString("id")).as("push configs outlive the server").containsExactly("kept");
                JsonNode resumed = f.rpc("SendMessage", send(message("approve", waiting, null))).path("result").path("task");
                assertThat(resumed.path("status").path("state").asString()).isEqualTo("TASK_STATE_COMPLETED");
                assertThat(f.writes).containsExactly("a.txt");
                JsonNode listed = f.rpc("ListTasks", MAPPER.createObjectNode().put("contextId", "ctx")).path("result");
                assertThat(listed.path("totalSize").asInt()).isEqualTo(2);
            }
        }
    }

    @Test
    void theAllowListTakesHttpsAnywhereAndHttpOnLoopbackOnlyButNeverLinkLocalOrMetadata() {
        for (String taken : List.of("https://hooks.example.com/a2a", "https://203.0.113.7/x", "https://[2001:db8::1]/x",
                "http://localhost:8080/h", "http://127.0.0.1/h", "http://127.8.9.10/h", "http://[::1]:9/h")) {
            assertThat(PushDelivery.checkUrl(taken)).as(taken).isNotNull();
        }
        for (String refused : List.of("http://hooks.example.com/a2a", "http://10.0.0.5/h", "http://127.0.0.1.nip.io/h",
                "https://169.254.169.254/latest", "http://169.254.169.254/latest", "https://[fe80::1]/h",
                "https://[::ffff:169.254.169.254]/h", "https://0.0.0.0/h", "https://[::]/h", "https://224.0.0.1/h",
                "https://100.100.100.200/h", "https://metadata.google.internal/x", "https://METADATA/x",
                "https://user:pw@hooks.example.com/h", "ftp://127.0.0.1/h", "file:///etc/passwd", "not a url")) {
            assertThatThrownBy(() -> PushDelivery.checkUrl(refused)).as(refused).isInstanceOfSatisfying(
                    dev.bellows.a2a.A2aException.class,
                    e -> assertThat(e.error()).isEqualTo(dev.bellows.a2a.A2aError.INVALID_PARAMS));
        }
    }

    @Test
    void aWebhooksRedirectIsNotFollowed() throws Exception {
        LinkedBlockingQueue<String> hits = new LinkedBlockingQueue<>();
        HttpServer webhook = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        String base = "http://127.0.0.1:" + webhook.getAddress().getPort();
        webhook.createContext("/moved", exchange -> {
            exchange.getRequestBody().readAllBytes();
            hits.add("moved");
            exchange.getResponseHeaders().add("Location", base + "/elsewhere");
            exchange.sendResponseHeaders(307, -1);
            exchange.close();
        });
        webhook.createContext("/elsewhere", exchange -> {
            exchange.getRequestBody().readAllBytes();
            hits.add("elsewhere");
            exchange.sendResponseHeaders(204, -1);
            exchange.close();
        });
        webhook.createContext("/sink", exchange -> {
            JsonNode body = MAPPER.readTree(new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8));
            hits.add("sink " + body.path("statusUpdate").path("status").path("state").asString());
            exchange.sendResponseHeaders(204, -1);
            exchange.close();
        });
        webhook.start();
        try (A2aFixture f = new A2aFixture(writeThenDone())) {
            String id = f.rpc("SendMessage", send(message("Write a.txt", null, null))).path("result").path("task")
                    .path("id").asString();
            for (String path : List.of("/moved", "/sink")) {     // delivered in this order, event by event
                f.rpc("CreateTaskPushNotificationConfig", MAPPER.createObjectNode().put("taskId", id).put("url", base + path));
            }
            f.rpc("SendMessage", send(message("approve", id, null)));
            List<String> seen = new java.util.ArrayList<>();
            while (!seen.contains("sink TASK_STATE_COMPLETED")) {
                String hit = hits.poll(20, TimeUnit.SECONDS);
                assertThat(hit).as("a delivery after %s", seen).isNotNull();
                seen.add(hit);
            }
            assertThat(seen).contains("moved").doesNotContain("elsewhere");
        } finally {
            webhook.stop(0);
        }
    }
}
