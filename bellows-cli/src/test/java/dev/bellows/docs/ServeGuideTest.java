package dev.bellows.docs;

import dev.bellows.json.internal.Jackson;
import static org.assertj.core.api.Assertions.assertThat;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.node.ObjectNode;
import dev.bellows.agent.DefaultAgent;
import dev.bellows.openai.OpenAiProvider;
import dev.bellows.provider.Provider;
import dev.bellows.server.AgentServer;
import dev.bellows.server.jetty.JettyAgentServer;
import dev.bellows.testkit.MockLlmServer;
import dev.bellows.testkit.MockScript;
import dev.bellows.testkit.MockTurn;
import dev.bellows.tool.ToolRegistry;
import dev.bellows.tool.ToolResult;
import dev.bellows.tool.TypedTool;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * docs/serve.md's AG-UI {@code resume} request, sent as the page prints it to a real server
 * whose thread waits on the two calls it names: the approved one runs, the denied one does
 * not, the model reads the reason, and the run carries on to its answer.
 */
class ServeGuideTest {

    private static final ObjectMapper JSON = Jackson.JSON;

    record Target(String path) {
    }

    /** The page's one JSON example that has a {@code resume}. */
    private static ObjectNode example() throws Exception {
        String page = Files.readString(MarkdownPages.repositoryRoot().resolve("docs/serve.md"), StandardCharsets.UTF_8);
        Matcher block = Pattern.compile("(?ms)^```json\\n(.*?)^```").matcher(page);
        List<ObjectNode> found = new ArrayList<>();
        while (block.find()) {
            JsonNode node = JSON.readTree(block.group(1));
            if (node.has("resume")) {
                found.add((ObjectNode) node);
            }
        }
        assertThat(found).as("JSON examples with a resume in docs/serve.md").hasSize(1);
        return found.get(0);
    }

    @Test
    void theResumeExampleCarriesOnTheWaitingRunAsThePageSays() throws Exception {
        ObjectNode resume = example();
        // the run it answers: the same thread and message, no resume
        ObjectNode first = resume.deepCopy();
        first.remove("resume");
        first.put("runId", "run-1");

        List<String> writes = new CopyOnWriteArrayList<>();
        ToolRegistry tools = new ToolRegistry().register(TypedTool.of("write_file", "Writes a file.", Target.class,
                (context, args) -> {
                    writes.add(args.path());
                    return ToolResult.of("wrote " + args.path());
                }));
        MockScript script = MockScript.of(
                MockTurn.content("<tool>{\"tool_name\": \"write_file\", \"arguments\": {\"path\": \"notes.md\"}}</tool>"
                        + "<tool>{\"tool_name\": \"write_file\", \"arguments\": {\"path\": \"todo.md\"}}</tool>"),
                MockTurn.content("<tool>{\"tool_name\": \"task_completion\", \"arguments\": {\"result\": \"Wrote notes.md.\"}}</tool>"));
        HttpClient client = HttpClient.newHttpClient();
        try (MockLlmServer model = MockLlmServer.start(script);
             Provider provider = OpenAiProvider.builder().baseUrl(model.baseUrl().toString()).build()) {
            DefaultAgent agent = DefaultAgent.builder().provider(provider).model("mock").toolRegistry(tools)
                    .requireApproval("local/write_file").build();
            try (JettyAgentServer http = JettyAgentServer.start(AgentServer.builder(agent).build(), "127.0.0.1", 0)) {
                List<JsonNode> waited = post(client, http, first);
                JsonNode outcome = waited.get(waited.size() - 1).get("outcome");
                assertThat(outcome.get("type").asString()).isEqualTo("interrupt");
                List<String> interrupts = new ArrayList<>();
                outcome.get("interrupts").forEach(i -> interrupts.add(i.get("id").asString()));
                List<String> answered = new ArrayList<>();
                resume.get("resume").forEach(r -> answered.add(r.get("interruptId").asString()));
                assertThat(answered).as("the example answers the calls that wait").isEqualTo(interrupts);

                List<JsonNode> carried = post(client, http, resume);
                assertThat(carried.get(0).get("type").asString()).isEqualTo("RUN_STARTED");
                assertThat(carried.subList(1, 3)).extracting(e -> e.get("type").asString())
                        .containsExactly("TOOL_CALL_RESULT", "TOOL_CALL_RESULT");
                assertThat(carried.get(1).get("toolCallId").asString()).isEqualTo("call_1_1");
                assertThat(carried.get(1).get("content").asString()).isEqualTo("wrote notes.md");
                assertThat(carried.get(2).get("toolCallId").asString()).isEqualTo("call_1_2");
                assertThat(carried.get(2).get("content").asString()).contains("todo.md is generated; leave it alone");
                JsonNode end = carried.get(carried.size() - 1);
                assertThat(end.get("type").asString()).isEqualTo("RUN_FINISHED");
                assertThat(end.get("result").asString()).isEqualTo("Wrote notes.md.");
                assertThat(writes).containsExactly("notes.md");
                assertThat(model.requests().get(1).body().toString()).contains("todo.md is generated; leave it alone");
            }
        }
    }

    private static List<JsonNode> post(HttpClient client, JettyAgentServer http, JsonNode input) throws Exception {
        HttpResponse<String> response = client.send(HttpRequest.newBuilder(http.uri().resolve("/agui"))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(input.toString())).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        List<JsonNode> events = new ArrayList<>();
        for (String line : response.body().split("\n")) {
            if (line.startsWith("data: ")) {
                events.add(JSON.readTree(line.substring(6)));
            }
        }
        return events;
    }
}
