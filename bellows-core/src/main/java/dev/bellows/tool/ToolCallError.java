package dev.bellows.tool;

import java.util.Objects;

/**
 * A tool block whose content could not be decoded into a {@link ToolCall}.
 *
 * @param content the block's content as the model wrote it (trimmed)
 * @param error   why it is not a valid call, written so the model can correct itself
 */
public record ToolCallError(String content, String error) implements DecodedToolCall {

    public ToolCallError {
        Objects.requireNonNull(content, "content");
        Objects.requireNonNull(error, "error");
    }
}
