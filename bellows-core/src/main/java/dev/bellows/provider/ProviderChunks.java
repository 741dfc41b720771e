package dev.bellows.provider;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.io.JsonStringEncoder;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.bellows.stream.ContentType;
import dev.bellows.stream.StreamChunk;

/**
 * The chunks that carry no text for the stream processor: a piece of a native tool call and a
 * thinking block's signature. Providers write them, the agent's native reader reads them.
 */
public final class ProviderChunks {

    private static final ObjectMapper JSON = new ObjectMapper();

    private ProviderChunks() {
    }

    /**
     * One piece of a native tool call, as the APIs stream them.
     *
     * @param index     which call of the answer (from 0): several calls come one after another
     * @param id        the call's id, on the piece that starts it (null on later pieces)
     * @param name      the function name, on the piece that starts it (null on later pieces)
     * @param arguments more of the arguments' JSON text (may be empty)
     */
    public record ToolCallDelta(int index, String id, String name, String arguments) {
        public ToolCallDelta {
            if (index < 0) {
                throw new IllegalArgumentException("a tool call index is at least 0, got " + index);
            }
            arguments = arguments == null ? "" : arguments;
        }
    }

    /**
     * The chunk for one piece of a native tool call: a small JSON object ({@code index}, then
     * {@code id} and {@code name} when set, then {@code arguments}), written without a tree:
     * a stream makes one per piece of every call.
     */
    public static StreamChunk toolCall(ToolCallDelta delta) {
        StringBuilder json = new StringBuilder(48 + delta.arguments().length()
                + (delta.id() == null ? 0 : delta.id().length()) + (delta.name() == null ? 0 : delta.name().length()));
        json.append("{\"index\":").append(delta.index());
        if (delta.id() != null) {
            quoted(json.append(",\"id\":"), delta.id());
        }
        if (delta.name() != null) {
            quoted(json.append(",\"name\":"), delta.name());
        }
        quoted(json.append(",\"arguments\":"), delta.arguments());
        return new StreamChunk(ContentType.TOOL_CALL, json.append('}').toString());
    }

    /** Jackson's own escaping, so the text is what the tree wrote before. */
    private static void quoted(StringBuilder json, String text) {
        json.append('"');
        JsonStringEncoder.getInstance().quoteAsString(text, json);
        json.append('"');
    }

    /** The signature of the thinking block just streamed, or a redacted block's data. */
    public static StreamChunk signature(SignedThinking block) {
        ObjectNode node = JSON.createObjectNode();
        if (block.isRedacted()) {
            node.put("redacted_data", block.redactedData());
        } else {
            node.put("signature", block.signature());
        }
        return new StreamChunk(ContentType.SIGNATURE, node.toString());
    }

    /** @throws IllegalArgumentException when the chunk is not a {@link ContentType#TOOL_CALL} chunk this class wrote */
    public static ToolCallDelta toolCallDelta(StreamChunk chunk) {
        if (chunk.type() == ContentType.TOOL_CALL) {
            ToolCallDelta written = FlatToolCall.read(chunk.text());
            if (written != null) {
                return written;
            }
        }
        JsonNode node = read(chunk, ContentType.TOOL_CALL);
        return new ToolCallDelta(node.path("index").asInt(), text(node, "id"), text(node, "name"), text(node, "arguments"));
    }

    /**
     * The signature for {@code thinking} (the block's streamed text) from a
     * {@link ContentType#SIGNATURE} chunk.
     */
    public static SignedThinking signedThinking(StreamChunk chunk, String thinking) {
        JsonNode node = read(chunk, ContentType.SIGNATURE);
        String redacted = text(node, "redacted_data");
        return redacted != null ? SignedThinking.redacted(redacted) : SignedThinking.signed(thinking, text(node, "signature"));
    }

    private static JsonNode read(StreamChunk chunk, ContentType type) {
        if (chunk.type() != type) {
            throw new IllegalArgumentException("not a " + type.wireName() + " chunk: " + chunk.type().wireName());
        }
        try {
            return JSON.readTree(chunk.text());
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("a " + type.wireName() + " chunk holds invalid JSON: " + e.getOriginalMessage());
        }
    }

    private static String text(JsonNode node, String field) {
        JsonNode value = node.get(field);
        return value == null || value.isNull() ? null : value.asText();
    }
}
