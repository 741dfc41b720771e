package dev.bellows.provider;

import dev.bellows.tool.Media;
import java.util.List;
import java.util.Objects;

/**
 * One message of a conversation sent to a model.
 *
 * <p>Every message has text. With native tool calling an assistant message also carries the
 * {@link #toolCalls()} the model made (sent back with it on later turns), each answered by a
 * {@link Role#TOOL} message naming the call's id. From models with extended thinking an
 * assistant message carries its signed {@link #thinking()} blocks, which must go back
 * unchanged, in every tool mode. A user or tool message may carry {@link #media()} (the images
 * a tool returned, say), which a provider sends in its API's own form; a medium the provider or
 * the model cannot take is not sent, and the text the provider sends says so instead.
 *
 * @param role       who wrote it
 * @param content    its text (an assistant's earlier output goes back verbatim, tags included)
 * @param toolCalls  an assistant's native tool calls, in order; empty otherwise
 * @param toolCallId a {@link Role#TOOL} message's call id; null otherwise
 * @param thinking   an assistant's signed thinking blocks, in order, to send back as they came;
 *                   empty otherwise
 * @param media      a user's or a tool message's media, in order, sent after its text; empty
 *                   otherwise
 */
public record Message(Role role, String content, List<NativeToolCall> toolCalls, String toolCallId,
                      List<SignedThinking> thinking, List<Media> media) {

    public Message {
        Objects.requireNonNull(role, "role");
        Objects.requireNonNull(content, "content");
        toolCalls = List.copyOf(toolCalls);
        thinking = List.copyOf(thinking);
        media = List.copyOf(media);
        if (!media.isEmpty() && role != Role.USER && role != Role.TOOL) {
            throw new IllegalArgumentException("only a user or a tool message has media, not a " + role.wireName()
                    + " message");
        }
        if (!toolCalls.isEmpty() && role != Role.ASSISTANT) {
            throw new IllegalArgumentException("only an assistant message has tool calls, not a " + role.wireName() + " message");
        }
        if ((toolCallId != null) != (role == Role.TOOL)) {
            throw new IllegalArgumentException(role == Role.TOOL
                    ? "a tool message needs the id of the call it answers"
                    : "only a tool message has a tool call id");
        }
    }

    /** A message without media. */
    public Message(Role role, String content, List<NativeToolCall> toolCalls, String toolCallId,
                   List<SignedThinking> thinking) {
        this(role, content, toolCalls, toolCallId, thinking, List.of());
    }

    /** A text message. */
    public Message(Role role, String content) {
        this(role, content, List.of(), null, List.of(), List.of());
    }

    public static Message system(String content) {
        return new Message(Role.SYSTEM, content);
    }

    public static Message user(String content) {
        return new Message(Role.USER, content);
    }

    /** A user message with media after its text (a tool's images, in the tag protocol's observation). */
    public static Message user(String content, List<Media> media) {
        return new Message(Role.USER, content, List.of(), null, List.of(), media);
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
        return toolResult(toolCallId, content, List.of());
    }

    /** A tool's result for the native call {@code toolCallId}, with the media it returned. */
    public static Message toolResult(String toolCallId, String content, List<Media> media) {
        return new Message(Role.TOOL, content, List.of(), Objects.requireNonNull(toolCallId, "toolCallId"), List.of(),
                media);
    }
}
