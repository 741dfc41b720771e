package dev.bellows.provider;

import java.util.List;
import java.util.Objects;

/**
 * One message of a conversation sent to a model.
 *
 * <p>With the tag protocol every message is text. With native tool calling an assistant
 * message also carries the {@link #toolCalls()} the model made (sent back with it on later
 * turns), each answered by a {@link Role#TOOL} message naming the call's id, and, from models
 * with extended thinking, its signed {@link #thinking()} blocks, which must go back unchanged.
 *
 * @param role       who wrote it
 * @param content    its text (an assistant's earlier output goes back verbatim, tags included)
 * @param toolCalls  an assistant's native tool calls, in order; empty otherwise
 * @param toolCallId a {@link Role#TOOL} message's call id; null otherwise
 * @param thinking   an assistant's signed thinking blocks, in order, to send back as they came;
 *                   empty otherwise
 */
public record Message(Role role, String content, List<NativeToolCall> toolCalls, String toolCallId,
                      List<SignedThinking> thinking) {

    public Message {
        Objects.requireNonNull(role, "role");
        Objects.requireNonNull(content, "content");
        toolCalls = List.copyOf(toolCalls);
        thinking = List.copyOf(thinking);
        if (!toolCalls.isEmpty() && role != Role.ASSISTANT) {
            throw new IllegalArgumentException("only an assistant message has tool calls, not a " + role.wireName() + " message");
        }
        if ((toolCallId != null) != (role == Role.TOOL)) {
            throw new IllegalArgumentException(role == Role.TOOL
                    ? "a tool message needs the id of the call it answers"
                    : "only a tool message has a tool call id");
        }
    }

    /** A text message. */
    public Message(Role role, String content) {
        this(role, content, List.of(), null, List.of());
    }

    public static Message system(String content) {
        return new Message(Role.SYSTEM, content);
    }

    public static Message user(String content) {
        return new Message(Role.USER, content);
    }

    public static Message assistant(String content) {
        return new Message(Role.ASSISTANT, content);
    }

    /** An assistant's answer with its native tool calls and signed thinking. */
    public static Message assistant(String content, List<NativeToolCall> toolCalls, List<SignedThinking> thinking) {
        return new Message(Role.ASSISTANT, content, toolCalls, null, thinking);
    }

    /** A tool's result for the native call {@code toolCallId}. */
    public static Message toolResult(String toolCallId, String content) {
        return new Message(Role.TOOL, content, List.of(), Objects.requireNonNull(toolCallId, "toolCallId"), List.of());
    }
}
