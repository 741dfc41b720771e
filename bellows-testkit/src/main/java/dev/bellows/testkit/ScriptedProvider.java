package dev.bellows.testkit;

// bellows-core's tests compile this file too (core's pom; DEVELOPERS.md, "The loop's tests and
// testkit's fixtures"): use core and the JDK only, and of testkit only the six files core copies.

import tools.jackson.databind.JsonNode;
import dev.bellows.provider.ChatRequest;
import dev.bellows.provider.ChatStream;
import dev.bellows.provider.Provider;
import dev.bellows.provider.ProviderException;
import dev.bellows.provider.ProviderException.Kind;
import dev.bellows.provider.TokenUsage;
import dev.bellows.stream.StreamChunk;
import java.time.Duration;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A {@link Provider} that replays a {@link MockScript} in-process, without HTTP: each
 * {@link #stream(ChatRequest)} takes the next turn. The stream starts with a
 * {@link StreamChunk.ResponseInfo} (id {@code chatcmpl-mock-N} for the N-th turn, the
 * request's model), as the mock server's answer through the OpenAI-compatible provider does;
 * then reasoning comes as {@link StreamChunk.Reasoning} frames, content as
 * {@link StreamChunk.Text} frames and tool calls as {@link StreamChunk.ToolCallDelta}s, in
 * pieces of the turn's {@code chunk_size} code points, {@code delay_ms} apart; then finish
 * reason {@code stop} and an estimated usage, also as a last {@link StreamChunk.Usage} frame
 * (docs/mock-server.md). A {@code status} turn is thrown from
 * {@code stream} as the {@link ProviderException} a real provider would throw for that
 * answer; a {@code cut_after} turn breaks off with {@link Kind#STREAM_BROKEN}.
 *
 * <pre>{@code
 * ScriptedProvider provider = new ScriptedProvider(MockScript.builder()
 *         .turn(MockTurn.status(429).header("Retry-After", "1"))
 *         .turn(MockTurn.content("Hello").chunkSize(2))
 *         .build());
 * }</pre>
 */
public final class ScriptedProvider implements Provider {

    private final MockScript script;
    private final AtomicInteger nextTurn = new AtomicInteger();
    private final List<ChatRequest> requests = new CopyOnWriteArrayList<>();

    public ScriptedProvider(MockScript script) {
        this.script = Objects.requireNonNull(script, "script");
    }

    @Override
    public String name() {
        return "scripted";
    }

    /** Every request received so far, in order, including those that failed. */
    public List<ChatRequest> requests() {
        return List.copyOf(requests);
    }

    /** How many turns requests have taken (at most the script's size). */
    public int turnsTaken() {
        return Math.min(nextTurn.get(), script.turns().size());
    }

    @Override
    public ChatStream stream(ChatRequest request) throws ProviderException {
        Objects.requireNonNull(request, "request");
        requests.add(request);
        int index = nextTurn.getAndIncrement();
        if (index >= script.turns().size()) {
            throw new ProviderException(Kind.SERVER_ERROR, "HTTP 500: mock script has no more turns ("
                    + script.turns().size() + " were scripted)", 500, null, null);
        }
        MockTurn turn = script.turns().get(index);
        if (turn.isStatus()) {
            throw failure(turn);
        }
        return new ScriptedStream(turn, Pieces.promptTokens(request.messages()),
                new StreamChunk.ResponseInfo("chatcmpl-mock-" + (index + 1), request.model()));
    }

    /** The exception a provider throws for a scripted status answer. */
    static ProviderException failure(MockTurn turn) {
        int status = turn.status();
        String message = "HTTP " + status + ": " + turn.errorMessage().orElseGet(() -> bodyText(turn.effectiveBody()));
        Kind kind;
        if (status == 429) {
            kind = Kind.RATE_LIMITED;
        } else if (status >= 500 || status == 408 || status == 409) {
            kind = Kind.SERVER_ERROR;
        } else if (status >= 400) {
            kind = Kind.CLIENT_ERROR;
        } else {
            // 1xx, 2xx, 3xx without a stream: a real provider could not read an answer from it.
            kind = Kind.PROTOCOL;
            message = "HTTP " + status + " is not a chat answer";
        }
        return new ProviderException(kind, message, status, retryAfter(turn.headers()), null);
    }

    private static String bodyText(JsonNode body) {
        String text = body.isString() ? body.asString() : body.toString();
        return text.length() > 200 ? text.substring(0, 200) + "..." : text;
    }

    /** {@code Retry-After} in seconds or as an HTTP date; null when absent or unreadable. */
    static Duration retryAfter(Map<String, String> headers) {
        for (Map.Entry<String, String> header : headers.entrySet()) {
            if (!header.getKey().equalsIgnoreCase("Retry-After")) {
                continue;
            }
            String value = header.getValue().strip();
            try {
                double seconds = Double.parseDouble(value);
                return seconds >= 0 ? Duration.ofMillis(Math.round(seconds * 1000)) : null;
            } catch (NumberFormatException e) {
                try {
                    Duration wait = Duration.between(ZonedDateTime.now(),
                            ZonedDateTime.parse(value, DateTimeFormatter.RFC_1123_DATE_TIME));
                    return wait.isNegative() ? Duration.ZERO : wait;
                } catch (DateTimeParseException e2) {
                    return null;
                }
            }
        }
        return null;
    }

    /** One turn's chunks, pulled by the consumer. */
    private static final class ScriptedStream implements ChatStream {
        private final MockTurn turn;
        private final long promptTokens;
        private final Deque<StreamChunk> pending = new ArrayDeque<>();
        private final CountDownLatch cancelled = new CountDownLatch(1);
        private volatile boolean closed;
        private boolean firstPart = true;
        private boolean done;
        private volatile String finishReason;
        private volatile TokenUsage usage;

        ScriptedStream(MockTurn turn, long promptTokens, StreamChunk.ResponseInfo response) {
            this.turn = turn;
            this.promptTokens = promptTokens;
            pending.add(response);
            for (Pieces.Part part : Pieces.parts(turn)) {
                pending.add(switch (part.kind()) {
                    case REASONING -> StreamChunk.thinking(part.text());
                    case CONTENT -> StreamChunk.message(part.text());
                    case TOOL_CALL -> new StreamChunk.ToolCallDelta(part.index(), part.id(), part.name(), part.text());
                });
            }
        }

        @Override
        public synchronized StreamChunk next() throws ProviderException {
            if (closed) {
                throw new IllegalStateException("the stream is closed");
            }
            checkCancelled();
            if (pending.isEmpty()) {
                if (!done) {
                    done = true;
                    if (turn.cutAfter() != null) {
                        throw new ProviderException(Kind.STREAM_BROKEN, "the answer broke off after "
                                + turn.cutAfter() + " characters (scripted cut_after); discard what arrived of it");
                    }
                    finishReason = turn.toolCalls().isEmpty() ? "stop" : "tool_calls";
                    TokenUsage used = new TokenUsage(promptTokens, Pieces.completionTokens(turn));
                    usage = used;
                    return new StreamChunk.Usage(used.inputTokens(), used.outputTokens());
                } else if (turn.cutAfter() != null) {
                    throw new ProviderException(Kind.STREAM_BROKEN, "the answer broke off (scripted cut_after)");
                }
                return null;
            }
            StreamChunk next = pending.peek();
            if (!(next instanceof StreamChunk.ResponseInfo)) {
                if (!firstPart && turn.delayMs() > 0) {
                    try {
                        cancelled.await(turn.delayMs(), TimeUnit.MILLISECONDS);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        throw new ProviderException(Kind.CANCELLED, "interrupted while waiting for the model", e);
                    }
                    checkCancelled();
                }
                firstPart = false;
            }
            return pending.poll();
        }

        private void checkCancelled() throws ProviderException {
            if (cancelled.getCount() == 0) {
                throw new ProviderException(Kind.CANCELLED, "the model call was cancelled");
            }
        }

        @Override
        public Optional<String> finishReason() {
            return Optional.ofNullable(finishReason);
        }

        @Override
        public Optional<TokenUsage> usage() {
            return Optional.ofNullable(usage);
        }

        @Override
        public void cancel() {
            cancelled.countDown();
        }

        @Override
        public void close() {
            closed = true;
            cancelled.countDown();
        }
    }
}
