package dev.bellows.tool;

import java.util.List;
import java.util.Objects;

/**
 * What a tool returns: its raw, typed output (formatting it for the model is the
 * ToolChain's job, not the tool's) and any media it produced, such as images.
 *
 * @param output the raw output: a record, a collection, a string, or {@code null} for none
 * @param media  images and other binary parts, in order
 * @param <O>    the output's type
 */
public record ToolResult<O>(O output, List<Media> media) {

    public ToolResult {
        media = List.copyOf(Objects.requireNonNull(media, "media"));
    }

    /** A result with output only. */
    public static <O> ToolResult<O> of(O output) {
        return new ToolResult<>(output, List.of());
    }

    /** A result with output and media. */
    public static <O> ToolResult<O> of(O output, Media... media) {
        return new ToolResult<>(output, List.of(media));
    }
}
