package dev.bellows.opentelemetry;

import dev.bellows.event.StreamEvent;
import dev.bellows.event.ThinkingBlock;
import dev.bellows.provider.NativeToolCall;
import dev.bellows.stream.StreamChunk;
import dev.bellows.stream.StreamOptions;
import dev.bellows.stream.StreamProcessor;
import dev.bellows.tool.DecodedToolCall;
import dev.bellows.tool.ToolCall;
import dev.bellows.tool.ToolCallError;
import java.util.ArrayList;
import java.util.List;

/**
 * An answer as the loop read it with its stream options: the thinking written in tags (or a
 * dialect's markers) or sent as reasoning, the text outside them, and the tool calls written in
 * the text, for the content attributes' {@code reasoning}, {@code text} and {@code tool_call}
 * parts. A call written in the text has no id yet (the loop gives it one after the answer).
 *
 * @param reasoning one entry per thinking block
 * @param text      the text outside thinking and tool blocks, with any malformed call as written
 * @param toolCalls the well-formed calls written in the text, with an empty id
 */
record ReadAnswer(List<String> reasoning, String text, List<NativeToolCall> toolCalls) {

    /** What a stream processor made of a whole answer. */
    static ReadAnswer of(StreamEvent.Complete read) {
        StringBuilder text = new StringBuilder(read.message());
        List<NativeToolCall> calls = new ArrayList<>();
        for (DecodedToolCall decoded : read.toolCalls()) {
            switch (decoded) {
                case ToolCall call -> calls.add(new NativeToolCall("", call.toolName(), call.arguments().toString()));
                // a malformed call is what the model wrote: kept as text
                case ToolCallError error -> text.append(error.content());
            }
        }
        return new ReadAnswer(read.thinking().stream().map(ThinkingBlock::content).toList(), text.toString(),
                List.copyOf(calls));
    }

    /** An assistant message's text (a tag-mode answer as the history keeps it), read as the loop read it. */
    static ReadAnswer of(String text, StreamOptions options) {
        StreamProcessor reader = new StreamProcessor(options, event -> { });
        reader.accept(new StreamChunk.Text(text));
        return of(reader.finish());
    }
}
