package dev.bellows.stream;

/**
 * What a provider says a chunk of text is.
 *
 * <p>{@link #MESSAGE} text is scanned for inline tags ({@code <thinking>}, {@code <tool>}).
 * {@link #THINKING} text is reasoning the provider already separated (OpenAI-compatible
 * {@code reasoning_content}, Anthropic thinking blocks) and is never scanned for tags.
 */
public enum ContentType {
    MESSAGE,
    THINKING;

    /** The wire name used in JSON Lines ({@code "message"}, {@code "thinking"}). */
    public String wireName() {
        return this == MESSAGE ? "message" : "thinking";
    }

    /** The content type for a wire name, or {@code null} when the name is unknown. */
    public static ContentType fromWireName(String name) {
        return switch (name) {
            case "message" -> MESSAGE;
            case "thinking" -> THINKING;
            default -> null;
        };
    }
}
