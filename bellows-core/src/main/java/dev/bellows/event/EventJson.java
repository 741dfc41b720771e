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
        java.util.Objects.requireNonNull(generator, "generator");
        generator.writeStartObject();
        fields(java.util.Objects.requireNonNull(event, "event"), includeChunk, GeneratorFields.INSTANCE, generator);
        generator.writeEndObject();
    }

    /**
     * Appends any event as one compact JSON object to {@code out}: the text a generator of
     * the shared defaults writes with {@link #write} (no pretty printer; only quotes,
     * backslashes and control characters escaped), made without a generator. For writers of
     * many events into text they keep, such as the lines of an events file: no generator to
     * make, keep or close, none of its per-field state, and the wire form's own names and
     * types written as they are, not scanned for characters to escape (a run's 54 events of a
     * tool call and an answer in 5 to 8.5 µs, through a generator writing to a plain writer in
     * 7.5 to 11 µs, on the machine of the project's benchmarks).
     *
     * @param includeChunk whether stream events carry {@code chunk}, as for {@code toJson}
     * @return {@code out}
     */
    public static StringBuilder append(AgentEvent event, boolean includeChunk, StringBuilder out) {
        java.util.Objects.requireNonNull(out, "out").append('{');
        fields(java.util.Objects.requireNonNull(event, "event"), includeChunk, TextFields.INSTANCE, out);
        return out.append('}');
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
        fields(event, includeChunk, TreeFields.INSTANCE, json);
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

    private static <T> void fields(AgentEvent event, boolean includeChunk, Fields<T> out, T at) {
        if (event instanceof LoopEvent.SubAgentEvent nested) {
            LoopEvent.SubAgentEvent deepest = nested.deepest();
            fields(nested.innermost(), includeChunk, out, at);
            out.string(at, "agent", deepest.agent());
            out.string(at, "parent_call_id", deepest.parentCallId());
            return;
        }
        switch (event) {
            case StreamEvent e -> fields(e, includeChunk, out, at);
            case LoopEvent e -> fields(e, out, at);
        }
    }

    private static <T> void fields(LoopEvent event, Fields<T> out, T at) {
        out.type(at, event.type());
        // No default branch: a new event type must be given its wire form here.
        switch (event) {
            case LoopEvent.LoopStart e -> out.string(at, "task", e.task());
            case LoopEvent.IterationStart e -> out.number(at, "iteration", e.iteration());
            case LoopEvent.ToolResultEvent e -> {
                out.string(at, "server_name", e.serverName());
                out.string(at, "tool_name", e.toolName());
                out.tree(at, "arguments", e.arguments());    // frozen: shared, not copied
                out.string(at, "result", e.result());
                if (e.callId() != null) {
                    out.string(at, "call_id", e.callId());
                }
            }
            case LoopEvent.ToolResultError e -> {
                if (e.serverName() != null) {
                    out.string(at, "server_name", e.serverName());
                }
                if (e.toolName() != null) {
                    out.string(at, "tool_name", e.toolName());
                }
                out.string(at, "error", e.error());
                if (e.callId() != null) {
                    out.string(at, "call_id", e.callId());
                }
            }
            case LoopEvent.NoToolCall e -> out.number(at, "iteration", e.iteration());
            case LoopEvent.PlanUpdate e -> {
                T steps = out.startArray(at, "steps");
                for (PlanStep step : e.steps()) {
                    T item = out.addObject(steps);
                    out.string(item, "description", step.description());
                    out.string(item, "status", step.status().name().toLowerCase(Locale.ROOT));
                    out.endObject(item);
                }
                out.endArray(steps);
            }
            case LoopEvent.Retry e -> {
                out.number(at, "attempt", e.attempt());
                out.string(at, "reason", e.reason());
                out.number(at, "delay_ms", e.delayMs());
            }
            case LoopEvent.ApprovalRequired e -> {
                out.string(at, "id", e.id());
                out.string(at, "server_name", e.serverName());
                out.string(at, "tool_name", e.toolName());
                out.tree(at, "arguments", e.arguments());    // frozen: shared, not copied
            }
            case LoopEvent.Approval e -> {
                out.string(at, "id", e.id());
                out.string(at, "decision", e.approved() ? "approved" : "denied");
                out.string(at, "reason", e.reason());
            }
            case LoopEvent.LoopEnd e -> {
                out.string(at, "reason", e.reason().wireName());
                out.string(at, "result", e.result());
            }
            case LoopEvent.Handoff e -> {
                out.string(at, "from", e.from());
                out.string(at, "to", e.to());
            }
            case LoopEvent.SubAgentEvent e -> throw new AssertionError("written above");
        }
    }

    private static <T> void fields(StreamEvent event, boolean includeChunk, Fields<T> out, T at) {
        out.type(at, event.type());
        if (includeChunk) {
            out.number(at, "chunk", event.chunk());
        }
        // No default branch: a new event type must be given its wire form here.
        switch (event) {
            case StreamEvent.ThinkingStart e -> {
                out.string(at, "name", e.name());
                attributes(e.attributes(), out, at);
            }
            case StreamEvent.ThinkingContent e -> out.string(at, "content", e.content());
            case StreamEvent.ThinkingEnd e -> out.string(at, "content", e.content());
            case StreamEvent.MessageStart e -> {
            }
            case StreamEvent.MessageContent e -> out.string(at, "content", e.content());
            case StreamEvent.MessageEnd e -> out.string(at, "content", e.content());
            case StreamEvent.ToolCallStart e -> {
                out.string(at, "name", e.name());
                attributes(e.attributes(), out, at);
            }
            case StreamEvent.ToolCallName e -> out.string(at, "tool_name", e.toolName());
            case StreamEvent.ToolCallArgument e -> {
                out.string(at, "name", e.name());
                out.tree(at, "value", e.value());    // frozen: shared, not copied
            }
            case StreamEvent.Section e -> {
                out.string(at, "name", e.name());
                out.string(at, "content", e.content());
            }
            case StreamEvent.ToolCallContent e -> out.string(at, "content", e.content());
            case StreamEvent.ToolCallEnd e -> {
                out.string(at, "content", e.content());
                switch (e.call()) {
                    case ToolCall call -> call(call, out, at);
                    case ToolCallError error -> out.string(at, "error", error.error());
                }
                if (e.callId() != null) {
                    out.string(at, "call_id", e.callId());
                }
            }
            case StreamEvent.Complete e -> {
                out.string(at, "message", e.message());
                T thinking = out.startArray(at, "thinking");
                for (ThinkingBlock block : e.thinking()) {
                    T item = out.addObject(thinking);
                    out.string(item, "name", block.name());
                    out.string(item, "content", block.content());
                    attributes(block.attributes(), out, item);
                    out.endObject(item);
                }
                out.endArray(thinking);
                T toolCalls = out.startArray(at, "tool_calls");
                for (DecodedToolCall decoded : e.toolCalls()) {
                    T item = out.addObject(toolCalls);
                    switch (decoded) {
                        case ToolCall call -> call(call, out, item);
                        case ToolCallError error -> {
                            out.string(item, "content", error.content());
                            out.string(item, "error", error.error());
                        }
                    }
                    out.endObject(item);
                }
                out.endArray(toolCalls);
            }
        }
    }

    private static <T> void call(ToolCall call, Fields<T> out, T at) {
        out.string(at, "server_name", call.serverName());
        out.string(at, "tool_name", call.toolName());
        out.tree(at, "arguments", call.arguments());    // frozen: shared, not copied
    }

    private static <T> void attributes(Map<String, String> attributes, Fields<T> out, T at) {
        T object = out.startObject(at, "attributes");
        attributes.forEach((name, value) -> out.entry(object, name, value));
        out.endObject(object);
    }

    /**
     * Where the wire form goes: {@code T} is the output's handle on the open object or array
     * (a tree's node, or the generator itself), passed down so that neither output keeps state
     * of its own: one instance of each serves every event, and building a tree allocates
     * nothing but its nodes. A null string is JSON's null.
     */
    private interface Fields<T> {
        /** The event's type, its first field: one of the wire form's names, nothing in it to escape. */
        void type(T object, String type);

        /** A field named by the wire form (its names need no escaping). */
        void string(T object, String name, String value);

        /** An entry of a map the event carries: any name. */
        void entry(T object, String name, String value);

        void number(T object, String name, int value);

        void number(T object, String name, long value);

        void tree(T object, String name, JsonNode value);

        T startObject(T object, String name);

        T startArray(T object, String name);

        /** An object as the next element of {@code array}. */
        T addObject(T array);

        void endObject(T object);

        void endArray(T array);
    }

    /** Builds the tree: a node per field, the trees given shared, not copied. */
    private static final class TreeFields implements Fields<ContainerNode<?>> {

        static final TreeFields INSTANCE = new TreeFields();

        @Override
        public void type(ContainerNode<?> object, String type) {
            ((ObjectNode) object).put("type", type);
        }

        @Override
        public void string(ContainerNode<?> object, String name, String value) {
            ((ObjectNode) object).put(name, value);
        }

        @Override
        public void entry(ContainerNode<?> object, String name, String value) {
            ((ObjectNode) object).put(name, value);
        }

        @Override
        public void number(ContainerNode<?> object, String name, int value) {
            ((ObjectNode) object).put(name, value);
        }

        @Override
        public void number(ContainerNode<?> object, String name, long value) {
            ((ObjectNode) object).put(name, value);
        }

        @Override
        public void tree(ContainerNode<?> object, String name, JsonNode value) {
            ((ObjectNode) object).set(name, value);
        }

        @Override
        public ContainerNode<?> startObject(ContainerNode<?> object, String name) {
            return ((ObjectNode) object).putObject(name);
        }

        @Override
        public ContainerNode<?> startArray(ContainerNode<?> object, String name) {
            return ((ObjectNode) object).putArray(name);
        }

        @Override
        public ContainerNode<?> addObject(ContainerNode<?> array) {
            return ((ArrayNode) array).addObject();
        }

        @Override
        public void endObject(ContainerNode<?> object) {
        }

        @Override
        public void endArray(ContainerNode<?> array) {
        }
    }

    /**
     * Appends the fields as compact JSON text, as a generator of the shared mapper writes them:
     * a comma before every member but the first of its object or array (the text's last
     * character says which: only an opening brace or bracket comes before a first member),
     * strings escaped as the generator escapes them, and a tree in a form only the generator
     * knows (a fraction, a big number) written by the shared mapper.
     */
    private static final class TextFields implements Fields<StringBuilder> {

        static final TextFields INSTANCE = new TextFields();
        private static final char[] HEX = "0123456789ABCDEF".toCharArray();

        /** A name of the wire form's, which needs no escaping, after a comma unless it is the object's first. */
        private static StringBuilder name(StringBuilder out, String name) {
            if (out.charAt(out.length() - 1) != '{') {
                out.append(',');
            }
            return out.append('"').append(name).append("\":");
        }

        /** {@code text} quoted, escaped as the generator escapes it; the runs between escapes appended whole. */
        private static void quoted(StringBuilder out, String text) {
            out.append('"');
            int from = 0;
            for (int i = 0; i < text.length(); i++) {
                char c = text.charAt(i);
                if (c >= 0x20 && c != '"' && c != '\\') {
                    continue;
                }
                out.append(text, from, i);
                switch (c) {
                    case '"' -> out.append("\\\"");
                    case '\\' -> out.append("\\\\");
                    case '\b' -> out.append("\\b");
                    case '\t' -> out.append("\\t");
                    case '\n' -> out.append("\\n");
                    case '\f' -> out.append("\\f");
                    case '\r' -> out.append("\\r");
                    default -> out.append("\\u00").append(HEX[c >> 4]).append(HEX[c & 0xF]);
                }
                from = i + 1;
            }
            out.append(text, from, text.length()).append('"');
        }

        /** A tree as the generator writes it: the plain kinds here, any other by the shared mapper. */
        private static void value(StringBuilder out, JsonNode value) {
            if (value.isObject()) {
                out.append('{');
                boolean first = true;
                for (Map.Entry<String, JsonNode> field : value.properties()) {
                    if (!first) {
                        out.append(',');
                    }
                    first = false;
                    quoted(out, field.getKey());
                    out.append(':');
                    value(out, field.getValue());
                }
                out.append('}');
            } else if (value.isArray()) {
                out.append('[');
                for (int i = 0; i < value.size(); i++) {
                    if (i > 0) {
                        out.append(',');
                    }
                    value(out, value.get(i));
                }
                out.append(']');
            } else if (value.isString()) {
                quoted(out, value.asString());
            } else if (value.isInt() || value.isLong()) {
                out.append(value.longValue());
            } else if (value.isBoolean()) {
                out.append(value.booleanValue());
            } else if (value.isNull()) {
                out.append("null");
            } else {
                out.append(dev.bellows.json.internal.Jackson.JSON.writeValueAsString(value));  // a fraction, a big number, binary
            }
        }

        @Override
        public void type(StringBuilder out, String type) {
            name(out, "type").append('"').append(type).append('"');
        }

        @Override
        public void string(StringBuilder out, String name, String value) {
            text(name(out, name), value);
        }

        @Override
        public void entry(StringBuilder out, String name, String value) {
            if (out.charAt(out.length() - 1) != '{') {
                out.append(',');
            }
            quoted(out, name);
            text(out.append(':'), value);
        }

        private static void text(StringBuilder out, String value) {
            if (value == null) {
                out.append("null");
            } else {
                quoted(out, value);
            }
        }

        @Override
        public void number(StringBuilder out, String name, int value) {
            name(out, name).append(value);
        }

        @Override
        public void number(StringBuilder out, String name, long value) {
            name(out, name).append(value);
        }

        @Override
        public void tree(StringBuilder out, String name, JsonNode value) {
            name(out, name);
            if (value == null) {
                out.append("null");
            } else {
                value(out, value);
            }
        }

        @Override
        public StringBuilder startObject(StringBuilder out, String name) {
            return name(out, name).append('{');
        }

        @Override
        public StringBuilder startArray(StringBuilder out, String name) {
            return name(out, name).append('[');
        }

        @Override
        public StringBuilder addObject(StringBuilder out) {
            if (out.charAt(out.length() - 1) != '[') {
                out.append(',');
            }
            return out.append('{');
        }

        @Override
        public void endObject(StringBuilder out) {
            out.append('}');
        }

        @Override
        public void endArray(StringBuilder out) {
            out.append(']');
        }
    }

    /** Writes the fields straight to a generator, as the tree's serialiser would write them. */
    private static final class GeneratorFields implements Fields<JsonGenerator> {

        static final GeneratorFields INSTANCE = new GeneratorFields();

        @Override
        public void type(JsonGenerator generator, String type) {
            generator.writeStringProperty("type", type);
        }

        @Override
        public void entry(JsonGenerator generator, String name, String value) {
            string(generator, name, value);
        }

        @Override
        public void string(JsonGenerator generator, String name, String value) {
            generator.writeName(name);
            if (value == null) {
                generator.writeNull();
            } else {
                generator.writeString(value);
            }
        }

        @Override
        public void number(JsonGenerator generator, String name, int value) {
            generator.writeName(name);
            generator.writeNumber(value);
        }

        @Override
        public void number(JsonGenerator generator, String name, long value) {
            generator.writeName(name);
            generator.writeNumber(value);
        }

        @Override
        public void tree(JsonGenerator generator, String name, JsonNode value) {
            generator.writeName(name);
            if (value == null) {
                generator.writeNull();
            } else {
                generator.writeTree(value);
            }
        }

        @Override
        public JsonGenerator startObject(JsonGenerator generator, String name) {
            generator.writeName(name);
            generator.writeStartObject();
            return generator;
        }

        @Override
        public JsonGenerator startArray(JsonGenerator generator, String name) {
            generator.writeName(name);
            generator.writeStartArray();
            return generator;
        }

        @Override
        public JsonGenerator addObject(JsonGenerator generator) {
            generator.writeStartObject();
            return generator;
        }

        @Override
        public void endObject(JsonGenerator generator) {
            generator.writeEndObject();
        }

        @Override
        public void endArray(JsonGenerator generator) {
            generator.writeEndArray();
        }
    }
}
