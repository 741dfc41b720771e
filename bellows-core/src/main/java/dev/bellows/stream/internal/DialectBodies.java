package dev.bellows.stream.internal;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;
import dev.bellows.tool.DecodedToolCall;
import dev.bellows.tool.ToolCall;
import dev.bellows.tool.ToolCallError;
import java.util.function.Supplier;

/** Helpers the dialects' body formats share: errors for the model, and the JSON arguments. */
final class DialectBodies {

    private DialectBodies() {
    }

    /** Runs a decoder; a {@link DecodeFailure} (or a bug) becomes an error carrying the content. */
    static DecodedToolCall guard(String content, Supplier<ToolCall> decoder) {
        try {
            return decoder.get();
        } catch (DecodeFailure failure) {
            return new ToolCallError(content, failure.reason());
        } catch (RuntimeException unexpected) {
            DecoderFallback.log("a dialect's tool call decoder", unexpected);
            return new ToolCallError(content, DecoderFallback.TOOL_CALL);
        }
    }

    static ToolCall call(String name, ObjectNode arguments) {
        return new ToolCall(ToolCall.LOCAL_SERVER, name, arguments);
    }

    /** A JSON object of arguments; blank means none. */
    static ObjectNode jsonArguments(String text, String hint) {
        String trimmed = ContentText.trim(text);
        if (trimmed.isEmpty()) {
            return StrictJson.emptyObject();
        }
        JsonNode value;
        try {
            value = StrictJson.read(trimmed);
        } catch (SyntaxError e) {
            throw new DecodeFailure("the arguments are not valid JSON at " + ContentText.position(trimmed, e.offset())
                    + ": " + e.problem() + "; " + hint);
        }
        if (!value.isObject()) {
            throw new DecodeFailure("the arguments must be a JSON object, not " + kind(value) + "; " + hint);
        }
        return (ObjectNode) value;
    }

    static String kind(JsonNode value) {
        if (value.isArray()) {
            return "an array";
        }
        if (value.isString()) {
            return "a string";
        }
        if (value.isNumber()) {
            return "a number";
        }
        if (value.isBoolean()) {
            return "a boolean";
        }
        return value.isNull() ? "null" : "that";
    }

    /** The text of {@code content} between {@code start} and the next {@code end} (or the end of content). */
    static int indexOrEnd(String content, String what, int from) {
        int at = content.indexOf(what, from);
        return at < 0 ? content.length() : at;
    }
}
