package dev.bellows.tool;

import dev.bellows.json.internal.Jackson;
import dev.bellows.tool.chain.ToolChain;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.node.ObjectNode;

/** A tool made of a lambda, with its flags, for the ToolChain tests. */
record TestTool(String name, ObjectNode inputSchema, Handler handler, boolean validatesArguments,
                boolean loopBreaking, boolean parallelSafe) implements Tool {

    interface Handler {
        ToolResult<?> call(ToolContext context, JsonNode arguments) throws Exception;
    }

    private static final ObjectMapper JSON = Jackson.JSON;

    static TestTool of(String name, Handler handler) {
        return new TestTool(name, JSON.createObjectNode().put("type", "object"), handler, false, false, false);
    }

    /** A schema from JSON text, e.g. {@code {"type":"object","required":["path"],...}}. */
    TestTool withSchema(String schema) {
        try {
            return new TestTool(name, (ObjectNode) JSON.readTree(schema), handler, validatesArguments, loopBreaking,
                    parallelSafe);
        } catch (Exception e) {
            throw new IllegalArgumentException(e);
        }
    }

    TestTool validating() {
        return new TestTool(name, inputSchema, handler, true, loopBreaking, parallelSafe);
    }

    TestTool breakingTheLoop() {
        return new TestTool(name, inputSchema, handler, validatesArguments, true, parallelSafe);
    }

    TestTool parallel() {
        return new TestTool(name, inputSchema, handler, validatesArguments, loopBreaking, true);
    }

    @Override
    public String description() {
        return "test tool " + name;
    }

    @Override
    public ToolResult<?> call(ToolContext context, JsonNode arguments) throws Exception {
        return handler.call(context, arguments);
    }
}
