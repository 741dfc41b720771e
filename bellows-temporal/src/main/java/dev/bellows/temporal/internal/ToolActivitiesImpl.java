package dev.bellows.temporal.internal;

import dev.bellows.secret.Secrets;
import dev.bellows.agent.ToolInterceptor;
import dev.bellows.format.OutputFormat;
import dev.bellows.tool.ToolCall;
import dev.bellows.tool.ToolCallOutcome;
import dev.bellows.tool.chain.ToolChain;
import dev.bellows.memory.ResultLimit;
import dev.bellows.tool.ToolRegistry;
import io.temporal.activity.Activity;
import io.temporal.activity.ActivityExecutionContext;
import io.temporal.client.ActivityCompletionException;
import io.temporal.failure.ApplicationFailure;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The tool-call activity: runs one call through a {@link ToolChain} over the worker's own tools
 * (lookup, argument check, the call, the output rendered as the loop renders it), heartbeating
 * while it runs so that a dead worker's call is taken over soon and a cancelled run reaches the
 * tool. Whatever the tool does is a {@link ToolOutcome}; a result longer than
 * {@link #MAX_RESULT_BYTES} is cut, with a note, so that no file is too big for a run's history.
 */
public final class ToolActivitiesImpl implements ToolActivities {

    /** The most UTF-8 bytes of a tool result a durable run records. */
    public static final int MAX_RESULT_BYTES = 1024 * 1024;
    /**
     * The failure type of a call whose worker's interceptor threw (or returned null): not retried
     * (that would run the interceptors again), and the run ends {@code error}, as a local run does.
     */
    static final String INTERCEPTOR_FAILED = "bellows.ToolInterceptorFailed";
    private static final Duration HEARTBEAT_EVERY = Duration.ofSeconds(1);

    private final ToolRegistry tools;
    private final ToolChain chain;
    private final List<ToolInterceptor> interceptors;

    /**
     * @param tools  the worker's tools (MCP servers and local tools; not the loop's built-ins)
     * @param output how non-string outputs are rendered, as the loop's tool chain renders them
     */
    public ToolActivitiesImpl(ToolRegistry tools, OutputFormat output) {
        this(tools, output, List.of());
    }

    /**
     * @param interceptors the worker's own, around each call this worker runs (a tracer's
     *                     {@code execute_tool} spans; {@link WorkerRun}), the first outermost
     */
    public ToolActivitiesImpl(ToolRegistry tools, OutputFormat output, List<ToolInterceptor> interceptors) {
        this.tools = Objects.requireNonNull(tools, "tools");
        this.chain = new ToolChain(tools, output);
        this.interceptors = List.copyOf(interceptors);
    }

    @Override
    public ToolOutcome call(ToolCallInput input) {
        ActivityExecutionContext context = Activity.getExecutionContext();
        AtomicBoolean cancelled = new AtomicBoolean();
        Thread caller = Thread.currentThread();
        ActivityCompletionException[] stopped = {null};
        Thread heartbeat = Thread.ofVirtual().name("bellows-tool-heartbeat").start(() -> {
            while (!Thread.currentThread().isInterrupted()) {
                try {
                    context.heartbeat(null);
                    Thread.sleep(HEARTBEAT_EVERY);
                } catch (ActivityCompletionException e) {
                    synchronized (stopped) {
                        stopped[0] = e;
                    }
                    cancelled.set(true);
                    caller.interrupt();
                    return;
                } catch (InterruptedException e) {
                    return;
                }
            }
        });
        ToolCallOutcome outcome;
        try {
            ToolCall call = new ToolCall(input.serverName(), input.toolName(), input.arguments());
            outcome = interceptors.isEmpty() ? chain.execute(List.of(call), cancelled::get).outcomes().getFirst()
                    : intercepted(context, call, input, cancelled::get);
        } finally {
            heartbeat.interrupt();
            try {
                heartbeat.join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        synchronized (stopped) {
            if (stopped[0] != null) {
                Thread.interrupted();
                throw stopped[0];
            }
        }
        return switch (outcome) {
            case ToolCallOutcome.Succeeded s -> ToolOutcome.success(cut(s.text()));
            case ToolCallOutcome.Failed f -> ToolOutcome.failure(cut(f.error()));
            case ToolCallOutcome.Cancelled c -> ToolOutcome.failure("the call was cancelled");
            case ToolCallOutcome.Denied d -> ToolOutcome.failure(cut(d.text()));
            // A worker's call cannot wait: approvals are the workflow's, decided before the call gets here.
            case ToolCallOutcome.Deferred d -> ToolOutcome.failure("a durable run's tool call cannot wait on the worker:"
                    + " approvals are the workflow's (DefaultAgent.Builder#requireApproval in the worker's loop settings)");
        };
    }

    /** The call through the worker's interceptors, once found and its arguments checked (else its failure, as the chain's). */
    private ToolCallOutcome intercepted(ActivityExecutionContext context, ToolCall call, ToolCallInput input,
                                        java.util.function.BooleanSupplier cancelled) {
        ToolCallInput.RunInfo run = input.run() != null ? input.run() : new ToolCallInput.RunInfo(null, null, null, 0);
        try {
            return ToolInterceptor.proceed(interceptors, WorkerRun.of(context.getInfo(), run.agentName(), run.session(),
                    run.task(), run.iteration(), null, cancelled), input.callId(), call, tools, chain.outputFormat(), cancelled);
        } catch (RuntimeException e) {
            // An interceptor's failure (a tool's is an outcome, never an exception): the message names it.
            throw ApplicationFailure.newNonRetryableFailure(Secrets.redact(e.getMessage()), INTERCEPTOR_FAILED);
        }
    }

    /**
     * At most about {@link #MAX_RESULT_BYTES} of UTF-8, cut at a character, with the note of a
     * text cut as it arrived ({@link ResultLimit#cutAsArrived}): the loop's own result limit,
     * in the workflow, then still tells the model how much the tool sent.
     */
    static String cut(String text) {
        text = Secrets.redact(text);       // the worker's secrets never enter the history (an MCP server may echo its env)
        if (text == null || text.length() <= MAX_RESULT_BYTES / 3) {
            return text;
        }
        byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        if (bytes.length <= MAX_RESULT_BYTES) {
            return text;
        }
        int end = MAX_RESULT_BYTES - 200;       // room for the note
        while (end > 0 && (bytes[end] & 0xC0) == 0x80) {
            end--;                              // not inside a character
        }
        int keepChars = new String(bytes, 0, end, StandardCharsets.UTF_8).length();
        return ResultLimit.cutAsArrived(text, keepChars);
    }

    /** The worker's tools, for the catalog a run records at its start. */
    ToolRegistry tools() {
        return tools;
    }
}
