package dev.bellows.opentelemetry;

import dev.bellows.provider.ChatStream;
import dev.bellows.provider.ForwardingChatStream;
import dev.bellows.provider.NativeToolCall;
import dev.bellows.provider.ProviderException;
import dev.bellows.provider.TokenUsage;
import dev.bellows.stream.StreamChunk;
import dev.bellows.stream.StreamOptions;
import dev.bellows.stream.StreamProcessor;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.trace.Span;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The answer's stream of one {@code chat} attempt, passed through unchanged: its end (the last
 * chunk read, a failure, or the reader letting go) ends the span, with what the stream learnt.
 * Read on one thread, as every {@link ChatStream}; {@link #cancel()} from any.
 */
final class TracedChatStream extends ForwardingChatStream {

    /** What an attempt that did not fail ended with. */
    record Outcome(String finishReason, TokenUsage usage, String responseModel, String responseId,
                   long firstChunkNanos, Output output) {
    }

    private final ChatSpans spans;
    private final Span span;
    private final RunState run;
    private final Attributes shared;
    private final long started;
    private final Output output;
    private final AtomicBoolean ended = new AtomicBoolean();
    private long firstChunk = -1;
    /** The provider's ResponseInfo frame, when it sent one (gen_ai.response.id and .model). */
    private StreamChunk.ResponseInfo responseInfo;

    TracedChatStream(ChatStream stream, ChatSpans spans, Span span, RunState run, Attributes shared, long started,
                     Optional<StreamOptions> streamOptions) {
        super(stream);
        this.spans = spans;
        this.span = span;
        this.run = run;
        this.shared = shared;
        this.started = started;
        this.output = spans.capturing() ? new Output(streamOptions) : null;
    }

    @Override
    public StreamChunk next() throws ProviderException {
        StreamChunk chunk;
        try {
            chunk = super.next();
        } catch (ProviderException e) {
            if (ended.compareAndSet(false, true)) {
                spans.failed(span, run, shared, started, ChatSpans.errorType(e), e.getMessage());
            }
            throw e;
        } catch (RuntimeException | Error e) {
            if (ended.compareAndSet(false, true)) {
                spans.failed(span, run, shared, started, e.getClass().getName(), e.getMessage());
            }
            throw e;
        }
        if (chunk == null) {
            end();
            return null;
        }
        if (firstChunk < 0) {
            firstChunk = System.nanoTime();
        }
        if (chunk instanceof StreamChunk.ResponseInfo info) {
            responseInfo = info;
        }
        if (output != null) {
            output.accept(chunk);
        }
        return chunk;
    }

    private void end() {
        if (ended.compareAndSet(false, true)) {
            spans.succeeded(span, shared, started, new Outcome(finishReason().orElse(null),
                    usage().orElse(null), responseInfo == null ? null : responseInfo.model(),
                    responseInfo == null ? null : responseInfo.id(), firstChunk, output));
        }
    }

    /** A reader that lets go before the end (it had what it needed) ends the span as it stands. */
    @Override
    public void close() {
        try {
            super.close();
        } finally {
            end();
        }
    }

    /**
     * The answer as it streamed, kept only while content is captured. With the loop's stream
     * options its text is read as the loop reads it ({@link StreamProcessor}): thinking written
     * in tags ({@code <think>}, a dialect's markers) is recorded as reasoning and tool calls
     * written in the text as tool calls, not as text; without them the text is taken as it is.
     */
    static final class Output {
        private final StreamOptions options;
        /** Reads the answer as the loop does; null without options, or once it failed (the raw text is recorded then). */
        private StreamProcessor reader;
        private final StringBuilder text = new StringBuilder();
        private final StringBuilder reasoning = new StringBuilder();
        private final List<String[]> calls = new ArrayList<>(); // native ones: id, name, arguments so far

        Output(Optional<StreamOptions> options) {
            this.options = options.orElse(null);
            this.reader = this.options == null ? null : new StreamProcessor(this.options, event -> { });
        }

        void accept(StreamChunk chunk) {
            if (reader != null && !(chunk instanceof StreamChunk.Restart)) {
                try {
                    reader.accept(chunk);
                } catch (RuntimeException e) {
                    reader = null; // recording the content never fails the call: its raw text is recorded
                }
            }
            switch (chunk) {
                case StreamChunk.Text t -> text.append(t.text());
                case StreamChunk.Reasoning r -> reasoning.append(r.text());
                case StreamChunk.ToolCallDelta delta -> {
                    while (calls.size() <= delta.index()) {
                        calls.add(new String[] {null, "", ""});
                    }
                    String[] call = calls.get(delta.index());
                    if (delta.id() != null) {
                        call[0] = delta.id();
                    }
                    if (delta.name() != null) {
                        call[1] = delta.name();
                    }
                    call[2] = call[2] + (delta.arguments() == null ? "" : delta.arguments());
                }
                case StreamChunk.Restart restart -> {
                    // an attempt's stream has none (each attempt is a span of its own); were one
                    // passed through, what came before it is not the answer
                    text.setLength(0);
                    reasoning.setLength(0);
                    calls.clear();
                    reader = options == null ? null : new StreamProcessor(options, event -> { });
                }
                case StreamChunk.ThinkingSignature signature -> {
                    // a signature is not content
                }
                case StreamChunk.ResponseInfo info -> {
                    // the response's id and model are attributes, not content
                }
                case StreamChunk.Usage usage -> {
                    // token counts are attributes, not content
                }
            }
        }

        String json(Content content, String finishReason) {
            List<NativeToolCall> toolCalls = new ArrayList<>(calls.size());
            for (String[] call : calls) {
                toolCalls.add(new NativeToolCall(call[0] == null ? "" : call[0], call[1], call[2]));
            }
            String finish = finish(finishReason);
            ReadAnswer read = read();
            if (read == null) {
                return content.outputMessage(List.of(reasoning.toString()), text.toString(), toolCalls, finish);
            }
            List<NativeToolCall> all = new ArrayList<>(read.toolCalls());
            all.addAll(toolCalls);
            return content.outputMessage(read.reasoning(), read.text(), all, finish);
        }

        /** The answer as the loop read it; null without the loop's options, or when reading it failed. */
        private ReadAnswer read() {
            try {
                return reader == null ? null : ReadAnswer.of(reader.finish());
            } catch (RuntimeException e) {
                return null;
            }
        }

        /** The provider's finish reason in the conventions' words (their schema's enum). */
        static String finish(String reason) {
            if (reason == null) {
                return "stop";
            }
            return switch (reason) {
                case "stop", "end_turn", "stop_sequence" -> "stop";
                case "length", "max_tokens" -> "length";
                case "tool_calls", "tool_use", "function_call" -> "tool_call";
                case "content_filter", "refusal" -> "content_filter";
                default -> reason;
            };
        }
    }
}
