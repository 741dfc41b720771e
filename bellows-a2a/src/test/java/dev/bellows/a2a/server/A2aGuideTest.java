package dev.bellows.a2a.server;

import static dev.bellows.a2a.server.A2aFixture.MAPPER;
import static dev.bellows.a2a.server.A2aFixture.call;
import static org.assertj.core.api.Assertions.assertThat;

import tools.jackson.databind.JsonNode;
import dev.bellows.testkit.MockScript;
import dev.bellows.testkit.MockTurn;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * docs/a2a.md's approval example, sent as the page prints it to a real server whose agent asks
 * before write_file: the task waits with the status message the page shows, and the page's
 * decision message (its placeholders replaced by the real ids) runs the approved call only, the
 * model reading the denial's reason.
 */
class A2aGuideTest {

    /** The page's JSON examples, in order. */
    private static List<String> examples() throws Exception {
        Path root = Path.of("").toAbsolutePath();
        while (!Files.exists(root.resolve("docs/a2a.md"))) {
            root = root.getParent();
        }
        String page = Files.readString(root.resolve("docs/a2a.md"), StandardCharsets.UTF_8);
        Matcher block = Pattern.compile("(?ms)^```json\\n(.*?)^```").matcher(page);
        List<String> found = new ArrayList<>();
        while (block.find()) {
            found.add(block.group(1));
        }
        assertThat(found).as("the JSON examples of docs/a2a.md").hasSize(3);
        return found;
    }

    private static JsonNode post(A2aFixture f, String body) throws Exception {
        HttpRequest request = HttpRequest.newBuilder(f.uri(A2aServer.JSONRPC_PATH)).header("A2A-Version", "1.0")
                .header("Content-Type", "application/json").header("Authorization", "Bearer " + A2aFixture.TOKEN)
                .POST(HttpRequest.BodyPublishers.ofString(body)).build();
        return MAPPER.readTree(f.client.send(request, HttpResponse.BodyHandlers.ofString()).body());
    }

    @Test
    void theApprovalExampleWaitsAndItsDecisionRunsTheApprovedCallOnly() throws Exception {
        List<String> examples = examples();
        MockScript script = MockScript.of(
                MockTurn.content(call("write_file", "{\"path\": \"notes.md\"}") + call("write_file", "{\"path\": \"todo.md\"}")),
                MockTurn.content(call("task_completion", "{\"result\": \"Wrote notes.md.\"}")));
        try (A2aFixture f = new A2aFixture(script)) {
            JsonNode task = post(f, examples.get(0)).path("result").path("task");
            JsonNode shown = MAPPER.readTree(examples.get(1));
            assertThat(task.path("status").path("state").asString()).isEqualTo(shown.path("state").asString());
            JsonNode parts = task.path("status").path("message").path("parts");
            JsonNode waiting = parts.get(0).path("data").path("waiting");
            JsonNode shownWaiting = shown.path("message").path("parts").get(0).path("data").path("waiting");
            assertThat(waiting).hasSize(shownWaiting.size());
            for (int i = 0; i < waiting.size(); i++) {
                assertThat(waiting.get(i).path("tool")).isEqualTo(shownWaiting.get(i).path("tool"));
                assertThat(waiting.get(i).path("arguments")).isEqualTo(shownWaiting.get(i).path("arguments"));
            }
            assertThat(parts.get(1).path("text").asString()).startsWith(shown.path("message").path("parts").get(1)
                    .path("text").asString().replace("CALL_1", waiting.get(0).path("id").asString()).replace(" ...", ""));

            String decision = examples.get(2).replace("TASK_ID", task.path("id").asString())
                    .replace("CALL_1", waiting.get(0).path("id").asString())
                    .replace("CALL_2", waiting.get(1).path("id").asString());
            JsonNode done = post(f, decision).path("result").path("task");
            assertThat(done.path("status").path("state").asString()).isEqualTo("TASK_STATE_COMPLETED");
            assertThat(f.writes).containsExactly("notes.md");
            assertThat(f.provider.requests().get(1).messages().toString()).contains("todo.md is someone else's");
        }
    }
}
