package dev.bellows.event;

import dev.bellows.json.internal.FrozenJson;
import tools.jackson.databind.JsonNode;
import dev.bellows.tool.DecodedToolCall;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * An event of the stream contract: what the stream processor learned from the chunks so far.
 *
 * <p>Every event carries {@link #chunk()}, the 0-based index of the input chunk during which
 * it was emitted (events emitted at end of stream carry the number of chunks).
 */
public sealed interface StreamEvent extends AgentEvent {

    /** The 0-based index of the chunk during which this event was emitted. */
    int chunk();

    /** A thinking block began (a tag, or the first provider-typed thinking chunk). */
    record ThinkingStart(int chunk, String name, Map<String, String> attributes) implements StreamEvent {
        public ThinkingStart {
            Objects.requireNonNull(name, "name");
            attributes = Attributes.freeze(attributes);
        }

        @Override
        public String type() {
            return "thinking_start";
        }
    }

    /** More text of the open thinking block; never empty. */
    record ThinkingContent(int chunk, String content) implements StreamEvent {
        public ThinkingContent {
            Objects.requireNonNull(content, "content");
        }

        @Override
        public String type() {
            return "thinking_content";
        }
    }

    /** The thinking block ended; {@code content} is the whole block. */
    record ThinkingEnd(int chunk, String content) implements StreamEvent {
        public ThinkingEnd {
            Objects.requireNonNull(content, "content");
        }

        @Override
        public String type() {
            return "thinking_end";
        }
    }

    /** Message text follows (there are no empty message blocks). */
    record MessageStart(int chunk) implements StreamEvent {
        @Override
        public String type() {
            return "message_start";
        }
    }

    /** More message text; never empty. */
    record MessageContent(int chunk, String content) implements StreamEvent {
        public MessageContent {
            Objects.requireNonNull(content, "content");
        }

        @Override
        public String type() {
            return "message_content";
        }
    }

    /** The message block ended; {@code content} is this block's text. */
    record MessageEnd(int chunk, String content) implements StreamEvent {
        public MessageEnd {
            Objects.requireNonNull(content, "content");
        }

        @Override
        public String type() {
            return "message_end";
        }
    }

    /** A tool block began; {@code name} is the tag's name as written. */
    record ToolCallStart(int chunk, String name, Map<String, String> attributes) implements StreamEvent {
        public ToolCallStart {
            Objects.requireNonNull(name, "name");
            attributes = Attributes.freeze(attributes);
        }

        @Override
        public String type() {
            return "tool_call_start";
        }
    }

    /** The name of the tool being called is known, long before the block closes. */
    record ToolCallName(int chunk, String toolName) implements StreamEvent {
        public ToolCallName {
            Objects.requireNonNull(toolName, "toolName");
        }

        @Override
        public String type() {
            return "tool_call_name";
        }
    }

    /**
     * One argument of the open tool block is complete, long before the block closes (only with
     * the option {@code argument-events}; docs/stream-format.md, "Argument values as they
     * complete"): a {@code write_file} call's {@code path} while its {@code content} still streams.
     * One event per member of the arguments, in the chunk that completes its value, in the order
     * written (a repeated key each time). The block's {@code tool_call_end} still decides the call.
     *
     * @param name  the argument's name (its decoded JSON key, or its element name)
     * @param value its value: the member's JSON value, or the text (typed by the tool's schema for
     *              the dialects that write arguments as text), frozen (read-only; a copy unless
     *              frozen already; {@link JsonNode#deepCopy()} gives one to change)
     */
    record ToolCallArgument(int chunk, String name, JsonNode value) implements StreamEvent {
        public ToolCallArgument {
            Objects.requireNonNull(name, "name");
            value = FrozenJson.freeze(Objects.requireNonNull(value, "value"));
        }

        @Override
        public String type() {
            return "tool_call_argument";
        }
    }

    /** More text of the open tool block; never empty. */
    record ToolCallContent(int chunk, String content) implements StreamEvent {
        public ToolCallContent {
            Objects.requireNonNull(content, "content");
        }

        @Override
        public String type() {
            return "tool_call_content";
        }
    }

    /**
     * The tool block ended.
     *
     * @param content the whole block's content (trimmed)
     * @param call    what the content decoded to: a call, or an error the model can act on
     * @param callId  in an agent run, the id the call runs under ({@code call_1_1}, or the
     *                provider's), as its {@code tool_result} and a sub-agent's
     *                {@code parent_call_id} say it; null in a plain stream
     */
    record ToolCallEnd(int chunk, String content, DecodedToolCall call, String callId) implements StreamEvent {
        public ToolCallEnd {
            Objects.requireNonNull(content, "content");
            Objects.requireNonNull(call, "call");
        }

        /** The end of a block outside an agent run: no call id. */
        public ToolCallEnd(int chunk, String content, DecodedToolCall call) {
            this(chunk, content, call, null);
        }

        /** This event with the id its call runs under. */
        public ToolCallEnd withCallId(String id) {
            return new ToolCallEnd(chunk, content, call, id);
        }

        @Override
        public String type() {
            return "tool_call_end";
        }
    }

    /**
     * A ReAct section of the answer is complete (its heading or open tag, its content and
     * what ends it have all arrived). Not from the stream processor: a ReAct agent reads the
     * message text into sections while it streams and emits this in the chunk that completes
     * the section (the number of chunks when only the end of the stream does).
     *
     * @param name    the section's name, lower-case ({@code thought}, {@code action}, {@code answer})
     * @param content its content, trimmed, never empty
     */
    record Section(int chunk, String name, String content) implements StreamEvent {
        public Section {
            Objects.requireNonNull(name, "name");
            Objects.requireNonNull(content, "content");
        }

        @Override
        public String type() {
            return "section";
        }
    }

    /**
     * The stream ended: the aggregated result.
     *
     * @param message   all message text, concatenated
     * @param thinking  every thinking block, empty ones included, in order
     * @param toolCalls every tool block's decoded call, in order
     */
    record Complete(int chunk, String message, List<ThinkingBlock> thinking, List<DecodedToolCall> toolCalls)
            implements StreamEvent {
        public Complete {
            Objects.requireNonNull(message, "message");
            thinking = List.copyOf(thinking);
            toolCalls = List.copyOf(toolCalls);
        }

        @Override
        public String type() {
            return "complete";
        }
    }
}
