package dev.bellows.event;

import tools.jackson.core.JsonGenerator;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ContainerNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;
import dev.bellows.plan.PlanStep;
import dev.bellows.tool.DecodedToolCall;
import dev.bellows.tool.ToolCall;
import dev.bellows.tool.ToolCallError;
import java.util.Locale;
import java.util.Map;

/**
 * Events in their wire form, as JSON objects: {@code type} first, then the event's own fields.
 *
 * <p>Stream events have the field names of the stream contract: {@code type}, then
 * {@code chunk} (unless left out), then {@code name}, {@code attributes}, {@code content},
 * {@code tool_name}, {@code server_name}, {@code arguments}, {@code error}, {@code value}, {@code message},
 * {@code thinking}, {@code tool_calls}.
 *
 * <p>Loop events have the fields of the CLI's {@code --output jsonl} table:
 * <pre>
 * {"type":"loop_start","task":"..."}
 * {"type":"iteration_start","iteration":1}
 * {"type":"tool_result","server_name":"local","tool_name":"read_file","arguments":{...},"result":"..."}
 * {"type":"tool_result_error","server_name":"local","tool_name":"nope","error":"..."}
 * {"type":"tool_result_error","error":"..."}            (a call that could not be decoded)
 * {"type":"no_tool_call","iteration":2}
 * {"type":"plan_update","steps":[{"description":"...","status":"in_progress"}]}
 * {"type":"retry","attempt":2,"reason":"HTTP 503: ...","delay_ms":500}
 * {"type":"approval_required","id":"call_3_1","server_name":"files","tool_name":"write_file","arguments":{...}}
 * {"type":"approval","id":"call_3_1","decision":"denied","reason":"use the staging folder"}
 * {"type":"loop_end","reason":"task_completion","result":"..."}
 * </pre>
 *
 * <pre>{@code
 * ObjectMapper mapper = new ObjectMapper();
 * String line = mapper.writeValueAsString(EventJson.toJson(event, false));   // the agent's event log
 * // {"type":"tool_call_name","tool_name":"read_file"}
 * }</pre>
 *
 * <p>The returned trees are new JSON objects, typed {@code JsonNode} to be read: the tool
 * arguments and argument values inside them are the events' own frozen trees (read-only, shared,
 * not copied). {@link JsonNode#deepCopy()} gives a tree to change.
 */
public final class EventJson {

    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

    private EventJson() {
    }

    /**
     * The event {@code json} holds, as {@link #toJson(AgentEvent, boolean)} wrote it (with or
     * without {@code chunk}): what a follower of a run carried on in another process receives.
     * Empty for a type this version does not know (a newer writer's); {@code complete} is not
     * read back (it is never sent on). Missing fields read as empty.
     */
    public static java.util.Optional<AgentEvent> fromJson(tools.jackson.databind.JsonNode json) {
        return EventJsonReader.read(java.util.Objects.requireNonNull(json, "json"));
    }

    /**
     * Writes any event as one JSON object to {@code generator}, exactly as
     * {@link #toJson(AgentEvent, boolean)}'s tree is written, without building the tree: for
     * writers of many events (an events file, a stream of JSON lines), which can keep one
     * generator for all of them. The generator's separator between root values applies as
     * for any value; it is not flushed.
     *
     * @param includeChunk whether stream events carry {@code chunk}, as for {@code toJson}
     * @throws tools.jackson.core.JacksonException when the generator cannot write
     */
    public static void write(AgentEvent event, boolean includeChunk, JsonGenerator generator) {
        Fields out = new GeneratorFields(java.util.Objects.requireNonNull(generator, "generator"));
        generator.writeStartObject();
        fields(java.util.Objects.requireNonNull(event, "event"), includeChunk, out);
        generator.writeEndObject();
    }

    /** The event as a JSON object, with {@code chunk}. */
    public static JsonNode toJson(StreamEvent event) {
        return object(event, true);
    }

    /** Any event as a JSON object; stream events with {@code chunk}. */
    public static JsonNode toJson(AgentEvent event) {
        return object(event, true);
    }

    /**
     * Any event as a JSON object.
     *
     * @param includeChunk whether stream events carry {@code chunk}; {@code false} for the
     *                     agent loop's event log ({@code --output jsonl}), where chunk indices
     *                     mean nothing. Loop events have no {@code chunk} either way.
     */
    public static JsonNode toJson(AgentEvent event, boolean includeChunk) {
        return object(event, includeChunk);
    }

