package dev.bellows.event;

import java.util.Map;
import java.util.Objects;

/**
 * One thinking block of a finished stream.
 *
 * @param name       the tag's name as written ({@code thinking} for provider-typed thinking)
 * @param content    the block's text, trimmed
 * @param attributes the open tag's attributes, in the order written
 */
public record ThinkingBlock(String name, String content, Map<String, String> attributes) {

    public ThinkingBlock {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(content, "content");
        attributes = Attributes.freeze(attributes);
    }
}
