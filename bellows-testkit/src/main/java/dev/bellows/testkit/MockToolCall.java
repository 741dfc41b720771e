package dev.bellows.testkit;

// bellows-core's tests compile this file too (core's pom; DEVELOPERS.md, "The loop's tests and
// testkit's fixtures"): use core and the JDK only, and of testkit only the six files core copies.

import java.util.Objects;

/**
 * A native tool call a scripted turn makes (OpenAI-compatible {@code tool_calls}; native
 * {@code ToolCallDelta} frames from {@link ScriptedProvider}). See docs/mock-server.md.
 *
 * @param id        the call's id
 * @param name      the function name
 * @param arguments the arguments' JSON text as streamed, in pieces of the turn's chunk size
 *                  (it may be invalid JSON, to test how an agent copes)
 */
public record MockToolCall(String id, String name, String arguments) {

    public MockToolCall {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(arguments, "arguments");
        if (name.isEmpty()) {
            throw new IllegalArgumentException("a tool call needs a \"name\"");
        }
    }

    /** A call with the id {@code call_N}, N its position in the turn from 1. */
    public static MockToolCall of(String name, String arguments) {
        return new MockToolCall("", name, arguments);
    }
}
