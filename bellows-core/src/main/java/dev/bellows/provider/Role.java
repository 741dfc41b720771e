package dev.bellows.provider;

/** Who wrote a message of the conversation. */
public enum Role {
    SYSTEM,
    USER,
    ASSISTANT,
    /** A tool's result, answering the assistant's native tool call of {@link Message#toolCallId()}. */
    TOOL;

    /** The wire name used by the chat APIs ({@code system}, {@code user}, {@code assistant}, {@code tool}). */
    public String wireName() {
        return name().toLowerCase(java.util.Locale.ROOT);
    }
}
