package dev.bellows.stream;

import java.util.Objects;

/**
 * One piece of a model's streamed answer, as a provider delivers it.
 *
 * @param type what the provider says the text is
 * @param text the text; may be empty (an empty chunk changes nothing but still counts
 *             as a chunk index)
 */
public record StreamChunk(ContentType type, String text) {

    public StreamChunk {
        Objects.requireNonNull(type, "type");
        Objects.requireNonNull(text, "text");
    }

    /** A chunk of model text, scanned for inline tags. */
    public static StreamChunk message(String text) {
        return new StreamChunk(ContentType.MESSAGE, text);
    }

    /** A chunk of provider-typed reasoning, never scanned for tags. */
    public static StreamChunk thinking(String text) {
        return new StreamChunk(ContentType.THINKING, text);
    }
}