    private static ObjectNode object(AgentEvent event, boolean includeChunk) {
        ObjectNode json = NODES.objectNode();
        fields(event, includeChunk, new TreeFields(json));
        return json;
    }

    /** A loop event as a JSON object, with the fields of the CLI's jsonl table. */
    public static JsonNode toJson(LoopEvent event) {
        return object(event, false);
    }

    /**
     * The event as a JSON object.
     *
     * @param includeChunk whether to write {@code chunk} (second, after {@code type});
     *                     {@code false} for outputs where chunk indices mean nothing, such as
     *                     the agent loop's event log
     */
    public static JsonNode toJson(StreamEvent event, boolean includeChunk) {
        return object(event, includeChunk);
    }

    // The wire form, written once for both outputs: a tree (toJson) and a generator (write).

    private static void fields(AgentEvent event, boolean includeChunk, Fields out) {
        if (event instanceof LoopEvent.SubAgentEvent nested) {
            LoopEvent.SubAgentEvent deepest = nested.deepest();
            fields(nested.innermost(), includeChunk, out);
            out.string("agent", deepest.agent());
            out.string("parent_call_id", deepest.parentCallId());
            return;
        }
        switch (event) {
            case StreamEvent e -> fields(e, includeChunk, out);
            case LoopEvent e -> fields(e, out);
        }
    }

    private static void fields(LoopEvent event, Fields out) {
        out.string("type", event.type());
        // No default branch: a new event type must be given its wire form here.
        switch (event) {
            case LoopEvent.LoopStart e -> out.string("task", e.task());
            case LoopEvent.IterationStart e -> out.number("iteration", e.iteration());
            case LoopEvent.ToolResultEvent e -> {
                out.string("server_name", e.serverName());
                out.string("tool_name", e.toolName());
                out.tree("arguments", e.arguments());    // frozen: shared, not copied
                out.string("result", e.result());
                if (e.callId() != null) {
                    out.string("call_id", e.callId());
                }
            }
            case LoopEvent.ToolResultError e -> {
                if (e.serverName() != null) {
                    out.string("server_name", e.serverName());
                }
                if (e.toolName() != null) {
                    out.string("tool_name", e.toolName());
                }
                out.string("error", e.error());
                if (e.callId() != null) {
                    out.string("call_id", e.callId());
                }
            }
            case LoopEvent.NoToolCall e -> out.number("iteration", e.iteration());
            case LoopEvent.PlanUpdate e -> {
                out.startArray("steps");
                for (PlanStep step : e.steps()) {
                    out.startObject(null);
                    out.string("description", step.description());
                    out.string("status", step.status().name().toLowerCase(Locale.ROOT));
                    out.end();
                }
                out.end();
            }
            case LoopEvent.Retry e -> {
                out.number("attempt", e.attempt());
                out.string("reason", e.reason());
                out.number("delay_ms", e.delayMs());
            }
            case LoopEvent.ApprovalRequired e -> {
                out.string("id", e.id());
                out.string("server_name", e.serverName());
                out.string("tool_name", e.toolName());
                out.tree("arguments", e.arguments());    // frozen: shared, not copied
            }
            case LoopEvent.Approval e -> {
                out.string("id", e.id());
                out.string("decision", e.approved() ? "approved" : "denied");
                out.string("reason", e.reason());
            }
            case LoopEvent.LoopEnd e -> {
                out.string("reason", e.reason().wireName());
                out.string("result", e.result());
            }
            case LoopEvent.Handoff e -> {
                out.string("from", e.from());
                out.string("to", e.to());
            }
            case LoopEvent.SubAgentEvent e -> throw new AssertionError("written above");
        }
    }

