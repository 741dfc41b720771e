package dev.bellows.stream;

/**
 * What a provider says a chunk of text is.
 *
 * <p>{@link #MESSAGE} text is scanned for inline tags ({@code <thinking>}, {@code <tool>}).
 * {@link #THINKING} text is reasoning the provider already separated (OpenAI-compatible
 * {@code reasoning_content}, Anthropic thinking blocks) and is never scanned for tags.
 *
 * <p>{@link #TOOL_CALL} and {@link #SIGNATURE} carry no text for the reader: they are the
 * provider's native tool calls and thinking signatures (the JSON of a
 * {@code dev.bellows.provider.ToolCallDelta} or a {@code dev.bellows.provider.ThinkingSignature}),
 * sent only to requests that offer tools natively or turn extended thinking on. The stream
 * processor counts them as chunks and reads no text from them; a tool call ends the message
 * block and provider thinking, as a tool tag would.
 */
public enum ContentType {
    MESSAGE,
    THINKING,
    TOOL_CALL,
    SIGNATURE;

    /** The wire name used in JSON Lines ({@code "message"}, {@code "thinking"}, {@code "tool_call"}, {@code "signature"}). */
    public String wireName() {
        return switch (this) {
            case MESSAGE -> "message";
            case THINKING -> "thinking";
            case TOOL_CALL -> "tool_call";
            case SIGNATURE -> "signature";
        };
    }

    /** The content type for a wire name, or {@code null} when the name is unknown. */
    public static ContentType fromWireName(String name) {
        return switch (name) {
            case "message" -> MESSAGE;
            case "thinking" -> THINKING;
            case "tool_call" -> TOOL_CALL;
            case "signature" -> SIGNATURE;
            default -> null;
        };
    }
}
