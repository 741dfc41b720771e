package dev.bellows.opentelemetry;

import dev.bellows.agent.AgentBuilder;
import dev.bellows.agent.ModelInterceptor;
import dev.bellows.agent.RunInterceptor;
import dev.bellows.agent.ToolInterceptor;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.propagation.TextMapPropagator;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.function.UnaryOperator;
import dev.bellows.secret.Secrets;

/**
 * OpenTelemetry traces and metrics of Bellows agents, following the OpenTelemetry GenAI
 * semantic conventions, as the loop's interceptors: one {@code invoke_agent {agent}} span per
 * run, one {@code chat {model}} span per model request attempt (a retried request shows one per
 * attempt), one {@code execute_tool {tool}} span per tool call, the metrics
 * {@code gen_ai.client.token.usage} and {@code gen_ai.client.operation.duration}, and the loop's
 * counters {@code bellows.loop.iterations}, {@code bellows.tool.errors} and
 * {@code bellows.model.retries}. Every model request carries its {@code chat} span's W3C
 * {@code traceparent}. docs/observability.md lists every span, attribute and metric.
 *
 * <pre>{@code
 * OpenTelemetry openTelemetry = ...;                    // the application's SDK
 * BellowsTelemetry telemetry = BellowsTelemetry.create(openTelemetry);
 * DefaultAgent agent = telemetry.instrument(DefaultAgent.builder()
 *         .provider(provider)
 *         .model("gpt-4o-mini"))
 *         .build();
 * }</pre>
 *
 * <p>Prompts, answers, tool arguments and results are recorded only when content capture is on
 * ({@link Builder#captureMessageContent}; by default it follows
 * {@code OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT} or the system property
 * {@code otel.instrumentation.genai.capture.message.content}, off unless {@code true}), and
 * then every text has the process's secrets replaced first: every value registered with
 * {@code dev.bellows.secret.Secrets} (API keys, MCP header and environment values, OAuth
 * tokens, database passwords), and whatever the {@linkplain Builder#redactor redactor} replaces.
 *
 * <p>An agent never given this costs nothing: nothing of it is registered. Thread-safe: one
 * instance serves any number of agents and runs.
 */
public final class BellowsTelemetry {

    /** The instrumentation scope of every span and metric. */
    public static final String INSTRUMENTATION_SCOPE = "dev.bellows";
    /** The environment variable that turns content capture on ({@code true}). */
    public static final String CAPTURE_CONTENT_ENV = "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT";
    /** The system property that does the same, and wins over the variable. */
    public static final String CAPTURE_CONTENT_PROPERTY = "otel.instrumentation.genai.capture.message.content";
    /**
     * The {@link dev.bellows.agent.RunContext#attributes() run attribute} that names, as a W3C
     * {@code traceparent} string, the span the {@code chat} and {@code execute_tool} spans of a
     * run carried on elsewhere are children of: a call made outside the process that runs the
     * loop (a durable run's model or tool call, on a Temporal worker; docs/temporal.md) has no
     * {@code invoke_agent} span here, and is traced under the run's span this way. The same key
     * as {@link dev.bellows.agent.RunContext#TRACE_PARENT}, which a driver sets.
     */
    public static final String TRACE_PARENT = dev.bellows.agent.RunContext.TRACE_PARENT;
    /**
     * The run attribute that gives, for an attempt after the first of a run carried on
     * elsewhere, the {@code error.type} of the attempt before it (what {@code bellows.model.retries}
     * counts it under), as a {@code chat} span's {@code error.type} says it: the HTTP status
     * when the API answered with one ({@code 429}), else the failure's kind in lower case
     * ({@code timeout}, {@code stream_broken}, ...). In the loop's own process the telemetry
     * remembers it itself. The same key as {@link dev.bellows.agent.RunContext#LAST_FAILURE}.
     */
    public static final String LAST_FAILURE = dev.bellows.agent.RunContext.LAST_FAILURE;

    private final TextMapPropagator propagator;
    private final boolean capture;
    private final AgentSpans runs;
    private final ChatSpans models;
    private final ToolSpans tools;

    private BellowsTelemetry(Builder builder) {
        Tracer tracer = builder.openTelemetry.getTracer(INSTRUMENTATION_SCOPE);
        Instruments instruments = new Instruments(builder.openTelemetry.getMeter(INSTRUMENTATION_SCOPE));
        TextMapPropagator configured = builder.openTelemetry.getPropagators().getTextMapPropagator();
        // A model request carries a W3C traceparent even when the application configured no
        // propagator (a bare SDK has none); a configured one (W3C, B3, baggage) is used as it is.
        this.propagator = configured.fields().isEmpty() ? W3CTraceContextPropagator.getInstance() : configured;
        this.capture = builder.capture;
        UnaryOperator<String> own = builder.redactor;
        Content content = new Content(text -> own.apply(Secrets.redact(text)));
        this.runs = new AgentSpans(tracer, content, capture);
        this.models = new ChatSpans(tracer, instruments, propagator, content, capture);
        this.tools = new ToolSpans(tracer, instruments, content, capture);
    }

