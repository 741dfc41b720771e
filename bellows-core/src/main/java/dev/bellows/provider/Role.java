package dev.bellows.provider;

/** Who wrote a message of the conversation. */
public enum Role {
    SYSTEM,
    USER,
    ASSISTANT;

    /** The wire name used by the chat APIs ({@code system}, {@code user}, {@code assistant}). */
    public String wireName() {
        return name().toLowerCase(java.util.Locale.ROOT);
    }
}
