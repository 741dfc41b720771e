package dev.bellows.a2a;

import dev.bellows.json.internal.Jackson;
import static org.assertj.core.api.Assertions.assertThat;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The model writes and reads the JSON of the A2A 1.0 specification (camelCase, protobuf enum names, oneof as one key). */
class ModelJsonTest {
    private static final ObjectMapper MAPPER = Jackson.JSON;

    @Test
    void aTaskIsWrittenAsTheSpecificationShowsIt() throws Exception {
        Message question = Message.of(Role.USER, List.of(Part.text("hi"), Part.data(Map.of("k", 1)),
                Part.file(new byte[] {1, 2, 3}, "a.bin", "application/octet-stream")));
        Task task = new Task("t1", "c1", new TaskStatus(TaskState.INPUT_REQUIRED, null, "2025-10-28T10:30:00.000Z"),
                null, List.of(question), null);
        JsonNode json = MAPPER.readTree(MAPPER.writeValueAsString(task));
        assertThat(json.path("status").path("state").asString()).isEqualTo("TASK_STATE_INPUT_REQUIRED");
        assertThat(json.has("artifacts")).as("left out, not null").isFalse();
        JsonNode msg = json.path("history").path(0);
        assertThat(msg.path("role").asString()).isEqualTo("ROLE_USER");
        assertThat(msg.has("messageId")).isTrue();
        assertThat(msg.path("parts").path(0).toString()).isEqualTo("{\"text\":\"hi\"}");
        assertThat(msg.path("parts").path(1).toString()).isEqualTo("{\"data\":{\"k\":1},\"mediaType\":\"application/json\"}");
        assertThat(msg.path("parts").path(2).path("raw").asString()).isEqualTo("AQID");
        Task back = MAPPER.readValue(json.toString(), Task.class);
        assertThat(back.status().state()).isEqualTo(TaskState.INPUT_REQUIRED);
        assertThat(back.history().get(0).parts().get(2).raw()).containsExactly(1, 2, 3);
    }

    @Test
    void theSpecificationsSampleCardReadsAndWritesBackTheSame() throws Exception {
        String sample = """
                {"name":"GeoSpatial Route Planner Agent","description":"Plans routes.",
                 "supportedInterfaces":[{"url":"https://georoute-agent.example.com/a2a/v1","protocolBinding":"JSONRPC","protocolVersion":"1.0"},
                   {"url":"https://georoute-agent.example.com/a2a/json","protocolBinding":"HTTP+JSON","protocolVersion":"1.0"}],
                 "provider":{"organization":"Example Geo Services Inc.","url":"https://www.examplegeoservices.com"},
                 "iconUrl":"https://georoute-agent.example.com/icon.png","version":"1.2.0",
                 "documentationUrl":"https://docs.examplegeoservices.com/georoute-agent/api",
                 "capabilities":{"streaming":true,"pushNotifications":true,"extendedAgentCard":true},
                 "securitySchemes":{"google":{"openIdConnectSecurityScheme":{"openIdConnectUrl":"https://accounts.google.com/.well-known/openid-configuration"}},
                   "token":{"httpAuthSecurityScheme":{"scheme":"Bearer"}},
                   "oauth":{"oauth2SecurityScheme":{"flows":{"clientCredentials":{"tokenUrl":"https://x.example/t","scopes":{"a":"b"}}}}}},
                 "securityRequirements":[{"schemes":{"google":{"list":["openid","profile","email"]}}}],
                 "defaultInputModes":["application/json","text/plain"],"defaultOutputModes":["application/json","image/png"],
                 "skills":[{"id":"route-optimizer-traffic","name":"Traffic-Aware Route Optimizer","description":"Routes.",
                   "tags":["maps"],"examples":["Plan a route"],"inputModes":["application/json"],"outputModes":["text/html"]}],
                 "signatures":[{"protected":"eyJhbGciOiJFUzI1NiJ9","signature":"QFdk"}]}
                """;
        AgentCard card = MAPPER.readValue(sample, AgentCard.class);
        assertThat(card.securitySchemes().get("google").openIdConnectSecurityScheme().openIdConnectUrl()).startsWith("https://accounts");
        assertThat(card.signatures().get(0).protectedHeader()).isEqualTo("eyJhbGciOiJFUzI1NiJ9");
        assertThat(MAPPER.readTree(MAPPER.writeValueAsString(card))).isEqualTo(MAPPER.readTree(sample));
    }

    @Test
    void streamEventsAndErrorsUseTheirWireNames() throws Exception {
        var update = new TaskArtifactUpdateEvent("t", "c", Artifact.of("a", "answer", List.of(Part.text("x"))), true, false, null);
        assertThat(MAPPER.writeValueAsString(StreamResponse.of(update)))
                .isEqualTo("{\"artifactUpdate\":{\"taskId\":\"t\",\"contextId\":\"c\",\"artifact\":{\"artifactId\":\"a\",\"name\":\"answer\","
                        + "\"parts\":[{\"text\":\"x\"}]},\"append\":true,\"lastChunk\":false}}");
        assertThat(MAPPER.writeValueAsString(JsonRpcResponse.error(null, new JsonRpcError(A2aError.TASK_NOT_FOUND.code(), "no", null))))
                .isEqualTo("{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32001,\"message\":\"no\"}}");
        assertThat(TaskState.fromWire("TASK_STATE_AUTH_REQUIRED")).isEqualTo(TaskState.AUTH_REQUIRED);
        assertThat(MAPPER.readValue("\"TASK_STATE_CANCELED\"", TaskState.class)).isEqualTo(TaskState.CANCELED);
    }
}
