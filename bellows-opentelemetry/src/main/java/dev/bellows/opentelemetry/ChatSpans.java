package dev.bellows.opentelemetry;

import dev.bellows.agent.ModelInterceptor;
import dev.bellows.provider.ChatRequest;
import dev.bellows.provider.ChatStream;
import dev.bellows.provider.ProviderException;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.common.AttributesBuilder;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanBuilder;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.Scope;
import io.opentelemetry.context.propagation.TextMapPropagator;
import io.opentelemetry.context.propagation.TextMapSetter;
import java.net.URI;
import java.util.List;
import java.util.Locale;

/**
 * One {@code chat {model}} span (kind CLIENT) per attempt of a model request, a child of the
 * run's {@code invoke_agent} span: a retried request shows as one span per attempt, the
 * failed ones with {@code error.type}. The request carries the span's W3C {@code traceparent};
 * the answer's stream is wrapped ({@link TracedChatStream}) to end the span when it ends, with
 * the finish reason, the usage and the response's model and id.
 */
final class ChatSpans implements ModelInterceptor {

    private static final TextMapSetter<ChatRequest.Builder> HEADERS = (builder, name, value) -> {
        if (builder != null) {
            builder.header(name, value);
        }
    };

    private final Tracer tracer;
    private final Instruments instruments;
    private final TextMapPropagator propagator;
    private final Content content;
    private final boolean capture;

    ChatSpans(Tracer tracer, Instruments instruments, TextMapPropagator propagator, Content content, boolean capture) {
        this.tracer = tracer;
        this.instruments = instruments;
        this.propagator = propagator;
        this.content = content;
        this.capture = capture;
    }

    @Override
    public ChatStream intercept(Chain chain) throws ProviderException {
        ChatRequest request = chain.request();
        RunState run = RunState.of(chain.run());
        Context parent = run != null ? run.context : Context.current();
        String provider = chain.providerName();
        URI endpoint = chain.providerEndpoint().orElse(null);

        // What the span and the metrics share, known before the call (the conventions want them
        // at the span's start, for sampling).
        AttributesBuilder common = Attributes.builder()
                .put(GenAi.OPERATION_NAME, GenAi.CHAT)
                .put(GenAi.PROVIDER_NAME, provider)
                .put(GenAi.REQUEST_MODEL, request.model());
        if (endpoint != null && endpoint.getHost() != null) {
            common.put(GenAi.SERVER_ADDRESS, endpoint.getHost()).put(GenAi.SERVER_PORT, (long) port(endpoint));
        }
        Attributes shared = common.build();

        if (chain.attempt() == 1) {
            instruments.iterations.add(1, Attributes.of(GenAi.AGENT_NAME, chain.run().agentName(),
                    GenAi.PROVIDER_NAME, provider, GenAi.REQUEST_MODEL, request.model()));
        } else {
            String failure = run != null && run.lastFailure != null ? run.lastFailure : GenAi.OTHER_ERROR;
            instruments.retries.add(1, Attributes.of(GenAi.PROVIDER_NAME, provider,
                    GenAi.REQUEST_MODEL, request.model(), GenAi.ERROR_TYPE, failure));
        }
        if (run != null && !run.modelNamed) {
            run.modelNamed = true;
            run.span.setAttribute(GenAi.PROVIDER_NAME, provider);
            run.span.setAttribute(GenAi.REQUEST_MODEL, request.model());
        }

        SpanBuilder builder = tracer.spanBuilder(GenAi.CHAT + " " + request.model())
                .setParent(parent)
                .setSpanKind(SpanKind.CLIENT)
                .setAllAttributes(shared)
                .setAttribute(GenAi.REQUEST_STREAM, true);
        request.temperature().ifPresent(value -> builder.setAttribute(GenAi.REQUEST_TEMPERATURE, value));
        request.topP().ifPresent(value -> builder.setAttribute(GenAi.REQUEST_TOP_P, value));
        request.maxTokens().ifPresent(value -> builder.setAttribute(GenAi.REQUEST_MAX_TOKENS, (long) value));
        if (!request.stopSequences().isEmpty()) {
            builder.setAttribute(GenAi.REQUEST_STOP_SEQUENCES, request.stopSequences());
        }
        long started = System.nanoTime();
        Span span = builder.startSpan();
        if (capture) {
            span.setAttribute(GenAi.INPUT_MESSAGES, content.inputMessages(request.messages(), chain.streamOptions()));
        }
        Context context = parent.with(span);
        ChatRequest.Builder traced = request.toBuilder();
        propagator.inject(context, traced, HEADERS);

        ChatStream stream;
        try (Scope ignored = context.makeCurrent()) {
            stream = chain.proceed(traced.build());
        } catch (ProviderException e) {
            failed(span, run, shared, started, errorType(e), e.getMessage());
            throw e;
        } catch (RuntimeException | Error e) {
            failed(span, run, shared, started, e.getClass().getName(), e.getMessage());
            throw e;
        }
        return new TracedChatStream(stream, this, span, run, shared, started, chain.streamOptions());
    }

