package dev.bellows.stream.internal;

import dev.bellows.tool.DecodedToolCall;
import java.util.Map;

/**
 * How one dialect writes the body of a tool call: the early-name sniffer and the decoder of
 * the whole body. The delimiters around the body are the dialect's (see {@link DialectSpec}).
 */
public interface ToolBodyFormat {

    /** A fresh sniffer for one block; {@code attributes} are those of its opening delimiter. */
    NameSniffer newSniffer(Map<String, String> attributes);

    /**
     * The tool name already known from the opening delimiter (harmony writes it in the
     * header), or {@code null}: then it is announced with the block's start.
     */
    default String nameFromAttributes(Map<String, String> attributes) {
        return null;
    }

    /**
     * A fresh reader of the block's arguments as they complete, reporting to {@code sink}; only
     * asked for when the option {@code argument-events} is on. {@link ArgumentReader#NONE} when
     * the body's arguments cannot be read that way.
     */
    default ArgumentReader newArgumentReader(Map<String, String> attributes, ParameterSchemas schemas,
            ArgumentReader.Sink sink) {
        return ArgumentReader.NONE;
    }

    /**
     * Whether a call whose name was not announced while it streamed announces it when its block
     * ends, from the decoded call (the dialects, whose name may only end with the block, as GLM's
     * {@code <tool_call>get_time</tool_call>}). The contract's own forms do not: their name is
     * announced only as the contract says.
     */
    default boolean announcesNameAtEnd() {
        return true;
    }

    /** Decodes the block's trimmed content; never throws. */
    DecodedToolCall decode(String content, Map<String, String> attributes, ParameterSchemas schemas);

    /** How the block should have been closed, for the error of a block the stream left open. */
    String closeHint(String blockName);
}
