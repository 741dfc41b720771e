package dev.bellows.event;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.bellows.tool.DecodedToolCall;
import dev.bellows.tool.ToolCall;
import dev.bellows.tool.ToolCallError;
import java.util.Map;

/**
 * Stream events in their wire form, as JSON objects with the field names of the stream
 * contract: {@code type} first, then {@code chunk} (unless left out), then the event's own
 * fields ({@code name}, {@code attributes}, {@code content}, {@code tool_name},
 * {@code server_name}, {@code arguments}, {@code error}, {@code message}, {@code thinking},
 * {@code tool_calls}).
 *
 * <pre>{@code
 * ObjectMapper mapper = new ObjectMapper();
 * String line = mapper.writeValueAsString(EventJson.toJson(event));
 * // {"type":"tool_call_name","chunk":3,"tool_name":"read_file"}
 * }</pre>
 *
 * <p>The returned objects are new and owned by the caller; tool arguments are copied, so
 * changing a returned object never changes the event.
 */
public final class EventJson {

    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

    private EventJson() {
    }

    /** The event as a JSON object, with {@code chunk}. */
    public static ObjectNode toJson(StreamEvent event) {
        return toJson(event, true);
    }

    /**
     * The event as a JSON object.
     *
     * @param includeChunk whether to write {@code chunk} (second, after {@code type});
     *                     {@code false} for outputs where chunk indices mean nothing, such as
     *                     the agent loop's event log
     */
    public static ObjectNode toJson(StreamEvent event, boolean includeChunk) {
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
            case StreamEvent.ToolCallContent e -> json.put("content", e.content());
            case StreamEvent.ToolCallEnd e -> {
                json.put("content", e.content());
                switch (e.call()) {
                    case ToolCall call -> putCall(json, call);
                    case ToolCallError error -> json.put("error", error.error());
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
        json.set("arguments", call.arguments().deepCopy());
    }

    private static ObjectNode attributes(Map<String, String> attributes) {
        ObjectNode json = NODES.objectNode();
        attributes.forEach(json::put);
        return json;
    }
}
