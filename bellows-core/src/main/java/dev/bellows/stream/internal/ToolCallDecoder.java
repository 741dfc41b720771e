package dev.bellows.stream.internal;

import dev.bellows.tool.DecodedToolCall;
import dev.bellows.tool.ToolCall;
import dev.bellows.tool.ToolCallError;

/**
 * Decodes the content of a {@code <tool>} block into a {@link ToolCall}, or into a
 * {@link ToolCallError} whose message tells the model what to fix. It follows the stream
 * contract's "Tool-call content" section: an optional Markdown fence, then either a
 * strict JSON object or a sequence of XML elements.
 *
 * <pre>{@code
 * switch (ToolCallDecoder.decode("{\"tool_name\": \"search\", \"arguments\": {\"q\": \"bellows\"}}")) {
 *     case ToolCall call -> run(call);
 *     case ToolCallError error -> tellModel(error.error());
 * }
 * }</pre>
 *
 * <p>It never throws and its cost is linear in the length of the content. It holds no
 * state and is safe to call from any thread.
 */
public final class ToolCallDecoder {

    private static final String HINT = "write a JSON object like {\"tool_name\": \"...\", \"arguments\": {...}} "
            + "or XML elements like <tool_name>...</tool_name><arguments>...</arguments>";

    private ToolCallDecoder() {
    }

    /**
     * Decodes the trimmed content of a tool block.
     *
     * @param content the block's content (trimmed by the stream processor; surrounding
     *                whitespace is dropped here too); {@code null} is treated as empty
     * @return the call, or an error carrying {@code content} exactly as passed in
     */
    public static DecodedToolCall decode(String content) {
        String raw = content == null ? "" : content;
        try {
            return decodeOrFail(raw);
        } catch (DecodeFailure failure) {
            return new ToolCallError(raw, failure.reason());
        } catch (RuntimeException unexpected) {
            // A bug here must not take the stream down with it: the block is reported as
            // an error like any other, without Java details the model cannot use.
            DecoderFallback.log("the tool call decoder", unexpected);
            return new ToolCallError(raw, DecoderFallback.TOOL_CALL + "; " + HINT);
        }
    }

    private static ToolCall decodeOrFail(String content) {
        int start = ContentText.skipWhitespace(content, 0, content.length());
        int end = ContentText.trimEnd(content, start, content.length());
        if (start == end) {
            throw new DecodeFailure("tool call is empty; " + HINT);
        }
        int[] body = MarkdownFence.strip(content, start, end);
        if (body[0] == body[1]) {
            throw new DecodeFailure("tool call holds only a Markdown fence line and nothing else; " + HINT);
        }
        return switch (content.charAt(body[0])) {
            case '{' -> JsonToolCallDecoder.decode(content, body[0], body[1]);
            case '<' -> XmlToolCallDecoder.decode(content, body[0], body[1]);
            case '[' -> throw new DecodeFailure("tool call must be one JSON object, not an array; " + HINT);
            default -> throw new DecodeFailure("tool call must be a JSON object or XML elements, but it starts with "
                    + ContentText.describeChar(content, body[0]) + "; " + HINT);
        };
    }
}