    private static void fields(StreamEvent event, boolean includeChunk, Fields out) {
        out.string("type", event.type());
        if (includeChunk) {
            out.number("chunk", event.chunk());
        }
        // No default branch: a new event type must be given its wire form here.
        switch (event) {
            case StreamEvent.ThinkingStart e -> {
                out.string("name", e.name());
                attributes(e.attributes(), out);
            }
            case StreamEvent.ThinkingContent e -> out.string("content", e.content());
            case StreamEvent.ThinkingEnd e -> out.string("content", e.content());
            case StreamEvent.MessageStart e -> {
            }
            case StreamEvent.MessageContent e -> out.string("content", e.content());
            case StreamEvent.MessageEnd e -> out.string("content", e.content());
            case StreamEvent.ToolCallStart e -> {
                out.string("name", e.name());
                attributes(e.attributes(), out);
            }
            case StreamEvent.ToolCallName e -> out.string("tool_name", e.toolName());
            case StreamEvent.ToolCallArgument e -> {
                out.string("name", e.name());
                out.tree("value", e.value());    // frozen: shared, not copied
            }
            case StreamEvent.Section e -> {
                out.string("name", e.name());
                out.string("content", e.content());
            }
            case StreamEvent.ToolCallContent e -> out.string("content", e.content());
            case StreamEvent.ToolCallEnd e -> {
                out.string("content", e.content());
                switch (e.call()) {
                    case ToolCall call -> call(call, out);
                    case ToolCallError error -> out.string("error", error.error());
                }
                if (e.callId() != null) {
                    out.string("call_id", e.callId());
                }
            }
            case StreamEvent.Complete e -> {
                out.string("message", e.message());
                out.startArray("thinking");
                for (ThinkingBlock block : e.thinking()) {
                    out.startObject(null);
                    out.string("name", block.name());
                    out.string("content", block.content());
                    attributes(block.attributes(), out);
                    out.end();
                }
                out.end();
                out.startArray("tool_calls");
                for (DecodedToolCall decoded : e.toolCalls()) {
                    out.startObject(null);
                    switch (decoded) {
                        case ToolCall call -> call(call, out);
                        case ToolCallError error -> {
                            out.string("content", error.content());
                            out.string("error", error.error());
                        }
                    }
                    out.end();
                }
                out.end();
            }
        }
    }

    private static void call(ToolCall call, Fields out) {
        out.string("server_name", call.serverName());
        out.string("tool_name", call.toolName());
        out.tree("arguments", call.arguments());    // frozen: shared, not copied
    }

    private static void attributes(Map<String, String> attributes, Fields out) {
        out.startObject("attributes");
        attributes.forEach(out::string);
        out.end();
    }

    /**
     * Where the wire form's fields go: the object being written is open; {@code name} is null
     * for an element of an array. A null string is JSON's null.
     */
    private interface Fields {
        void string(String name, String value);

        void number(String name, int value);

        void number(String name, long value);

        void tree(String name, JsonNode value);

        void startObject(String name);

        void startArray(String name);

        void end();
    }

    /** Builds the tree: a node per field, the trees given shared, not copied. */
    private static final class TreeFields implements Fields {

        private final ContainerNode<?>[] open = new ContainerNode<?>[4];    // at most an object in an object in an array (a thinking block's attributes)
        private int depth;

        TreeFields(ObjectNode root) {
            open[0] = root;
        }

        private ObjectNode object() {
            return (ObjectNode) open[depth];
        }

        @Override
        public void string(String name, String value) {
            object().put(name, value);
        }

        @Override
        public void number(String name, int value) {
            object().put(name, value);
        }

        @Override
        public void number(String name, long value) {
            object().put(name, value);
        }

        @Override
        public void tree(String name, JsonNode value) {
            object().set(name, value);
        }

        @Override
        public void startObject(String name) {
            ContainerNode<?> child = name == null ? ((ArrayNode) open[depth]).addObject() : object().putObject(name);
            open[++depth] = child;
        }

        @Override
        public void startArray(String name) {
            ArrayNode child = object().putArray(name);
            open[++depth] = child;
        }

        @Override
        public void end() {
            open[depth--] = null;
        }
    }

    /** Writes the fields straight to a generator, as the tree's serialiser would write them. */
    private record GeneratorFields(JsonGenerator generator) implements Fields {

        @Override
        public void string(String name, String value) {
            generator.writeName(name);
            if (value == null) {
                generator.writeNull();
            } else {
                generator.writeString(value);
            }
        }

        @Override
        public void number(String name, int value) {
            generator.writeName(name);
            generator.writeNumber(value);
        }

        @Override
        public void number(String name, long value) {
            generator.writeName(name);
            generator.writeNumber(value);
        }

        @Override
        public void tree(String name, JsonNode value) {
            generator.writeName(name);
            if (value == null) {
                generator.writeNull();
            } else {
                generator.writeTree(value);
            }
        }

        @Override
        public void startObject(String name) {
            if (name != null) {
                generator.writeName(name);
            }
            generator.writeStartObject();
        }

        @Override
        public void startArray(String name) {
            generator.writeName(name);
            generator.writeStartArray();
        }

        @Override
        public void end() {
            if (generator.streamWriteContext().inArray()) {
                generator.writeEndArray();
            } else {
                generator.writeEndObject();
            }
        }
    }
}