    /** Telemetry through {@code openTelemetry}, content capture as the environment says. */
    public static BellowsTelemetry create(OpenTelemetry openTelemetry) {
        return builder(openTelemetry).build();
    }

    public static Builder builder(OpenTelemetry openTelemetry) {
        return new Builder(openTelemetry);
    }

    /** Adds the three interceptors to {@code builder} (outermost of those added so far last) and returns it. */
    public <B extends AgentBuilder<B, ?>> B instrument(B builder) {
        return builder.runInterceptor(runs).modelInterceptor(models).toolInterceptor(tools);
    }

    /** The {@code invoke_agent} spans, for a builder assembled by hand. */
    public RunInterceptor runInterceptor() {
        return runs;
    }

    /** The {@code chat} spans, the {@code traceparent}, the token, duration, iteration and retry metrics. */
    public ModelInterceptor modelInterceptor() {
        return models;
    }

    /** The {@code execute_tool} spans and the tool error counter. */
    public ToolInterceptor toolInterceptor() {
        return tools;
    }

    /**
     * Records the {@code invoke_agent} span of a run whose loop ran where no span could stay open
     * for its whole length: a durable run, whose workflow replays the loop step by step on any
     * worker (docs/temporal.md, "Traces"). Called once, when the run has ended; the span has
     * the run's start and end times, and the trace id and span id {@code traceparent} names, the
     * parent its calls' {@code chat} and {@code execute_tool} spans (made on the workers with
     * {@link #TRACE_PARENT}) already name, provided the SDK's id generator is
     * {@link RunSpanIds}; with another, the span is a child of that one, in the same trace.
     *
     * @param run         the run, as its interceptors saw it (agent name, session, task)
     * @param result      how it ended
     * @param traceparent the W3C {@code traceparent} of the run's span
     */
    public void recordEndedRun(dev.bellows.agent.RunContext run, dev.bellows.agent.AgentResult result,
                               String traceparent, java.time.Instant started, java.time.Instant ended) {
        Objects.requireNonNull(run, "run");
        Objects.requireNonNull(result, "result");
        Objects.requireNonNull(started, "started");
        Objects.requireNonNull(ended, "ended");
        runs.recordEnded(run, result, traceparent, started, ended);
    }

    /** Whether prompts, answers, arguments and results are recorded. */
    public boolean capturesMessageContent() {
        return capture;
    }

    /**
     * The headers that carry the current trace context ({@code traceparent}, and whatever else
     * the propagator adds) for an outgoing request made on this thread: inside a tool call,
     * the {@code execute_tool} span's. Empty when no span is current.
     */
    public Map<String, String> traceHeaders() {
        Map<String, String> headers = new LinkedHashMap<>();
        propagator.inject(Context.current(), headers, (carrier, name, value) -> {
            if (carrier != null) {
                carrier.put(name, value);
            }
        });
        return headers;
    }

    /** Whether content capture is asked for by the system property or, failing it, the environment variable. */
    static boolean captureRequested(Map<String, String> env, java.util.Properties properties) {
        String value = properties.getProperty(CAPTURE_CONTENT_PROPERTY);
        if (value == null || value.isBlank()) {
            value = env.get(CAPTURE_CONTENT_ENV);
        }
        return value != null && value.strip().toLowerCase(Locale.ROOT).equals("true");
    }

    /** Builds a {@link BellowsTelemetry}. */
    public static final class Builder {
        private final OpenTelemetry openTelemetry;
        private boolean capture = captureRequested(System.getenv(), System.getProperties());
        private UnaryOperator<String> redactor = UnaryOperator.identity();

        private Builder(OpenTelemetry openTelemetry) {
            this.openTelemetry = Objects.requireNonNull(openTelemetry, "openTelemetry");
        }

        /**
         * Records prompts, answers, tool arguments and results (the conventions' opt-in
         * {@code gen_ai.input.messages}, {@code gen_ai.output.messages},
         * {@code gen_ai.tool.call.arguments}, {@code gen_ai.tool.call.result}); default: as
         * {@value #CAPTURE_CONTENT_ENV} says.
         */
        public Builder captureMessageContent(boolean capture) {
            this.capture = capture;
            return this;
        }

        /**
         * What every recorded text (content, error messages) passes through before it is put
         * on a span, after the values registered with {@code Secrets} are replaced: replace
         * what else the application holds secret. Must be thread-safe.
         */
        public Builder redactor(UnaryOperator<String> redactor) {
            this.redactor = Objects.requireNonNull(redactor, "redactor");
            return this;
        }

        public BellowsTelemetry build() {
            return new BellowsTelemetry(this);
        }
    }
}
