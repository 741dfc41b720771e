package dev.bellows.stream;

import dev.bellows.tool.DecodedToolCall;
import java.util.Map;

/**
 * How one dialect writes the body of a tool call: the early-name sniffer and the decoder of
 * the whole body. The delimiters around the body are the dialect's (see {@link Dialect}).
 */
interface ToolBodyFormat {

    /** A fresh sniffer for one block; {@code attributes} are those of its opening delimiter. */
    NameSniffer newSniffer(Map<String, String> attributes);

    /**
     * The tool name already known from the opening delimiter (harmony writes it in the
     * header), or {@code null}: then it is announced with the block's start.
     */
    default String nameFromAttributes(Map<String, String> attributes) {
        return null;
    }

    /** Decodes the block's trimmed content; never throws. */
    DecodedToolCall decode(String content, Map<String, String> attributes, ToolSchemas schemas);

    /** How the block should have been closed, for the error of a block the stream left open. */
    String closeHint(String blockName);
}
