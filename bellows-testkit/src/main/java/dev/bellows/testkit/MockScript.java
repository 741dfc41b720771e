package dev.bellows.testkit;

// bellows-core's tests compile this file too (core's pom; DEVELOPERS.md, "The loop's tests and
// testkit's fixtures"): use core and the JDK only, and of testkit only the six files core copies.

import dev.bellows.json.internal.Jackson;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.node.JsonNodeType;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * A script of model turns, as {@link MockLlmServer} and {@link ScriptedProvider} replay them:
 * each request takes the next turn. The JSON format is documented in docs/mock-server.md:
 *
 * <pre>{@code
 * {"turns": [
 *   {"content": "<thinking>plan</thinking>\nHello", "chunk_size": 4},
 *   {"reasoning": "deep thoughts", "content": "Done.", "delay_ms": 5},
 *   {"status": 429, "headers": {"Retry-After": "1"}, "body": {"error": {"message": "slow down"}}},
 *   {"content": "This breaks off somewhere in the middle", "cut_after": 12}
 * ]}
 * }</pre>
 *
 * <p>Or in Java: {@code MockScript.builder().turn(MockTurn.content("Hello").chunkSize(2)).build()}.
 *
 * @param turns the turns, in the order requests take them
 */
public record MockScript(List<MockTurn> turns) {

    private static final ObjectMapper MAPPER = Jackson.JSON;
    private static final Set<String> TURN_FIELDS =
            Set.of("content", "reasoning", "chunk_size", "delay_ms", "status", "headers", "body", "cut_after",
                    "tool_calls");
    private static final Set<String> CALL_FIELDS = Set.of("id", "name", "arguments");

    public MockScript {
        turns = List.copyOf(Objects.requireNonNull(turns, "turns"));
    }

    /** A script of these turns. */
    public static MockScript of(MockTurn... turns) {
        return new MockScript(List.of(turns));
    }

    public static Builder builder() {
        return new Builder();
    }

    /**
     * Reads a script file (UTF-8).
     *
     * @throws IOException when the file cannot be read
     * @throws IllegalArgumentException when it is not a valid script; the message names the
     *                                  turn (from 0) and field
     */
    public static MockScript read(Path file) throws IOException {
        return parse(Files.readString(file, StandardCharsets.UTF_8));
    }

    /**
     * Parses a script.
     *
     * @throws IllegalArgumentException when it is not a valid script; the message names the
     *                                  turn (from 0) and field, e.g. {@code turns[2].chunk_size:
     *                                  must be at least 1, got 0}
     */
    public static MockScript parse(String json) {
        JsonNode root;
        try {
            root = MAPPER.readTree(json);
        } catch (JacksonException e) {
            throw new IllegalArgumentException("not valid JSON: " + dev.bellows.stream.internal.JsonSyntax.problem(json)
                    .orElse("it cannot be read"));
        }
        if (root == null || root.isMissingNode() || !root.isObject()) {
            throw new IllegalArgumentException("a script is a JSON object {\"turns\": [...]}");
        }
        for (Iterator<String> names = root.propertyNames().iterator(); names.hasNext(); ) {
            String name = names.next();
            if (!name.equals("turns")) {
                throw new IllegalArgumentException("unknown field \"" + name + "\"; a script is {\"turns\": [...]}");
            }
        }
        JsonNode turns = root.get("turns");
        if (turns == null || !turns.isArray()) {
            throw new IllegalArgumentException("\"turns\" must be an array of turns, got " + describe(turns));
        }
        List<MockTurn> parsed = new ArrayList<>();
        for (int i = 0; i < turns.size(); i++) {
            parsed.add(parseTurn(i, turns.get(i)));
        }
        return new MockScript(parsed);
    }

    private static MockTurn parseTurn(int index, JsonNode turn) {
        String where = "turns[" + index + "]";
        if (!turn.isObject()) {
            throw new IllegalArgumentException(where + ": a turn is a JSON object, got " + describe(turn));
        }
        for (Iterator<String> names = turn.propertyNames().iterator(); names.hasNext(); ) {
            String name = names.next();
            if (!TURN_FIELDS.contains(name)) {
                throw new IllegalArgumentException(where + ": unknown field \"" + name + "\"; a turn has "
                        + "content, reasoning, tool_calls, chunk_size, delay_ms, cut_after, or status, headers, body");
            }
        }
        String content = text(where, turn, "content");
        String reasoning = text(where, turn, "reasoning");
        Long chunkSize = integer(where, turn, "chunk_size");
        Long delayMs = integer(where, turn, "delay_ms");
        Long status = integer(where, turn, "status");
        Long cutAfter = integer(where, turn, "cut_after");
        List<MockToolCall> toolCalls = toolCalls(where, turn.get("tool_calls"));
        Map<String, String> headers = new LinkedHashMap<>();
        JsonNode headersNode = turn.get("headers");
        if (headersNode != null && !headersNode.isNull()) {
            if (!headersNode.isObject()) {
                throw new IllegalArgumentException(where + ".headers: must be an object of header names to"
                        + " string values, got " + describe(headersNode));
            }
            for (Map.Entry<String, JsonNode> header : headersNode.properties()) {
                JsonNode value = header.getValue();
                if (!value.isString() && !value.isNumber()) {
                    throw new IllegalArgumentException(where + ".headers." + header.getKey()
                            + ": must be a string, got " + describe(value));
                }
                if (header.getKey().isBlank() || !header.getKey().chars().allMatch(MockScript::isTokenChar)) {
                    throw new IllegalArgumentException(where + ".headers: \"" + header.getKey()
                            + "\" is not a valid header name");
                }
                headers.put(header.getKey(), value.asString());
            }
        }
        JsonNode body = turn.get("body");
        if (body != null && body.isNull()) {
            body = null;
        }
        int size = chunkSize == null ? MockTurn.DEFAULT_CHUNK_SIZE : clamp(where, "chunk_size", chunkSize);
        long delay = delayMs == null ? 0 : delayMs;
        Integer code = status == null ? null : clamp(where, "status", status);
        Integer cut = cutAfter == null ? null : clamp(where, "cut_after", cutAfter);
        try {
            return new MockTurn(content, reasoning, size, delay, code, headers, body, cut, toolCalls);
        } catch (IllegalArgumentException e) {
            String message = e.getMessage();
            // "\"chunk_size\" must be ..." -> turns[2].chunk_size: must be ...
            if (message.startsWith("\"")) {
                int end = message.indexOf('"', 1);
                String field = message.substring(1, end);
                if (TURN_FIELDS.contains(field) && message.startsWith(" must", end + 1)) {
                    throw new IllegalArgumentException(where + "." + field + ":" + message.substring(end + 1));
                }
            }
            throw new IllegalArgumentException(where + ": " + message);
        }
    }

