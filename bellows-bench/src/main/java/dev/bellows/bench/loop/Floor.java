package dev.bellows.bench.loop;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;
import tools.jackson.databind.json.JsonMapper;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * The floor: the least a program must do for the task, written by hand on
 * {@code java.net.http} and one shared Jackson mapper, with a native tool. A streamed request
 * per step; the SSE lines are read to the end of the body, each {@code data:} line parsed; the
 * tool call's argument pieces are joined, parsed, and the tool run. What a framework costs
 * above this is its overhead.
 */
final class Floor implements Contestant {

    private static final ObjectMapper JSON = JsonMapper.shared();

    private final ExecutorService executor;
    private final HttpClient http;
    private final URI endpoint;
    private final ObjectNode tool;

    /** The floor with its client set up as Bellows' is: HTTP/1.1, virtual threads. */
    Floor(String baseUrl) {
        this(baseUrl, false);
    }

    /**
     * @param defaultClient {@code HttpClient.newHttpClient()} as it comes, which asks every
     *                      plain-HTTP request to upgrade to h2c and hands the body to a cached
     *                      pool of platform threads: the setup that does not finish 10,000
     *                      sessions (BENCHMARKS.md, "Sessions at scale")
     */
    Floor(String baseUrl, boolean defaultClient) {
        if (defaultClient) {
            executor = null;
            http = HttpClient.newHttpClient();
        } else {
            // The same bytes on the wire as Bellows (no Upgrade: h2c headers), and the body
            // handed over on virtual threads, as Bellows' SseClient does.
            executor = Executors.newVirtualThreadPerTaskExecutor();
            http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).executor(executor).build();
        }
        this.endpoint = URI.create(baseUrl + "/chat/completions");
        ObjectNode parameters = JSON.createObjectNode().put("type", "object");
        parameters.putObject("properties").<ObjectNode>set("a", JSON.createObjectNode().put("type", "integer"))
                .set("b", JSON.createObjectNode().put("type", "integer"));
        parameters.putArray("required").add("a").add("b");
        tool = JSON.createObjectNode().put("type", "function");
        tool.putObject("function").put("name", "add").put("description", "Adds two integers")
                .set("parameters", parameters);
    }

    @Override
    public String name() {
        return "floor (java.net.http)";
    }

    @Override
    public String runTask() throws Exception {
        ArrayNode messages = JSON.createArrayNode();
        messages.addObject().put("role", "user").put("content", LoopComparison.TASK);
        for (int request = 0; request < 10; request++) {
            Answer answer = ask(messages);
            if (answer.toolName == null) {
                return answer.text.toString();
            }
            if (!answer.toolName.equals("add")) {
                throw new IllegalStateException("expected a call of add, got " + answer);
            }
            JsonNode arguments = JSON.readTree(answer.arguments.toString());
            String result = "sum=" + (arguments.get("a").asInt() + arguments.get("b").asInt());
            ObjectNode assistant = messages.addObject().put("role", "assistant").put("content", answer.text.toString());
            ObjectNode call = assistant.putArray("tool_calls").addObject().put("id", answer.toolCallId).put("type", "function");
            call.putObject("function").put("name", answer.toolName).put("arguments", answer.arguments.toString());
            messages.addObject().put("role", "tool").put("tool_call_id", answer.toolCallId).put("content", result);
        }
        throw new IllegalStateException("no answer after 10 requests");
    }

    private Answer ask(ArrayNode messages) throws IOException, InterruptedException {
        ObjectNode body = JSON.createObjectNode().put("model", "mock").put("stream", true);
        body.set("messages", messages);
        body.putArray("tools").add(tool);
        HttpRequest request = HttpRequest.newBuilder(endpoint)
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofByteArray(JSON.writeValueAsBytes(body)))
                .build();
        HttpResponse<InputStream> response = http.send(request, HttpResponse.BodyHandlers.ofInputStream());
        Answer answer = new Answer();
        try (BufferedReader lines = new BufferedReader(new InputStreamReader(response.body(), StandardCharsets.UTF_8))) {
            // Read to the end of the body, past [DONE]: the connection then goes back to the pool.
            for (String line = lines.readLine(); line != null; line = lines.readLine()) {
                if (!line.startsWith("data: ") || line.equals("data: [DONE]")) {
                    continue;
                }
                JsonNode delta = JSON.readTree(line.substring(6)).path("choices").path(0).path("delta");
                JsonNode content = delta.get("content");
                if (content != null && content.isString()) {
                    answer.text.append(content.asString());
                }
                JsonNode toolCall = delta.path("tool_calls").path(0);
                if (!toolCall.isMissingNode()) {
                    if (toolCall.hasNonNull("id")) {
                        answer.toolCallId = toolCall.get("id").asString();
                        answer.toolName = toolCall.path("function").path("name").asString();
                    }
                    answer.arguments.append(toolCall.path("function").path("arguments").asString(""));
                }
            }
        }
        return answer;
    }

    @Override
    public void close() {
        http.shutdownNow();
        if (executor != null) {
            executor.shutdownNow();
        }
    }

    private static final class Answer {
        final StringBuilder text = new StringBuilder();
        final StringBuilder arguments = new StringBuilder();
        String toolCallId;
        String toolName;

        @Override
        public String toString() {
            return "text=" + text + " tool=" + toolName + " arguments=" + arguments;
        }
    }
}
