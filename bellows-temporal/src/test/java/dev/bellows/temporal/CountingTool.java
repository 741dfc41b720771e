package dev.bellows.temporal;

import dev.bellows.json.internal.Jackson;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;
import dev.bellows.tool.Tool;
import dev.bellows.tool.ToolContext;
import dev.bellows.tool.ToolResult;
import java.util.concurrent.atomic.AtomicInteger;

/** A tool that counts its calls and answers with the count: {@code count}, no arguments. */
final class CountingTool implements Tool {

    final AtomicInteger calls = new AtomicInteger();

    @Override
    public String name() {
        return "count";
    }

    @Override
    public String description() {
        return "Counts.";
    }

    @Override
    public ObjectNode inputSchema() {
        ObjectNode schema = Jackson.JSON.createObjectNode();
        schema.put("type", "object");
        schema.putObject("properties").putObject("text").put("type", "string");
        return schema;
    }

    @Override
    public ToolResult<?> call(ToolContext context, JsonNode arguments) {
        int n = calls.incrementAndGet();
        String text = arguments.path("text").asString("");
        return ToolResult.of("call " + n + (text.isEmpty() ? "" : ": " + text.length() + " characters"));
    }

    static String call(String text) {
        return "<tool>{\"tool_name\": \"count\", \"arguments\": {\"text\": \"" + text + "\"}}</tool>";
    }

    static String done(String result) {
        return "<tool>{\"tool_name\": \"task_completion\", \"arguments\": {\"result\": \"" + result + "\"}}</tool>";
    }
}
