package dev.bellows.event;

import tools.jackson.databind.JsonNode;
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
        if (event instanceof LoopEvent.SubAgentEvent nested) {
            LoopEvent.SubAgentEvent deepest = nested.deepest();
            return object(nested.innermost(), includeChunk).put("agent", deepest.agent())
                    .put("parent_call_id", deepest.parentCallId());
        }
        return switch (event) {
            case StreamEvent e -> object(e, includeChunk);
            case LoopEvent e -> object(e);
        };
    }

    /** A loop event as a JSON object, with the fields of the CLI's jsonl table. */
    public static JsonNode toJson(LoopEvent event) {
        return object(event);
    }

    private static ObjectNode object(LoopEvent event) {
        if (event instanceof LoopEvent.SubAgentEvent nested) {
            return object(nested, false);
        }
        ObjectNode json = NODES.objectNode();
        json.put("type", event.type());
        // No default branch: a new event type must be given its wire form here.
        switch (event) {
            case LoopEvent.LoopStart e -> json.put("task", e.task());
            case LoopEvent.IterationStart e -> json.put("iteration", e.iteration());
            case LoopEvent.ToolResultEvent e -> {
                json.put("server_name", e.serverName());
                json.put("tool_name", e.toolName());
                json.set("arguments", e.arguments());    // frozen: shared, not copied
                json.put("result", e.result());
                if (e.callId() != null) {
                    json.put("call_id", e.callId());
                }
            }
            case LoopEvent.ToolResultError e -> {
                if (e.serverName() != null) {
                    json.put("server_name", e.serverName());
                }
                if (e.toolName() != null) {
                    json.put("tool_name", e.toolName());
                }
                json.put("error", e.error());
                if (e.callId() != null) {
                    json.put("call_id", e.callId());
                }
            }
            case LoopEvent.NoToolCall e -> json.put("iteration", e.iteration());
            case LoopEvent.PlanUpdate e -> {
                ArrayNode steps = json.putArray("steps");
                for (PlanStep step : e.steps()) {
                    ObjectNode item = steps.addObject();
                    item.put("description", step.description());
                    item.put("status", step.status().name().toLowerCase(Locale.ROOT));
                }
            }
            case LoopEvent.Retry e -> {
                json.put("attempt", e.attempt());
                json.put("reason", e.reason());
                json.put("delay_ms", e.delayMs());
            }
            case LoopEvent.ApprovalRequired e -> {
                json.put("id", e.id());
                json.put("server_name", e.serverName());
                json.put("tool_name", e.toolName());
                json.set("arguments", e.arguments());    // frozen: shared, not copied
            }
            case LoopEvent.Approval e -> {
                json.put("id", e.id());
                json.put("decision", e.approved() ? "approved" : "denied");
                json.put("reason", e.reason());
            }
            case LoopEvent.LoopEnd e -> {
                json.put("reason", e.reason().wireName());
                json.put("result", e.result());
            }
            case LoopEvent.Handoff e -> json.put("from", e.from()).put("to", e.to());
            case LoopEvent.SubAgentEvent e -> throw new AssertionError("written above");
        }
        return json;
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

    private static ObjectNode object(StreamEvent event, boolean includeChunk) {
        ObjectNode json = NODES.objectNode();
        json.put("type", event.type());
        if (includeChunk) {
            json.put("chunk", event.chunk());
        }
        // No default branch: a new event type must be given its wire form here.
        switch (event) {
            case StreamEvent.ThinkingStart e -> {
                json.put("name", e.name());
                json.set("attributes", attributes(e.attributes()));
            }
            case StreamEvent.ThinkingContent e -> json.put("content", e.content());
            case StreamEvent.ThinkingEnd e -> json.put("content", e.content());
            case StreamEvent.MessageStart e -> {
            }
            case StreamEvent.MessageContent e -> json.put("content", e.content());
            case StreamEvent.MessageEnd e -> json.put("content", e.content());
            case StreamEvent.ToolCallStart e -> {
                json.put("name", e.name());
                json.set("attributes", attributes(e.attributes()));
            }
            case StreamEvent.ToolCallName e -> json.put("tool_name", e.toolName());
            case StreamEvent.ToolCallArgument e -> {
                json.put("name", e.name());
                json.set("value", e.value());    // frozen: shared, not copied
            }
            case StreamEvent.Section e -> json.put("name", e.name()).put("content", e.content());
            case StreamEvent.ToolCallContent e -> json.put("content", e.content());
            case StreamEvent.ToolCallEnd e -> {
                json.put("content", e.content());
                switch (e.call()) {
                    case ToolCall call -> putCall(json, call);
                    case ToolCallError error -> json.put("error", error.error());
                }
                if (e.callId() != null) {
                    json.put("call_id", e.callId());
                }
            }
            case StreamEvent.Complete e -> {
                json.put("message", e.message());
                ArrayNode thinking = json.putArray("thinking");
                for (ThinkingBlock block : e.thinking()) {
                    ObjectNode item = thinking.addObject();
                    item.put("name", block.name());
                    item.put("content", block.content());
                    item.set("attributes", attributes(block.attributes()));
                }
                ArrayNode toolCalls = json.putArray("tool_calls");
                for (DecodedToolCall decoded : e.toolCalls()) {
                    ObjectNode item = toolCalls.addObject();
                    switch (decoded) {
                        case ToolCall call -> putCall(item, call);
                        case ToolCallError error -> {
                            item.put("content", error.content());
                            item.put("error", error.error());
                        }
                    }
                }
            }
        }
        return json;
    }

    private static void putCall(ObjectNode json, ToolCall call) {
        json.put("server_name", call.serverName());
        json.put("tool_name", call.toolName());
        json.set("arguments", call.arguments());    // frozen: shared, not copied
    }

    private static ObjectNode attributes(Map<String, String> attributes) {
        ObjectNode json = NODES.objectNode();
        attributes.forEach(json::put);
        return json;
    }
}
