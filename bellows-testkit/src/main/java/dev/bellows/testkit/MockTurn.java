package dev.bellows.testkit;

// bellows-core's tests compile this file too (core's pom; DEVELOPERS.md, "The loop's tests and
// testkit's fixtures"): use core and the JDK only, and of testkit only the six files core copies.

import dev.bellows.json.internal.FrozenJson;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * One scripted model turn: what the mock answers to one chat request. Either an answer
 * ({@code reasoning} and/or {@code content}, streamed in pieces of {@link #chunkSize()}
 * characters, optionally cut off after {@code cutAfter} characters of content) or an HTTP
 * error ({@code status} with {@code headers} and a JSON {@code body}). See docs/mock-server.md.
 *
 * <pre>{@code
 * MockTurn.content("Hello").chunkSize(2).delayMs(5)
 * MockTurn.reasoning("deep thoughts").withContent("Done.")
 * MockTurn.status(429).header("Retry-After", "1").errorMessage("slow down")
 * MockTurn.content("This breaks off").cutAfter(4)
 * }</pre>
 *
 * @param content   the answer's text, or null
 * @param reasoning the provider-typed reasoning sent before the text, or null
 * @param chunkSize characters (Unicode code points) per streamed piece, at least 1
 * @param delayMs   milliseconds to wait between two pieces, at least 0
 * @param status    an HTTP status (100-599) to answer with instead of an answer, or null
 * @param headers   response headers of a status turn (never null)
 * @param body      the JSON body of a status turn, or null for a default error body; frozen
 *                  (read-only; a copy unless frozen already)
 * @param cutAfter  close the connection after this many characters of content (then of the
 *                  tool calls' arguments), or null
 * @param toolCalls native tool calls, streamed after the content; empty for none
 */
public record MockTurn(String content, String reasoning, int chunkSize, long delayMs, Integer status,
        Map<String, String> headers, JsonNode body, Integer cutAfter, List<MockToolCall> toolCalls) {

    /** Characters per piece when a turn does not say. */
    public static final int DEFAULT_CHUNK_SIZE = 4;

    /**
     * @throws IllegalArgumentException naming the script field that is wrong
     */
    public MockTurn {
        body = body == null ? null : FrozenJson.freeze(body);
        headers = Collections.unmodifiableMap(new LinkedHashMap<>(Objects.requireNonNull(headers, "headers")));
        List<MockToolCall> numbered = new java.util.ArrayList<>();
        for (MockToolCall call : Objects.requireNonNull(toolCalls, "toolCalls")) {
            numbered.add(call.id().isEmpty()
                    ? new MockToolCall("call_" + (numbered.size() + 1), call.name(), call.arguments()) : call);
        }
        toolCalls = List.copyOf(numbered);
        if (chunkSize < 1) {
            throw new IllegalArgumentException("\"chunk_size\" must be at least 1, got " + chunkSize);
        }
        if (delayMs < 0) {
            throw new IllegalArgumentException("\"delay_ms\" must be 0 or more, got " + delayMs);
        }
        if (cutAfter != null && cutAfter < 0) {
            throw new IllegalArgumentException("\"cut_after\" must be 0 or more, got " + cutAfter);
        }
        if (status != null) {
            if (status < 100 || status > 599) {
                throw new IllegalArgumentException("\"status\" must be an HTTP status between 100 and 599, got " + status);
            }
            if (content != null || reasoning != null || cutAfter != null || !toolCalls.isEmpty()) {
                throw new IllegalArgumentException("a turn with \"status\" answers with \"headers\" and \"body\" only;"
                        + " remove \"content\", \"reasoning\", \"tool_calls\" and \"cut_after\" (or \"status\")");
            }
        } else {
            if (content == null && reasoning == null && toolCalls.isEmpty()) {
                throw new IllegalArgumentException("a turn needs \"content\", \"reasoning\" or \"status\" (or \"tool_calls\")");
            }
            if (!headers.isEmpty() || body != null) {
                throw new IllegalArgumentException("\"headers\" and \"body\" belong to a turn with \"status\"");
            }
            if (cutAfter != null && content == null && toolCalls.isEmpty()) {
                throw new IllegalArgumentException("\"cut_after\" counts characters of \"content\" and tool call"
                        + " arguments, which this turn lacks");
            }
        }
    }

    /** A turn without native tool calls (the form before they could be scripted). */
    public MockTurn(String content, String reasoning, int chunkSize, long delayMs, Integer status,
                    Map<String, String> headers, JsonNode body, Integer cutAfter) {
        this(content, reasoning, chunkSize, delayMs, status, headers, body, cutAfter, List.of());
    }

    /** An answer with this text. */
    public static MockTurn content(String content) {
        return new MockTurn(Objects.requireNonNull(content, "content"), null, DEFAULT_CHUNK_SIZE, 0, null,
                Map.of(), null, null, List.of());
    }

    /** An answer of reasoning only; add text with {@link #withContent(String)}. */
    public static MockTurn reasoning(String reasoning) {
        return new MockTurn(null, Objects.requireNonNull(reasoning, "reasoning"), DEFAULT_CHUNK_SIZE, 0, null,
                Map.of(), null, null, List.of());
    }

    /** An HTTP error (or any status) instead of an answer; the body defaults to an OpenAI-style error. */
    public static MockTurn status(int status) {
        return new MockTurn(null, null, DEFAULT_CHUNK_SIZE, 0, status, Map.of(), null, null, List.of());
    }

    /** An answer of native tool calls only; add text with {@link #withContent(String)}. */
    public static MockTurn toolCalls(MockToolCall... calls) {
        return new MockTurn(null, null, DEFAULT_CHUNK_SIZE, 0, null, Map.of(), null, null, List.of(calls));
    }

    /** This answer with these native tool calls (after its content). */
    public MockTurn withToolCalls(MockToolCall... calls) {
        return new MockTurn(content, reasoning, chunkSize, delayMs, status, headers, body, cutAfter, List.of(calls));
    }

    public MockTurn withContent(String content) {
        return new MockTurn(content, reasoning, chunkSize, delayMs, status, headers, body, cutAfter, toolCalls);
    }

    public MockTurn withReasoning(String reasoning) {
        return new MockTurn(content, reasoning, chunkSize, delayMs, status, headers, body, cutAfter, toolCalls);
    }

    public MockTurn chunkSize(int chunkSize) {
        return new MockTurn(content, reasoning, chunkSize, delayMs, status, headers, body, cutAfter, toolCalls);
    }

    public MockTurn delayMs(long delayMs) {
        return new MockTurn(content, reasoning, chunkSize, delayMs, status, headers, body, cutAfter, toolCalls);
    }

    public MockTurn cutAfter(int cutAfter) {
        return new MockTurn(content, reasoning, chunkSize, delayMs, status, headers, body, cutAfter, toolCalls);
    }

    /** Adds a response header of a status turn. */
    public MockTurn header(String name, String value) {
        Map<String, String> more = new LinkedHashMap<>(headers);
        more.put(Objects.requireNonNull(name, "name"), Objects.requireNonNull(value, "value"));
        return new MockTurn(content, reasoning, chunkSize, delayMs, status, more, body, cutAfter, toolCalls);
    }

    /** The JSON body of a status turn. */
    public MockTurn body(JsonNode body) {
        return new MockTurn(content, reasoning, chunkSize, delayMs, status, headers, body, cutAfter, toolCalls);
    }

    /** The body {@code {"error": {"message": MESSAGE, "type": ...}}} of a status turn. */
    public MockTurn errorMessage(String message) {
        return body(errorBody(message, status == null ? 500 : status));
    }

    /** The status, if this turn answers with one instead of a model answer. */
    public OptionalInt statusCode() {
        return status == null ? OptionalInt.empty() : OptionalInt.of(status);
    }

    /** Whether this turn answers with an HTTP status rather than a model answer. */
    public boolean isStatus() {
        return status != null;
    }

    /** The body sent for a status turn: the scripted one, or a default OpenAI-style error. */
    public JsonNode effectiveBody() {
        if (status == null) {
            throw new IllegalStateException("not a status turn");
        }
        return body != null ? body : errorBody("scripted status " + status, status);
    }

    /** The provider's own message of a status turn: {@code body.error.message}, if the body has one. */
    public Optional<String> errorMessage() {
        if (status == null) {
            return Optional.empty();
        }
        JsonNode message = effectiveBody().path("error").path("message");
        return message.isString() ? Optional.of(message.asString()) : Optional.empty();
    }

    static ObjectNode errorBody(String message, int status) {
        ObjectNode error = JsonNodeFactory.instance.objectNode();
        error.put("message", message);
        error.put("type", status >= 500 ? "server_error" : "invalid_request_error");
        error.putNull("param");
        error.putNull("code");
        ObjectNode body = JsonNodeFactory.instance.objectNode();
        body.set("error", error);
        return body;
    }
}