    /** An attempt that failed: the span's error, the duration with {@code error.type}, what a retry retries. */
    void failed(Span span, RunState run, Attributes shared, long started, String errorType, String message) {
        if (run != null) {
            run.lastFailure = errorType;
        }
        span.setAttribute(GenAi.ERROR_TYPE, errorType);
        span.setStatus(StatusCode.ERROR, message == null ? "" : content.redact(message));
        instruments.operationDuration.record(seconds(started),
                shared.toBuilder().put(GenAi.ERROR_TYPE, errorType).build());
        span.end();
    }

    /** An attempt that streamed its answer to the end (or was left by the reader). */
    void succeeded(Span span, Attributes shared, long started, TracedChatStream.Outcome outcome) {
        AttributesBuilder metric = shared.toBuilder();
        if (outcome.responseModel() != null) {
            span.setAttribute(GenAi.RESPONSE_MODEL, outcome.responseModel());
            metric.put(GenAi.RESPONSE_MODEL, outcome.responseModel());
        }
        if (outcome.responseId() != null) {
            span.setAttribute(GenAi.RESPONSE_ID, outcome.responseId());
        }
        if (outcome.finishReason() != null) {
            span.setAttribute(GenAi.FINISH_REASONS, List.of(outcome.finishReason()));
        }
        Attributes measured = metric.build();
        if (outcome.usage() != null) {
            span.setAttribute(GenAi.INPUT_TOKENS, outcome.usage().inputTokens());
            span.setAttribute(GenAi.OUTPUT_TOKENS, outcome.usage().outputTokens());
            instruments.tokens(measured, outcome.usage().inputTokens(), outcome.usage().outputTokens());
        }
        if (outcome.firstChunkNanos() >= 0) {
            span.setAttribute(GenAi.TIME_TO_FIRST_CHUNK, (outcome.firstChunkNanos() - started) / 1e9);
        }
        if (capture && outcome.output() != null) {
            span.setAttribute(GenAi.OUTPUT_MESSAGES, outcome.output().json(content, outcome.finishReason()));
        }
        instruments.operationDuration.record(seconds(started), measured);
        span.end();
    }

    boolean capturing() {
        return capture;
    }

    /**
     * The {@code error.type} of a failed attempt: the HTTP status when the API answered with
     * one ({@code 429}, {@code 503}), else what went wrong, in lower case ({@code timeout},
     * {@code connection}, {@code stream_broken}, {@code protocol}, {@code cancelled}, ...).
     */
    static String errorType(ProviderException e) {
        if (e.statusCode().isPresent()) {
            return Integer.toString(e.statusCode().getAsInt());
        }
        return e.kind().name().toLowerCase(Locale.ROOT);
    }

    static int port(URI uri) {
        if (uri.getPort() >= 0) {
            return uri.getPort();
        }
        return "https".equalsIgnoreCase(uri.getScheme()) ? 443 : 80;
    }

    static double seconds(long started) {
        return (System.nanoTime() - started) / 1e9;
    }
}
