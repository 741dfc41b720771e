package dev.bellows.stream.internal;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;
import dev.bellows.tool.ToolCall;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Decodes the JSON object form of a tool call:
 * {@code {"tool_name": "...", "server_name": "...", "arguments": {...}}}, with the name
 * and arguments aliases of the stream contract. Keys the contract does not name (such as
 * an {@code id} or {@code type} some models add) are ignored.
 */
final class JsonToolCallDecoder {

    static final String HINT = "write one JSON object like {\"tool_name\": \"...\", \"arguments\": {...}}";

    private static final List<String> NAME_KEYS = List.of("tool_name", "name", "tool");
    private static final List<String> ARGUMENTS_KEYS = List.of("arguments", "args", "parameters");

    private JsonToolCallDecoder() {
    }

    /** Decodes {@code content[start, end)}, which starts with '{'. */
    static ToolCall decode(String content, int start, int end) {
        return fromObject(readCall(content, start, end), "JSON", HINT);
    }

    /**
     * Decodes a call already read as an object, by the same rules: the ReAct agent's actions,
     * written in JSON or YAML, share them with the {@code <tool>} blocks.
     *
     * @param language the notation the model wrote, named in messages ("JSON", "YAML")
     * @param hint     how to write a call in that notation, appended to messages
     * @throws DecodeFailure with a message for the model
     */
    static ToolCall fromObject(ObjectNode call, String language, String hint) {
        String nameKey = onlyKey(call, NAME_KEYS, "tool name",
                "add \"tool_name\": \"...\" naming the tool to call", language, hint);
        JsonNode name = call.get(nameKey);
        if (!name.isString() || name.stringValue(null).isEmpty()) {
            throw new DecodeFailure("\"" + nameKey + "\" must be a non-empty string naming the tool, not "
                    + describe(name) + "; " + hint);
        }

        String serverName = ToolCall.LOCAL_SERVER;
        JsonNode server = call.get("server_name");
        if (server != null) {
            // The contract allows null only for the arguments; a present server_name must
            // be a real name, so a null here is reported rather than guessed as local.
            if (!server.isString() || server.stringValue(null).isEmpty()) {
                throw new DecodeFailure("\"server_name\" must be a non-empty string, not " + describe(server)
                        + "; leave it out for local tools");
            }
            serverName = server.stringValue(null);
        }

        String argumentsKey = onlyKey(call, ARGUMENTS_KEYS, null, null, language, hint);
        ObjectNode arguments = argumentsKey == null
                ? StrictJson.emptyObject()
                : arguments(argumentsKey, call.get(argumentsKey));
        return new ToolCall(serverName, name.stringValue(null), arguments);
    }

    private static ObjectNode readCall(String content, int start, int end) {
        JsonNode value;
        try {
            value = StrictJson.read(content.substring(start, end));
        } catch (SyntaxError e) {
            throw new DecodeFailure("tool call JSON is invalid at "
                    + ContentText.position(content, start + e.offset()) + ": " + e.problem() + "; " + HINT);
        }
        if (!(value instanceof ObjectNode object)) {
            // Cannot happen for text starting with '{', kept so the cast is never blind.
            throw new DecodeFailure("tool call JSON must be an object; " + HINT);
        }
        return object;
    }

    /**
     * The one key of {@code aliases} present in the call. Several present is an error;
     * none is an error when {@code missing} names what is missing, else {@code null}.
     */
    private static String onlyKey(ObjectNode call, List<String> aliases, String missing, String addHint,
                                  String language, String hint) {
        List<String> present = new ArrayList<>(2);
        // In the order the model wrote them, so the message reads like its own text.
        for (Map.Entry<String, JsonNode> field : call.properties()) {
            if (aliases.contains(field.getKey())) {
                present.add(field.getKey());
            }
        }
        if (present.size() > 1) {
            throw new DecodeFailure("tool call has " + (present.size() == 2 ? "both " : "")
                    + listed(present) + ": use exactly one");
        }
        if (present.isEmpty()) {
            if (missing != null) {
                throw new DecodeFailure("tool call " + language + " has no " + missing + ": " + addHint + "; " + hint);
            }
            return null;
        }
        return present.get(0);
    }

    private static ObjectNode arguments(String key, JsonNode value) {
        if (value instanceof ObjectNode object) {
            return object;
        }
        if (value.isNull()) {
            return StrictJson.emptyObject();
        }
        if (value.isString()) {
            return argumentsString(key, value.stringValue(null));
        }
        throw new DecodeFailure("\"" + key + "\" must be a JSON object, not " + describe(value)
                + "; write \"" + key + "\": {\"name\": value, ...}");
    }

    /** OpenAI-style arguments: a string holding the JSON object. */
    private static ObjectNode argumentsString(String key, String text) {
        if (ContentText.isBlank(text)) {
            return StrictJson.emptyObject();
        }
        JsonNode inner;
        try {
            inner = StrictJson.read(text);
        } catch (SyntaxError e) {
            throw new DecodeFailure("\"" + key + "\" is a string that does not hold valid JSON (at "
                    + ContentText.position(text, e.offset()) + " of the string: " + e.problem()
                    + "); write \"" + key + "\" as a JSON object: \"" + key + "\": {\"name\": value, ...}");
        }
        if (inner instanceof ObjectNode object) {
            return object;
        }
        throw new DecodeFailure("\"" + key + "\" is a string holding " + describe(inner)
                + ", not a JSON object; write \"" + key + "\": {\"name\": value, ...}");
    }

    /** "a string", "an array", ... for messages; the empty string gets its own words. */
    static String describe(JsonNode value) {
        return switch (value.getNodeType()) {
            case STRING -> value.stringValue(null).isEmpty() ? "an empty string" : "a string";
            case NUMBER -> "a number";
            case BOOLEAN -> "a boolean";
            case NULL -> "null";
            case ARRAY -> "an array";
            case OBJECT, POJO -> "an object";
            default -> "this value";
        };
    }

    /** {@code "a" and "b"} or {@code "a", "b" and "c"}. */
    private static String listed(List<String> keys) {
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < keys.size(); i++) {
            if (i > 0) {
                out.append(i == keys.size() - 1 ? " and " : ", ");
            }
            out.append('"').append(keys.get(i)).append('"');
        }
        return out.toString();
    }
}