    /** {@code [{"id": "...", "name": "...", "arguments": "{...}" or {...}}, ...]}; the id is optional. */
    private static List<MockToolCall> toolCalls(String where, JsonNode node) {
        if (node == null || node.isNull()) {
            return List.of();
        }
        if (!node.isArray()) {
            throw new IllegalArgumentException(where + ".tool_calls: must be an array of calls, got " + describe(node));
        }
        List<MockToolCall> calls = new ArrayList<>();
        for (int i = 0; i < node.size(); i++) {
            String at = where + ".tool_calls[" + i + "]";
            JsonNode call = node.get(i);
            if (!call.isObject()) {
                throw new IllegalArgumentException(at + ": a call is an object with name and arguments, got " + describe(call));
            }
            for (Iterator<String> names = call.propertyNames().iterator(); names.hasNext(); ) {
                String name = names.next();
                if (!CALL_FIELDS.contains(name)) {
                    throw new IllegalArgumentException(at + ": unknown field \"" + name + "\"; a call has id, name, arguments");
                }
            }
            String id = text(at, call, "id");
            String name = text(at, call, "name");
            if (name == null || name.isEmpty()) {
                throw new IllegalArgumentException(at + ".name: a call needs the function's name");
            }
            JsonNode arguments = call.get("arguments");
            String text;
            if (arguments == null || arguments.isNull()) {
                text = "{}";
            } else if (arguments.isString()) {
                text = arguments.asString();
            } else if (arguments.isObject()) {
                text = arguments.toString();
            } else {
                throw new IllegalArgumentException(at + ".arguments: must be a string (the JSON text as streamed) or"
                        + " an object, got " + describe(arguments));
            }
            calls.add(new MockToolCall(id == null ? "" : id, name, text));
        }
        return calls;
    }

    private static boolean isTokenChar(int c) {
        return c > 32 && c < 127 && "()<>@,;:\\\"/[]?={}".indexOf(c) < 0;
    }

    private static String text(String where, JsonNode turn, String field) {
        JsonNode value = turn.get(field);
        if (value == null || value.isNull()) {
            return null;
        }
        if (!value.isString()) {
            throw new IllegalArgumentException(where + "." + field + ": must be a string, got " + describe(value));
        }
        return value.asString();
    }

    private static Long integer(String where, JsonNode turn, String field) {
        JsonNode value = turn.get(field);
        if (value == null || value.isNull()) {
            return null;
        }
        if (!value.isIntegralNumber() || !value.canConvertToLong()) {
            throw new IllegalArgumentException(where + "." + field + ": must be a whole number, got " + describe(value));
        }
        return value.asLong();
    }

    /** Out-of-int-range values become the nearest int, which the turn's checks then reject with the given value. */
    private static int clamp(String where, String field, long value) {
        if (value < Integer.MIN_VALUE || value > Integer.MAX_VALUE) {
            throw new IllegalArgumentException(where + "." + field + ": " + value + " is out of range");
        }
        return (int) value;
    }

    private static String describe(JsonNode value) {
        if (value == null || value.isMissingNode()) {
            return "nothing";
        }
        JsonNodeType type = value.getNodeType();
        String text = value.toString();
        if (text.length() > 40) {
            text = text.substring(0, 37) + "...";
        }
        return switch (type) {
            case STRING -> "a string " + text;
            case NUMBER -> "the number " + text;
            case BOOLEAN -> text;
            case NULL -> "null";
            case ARRAY -> "an array " + text;
            case OBJECT -> "an object " + text;
            default -> text;
        };
    }

    /** Collects turns for a {@link MockScript}. */
    public static final class Builder {
        private final List<MockTurn> turns = new ArrayList<>();

        private Builder() {
        }

        public Builder turn(MockTurn turn) {
            turns.add(Objects.requireNonNull(turn, "turn"));
            return this;
        }

        /** Adds an answer with this text in pieces of the default chunk size. */
        public Builder content(String content) {
            return turn(MockTurn.content(content));
        }

        public MockScript build() {
            return new MockScript(turns);
        }
    }
}
