package dev.bellows.tool.chain.internal;

import dev.bellows.memory.ResultLimit;
import dev.bellows.tool.ArgumentSchema;
import dev.bellows.tool.DecodedToolCall;
import dev.bellows.tool.InvalidArgumentsException;
import dev.bellows.tool.Tool;
import dev.bellows.tool.ToolCall;
import dev.bellows.tool.ToolCallError;
import dev.bellows.tool.ToolCallOutcome;
import dev.bellows.tool.ToolException;
import dev.bellows.tool.ToolRegistry;
import tools.jackson.databind.JsonNode;
import dev.bellows.format.OutputFormat;
import dev.bellows.tool.ToolCallOutcome.Cancelled;
import dev.bellows.tool.ToolCallOutcome.Failed;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;

/**
 * The tool calls of answers, run as the agent runs them: {@code ToolChain}'s engine, and the
 * agent loop's, which takes the steps one call at a time ({@link #prepare}, then the prepared
 * call through its interceptors) where the chain runs a whole batch ({@link #execute}). Not
 * API: the agent's own packages use it; a user runs calls with {@code ToolChain}, or one call
 * through interceptors with {@code ToolInterceptor.proceed}.
 *
 * <p>Immutable and safe to share between threads.
 */
public final class Calls {

    private final ToolRegistry registry;
    private final OutputFormat outputFormat;
    private final ToolCallRunner runner;

    /**
     * @param registry     where calls find their tools
     * @param outputFormat how outputs that are not strings are written
     * @param limit        where each result and error is cut, for the model
     */
    public Calls(ToolRegistry registry, OutputFormat outputFormat, ResultLimit limit) {
        this.registry = Objects.requireNonNull(registry, "registry");
        this.outputFormat = Objects.requireNonNull(outputFormat, "outputFormat");
        this.runner = new ToolCallRunner(new OutputRenderer(outputFormat), Objects.requireNonNull(limit, "limit"));
    }

    /** These calls with each result and error cut to {@code limit}. */
    public Calls withResultLimit(ResultLimit limit) {
        return new Calls(registry, outputFormat, limit);
    }

    public OutputFormat outputFormat() {
        return outputFormat;
    }

    /** Runs the calls of one answer, as {@code ToolChain#execute} says; the outcomes in call order. */
    public List<ToolCallOutcome> execute(List<? extends DecodedToolCall> calls, BooleanSupplier cancelled) {
        Objects.requireNonNull(calls, "calls");
        Objects.requireNonNull(cancelled, "cancelled");
        // Plain loops: this runs for every answer with a call, most often a single one.
        List<PreparedCall> steps = new ArrayList<>(calls.size());
        for (DecodedToolCall call : calls) {
            steps.add(prepare(call, false));
        }
        if (runsInParallel(steps)) {
            return runAll(steps, true, cancelled, (step, stop) -> step.runOrFail(stop));
        }
        List<ToolCallOutcome> outcomes = new ArrayList<>(steps.size());
        for (PreparedCall step : steps) {
            outcomes.add(step.runOrFail(cancelled));
        }
        return outcomes;
    }

    /**
     * Makes one call ready to run: finds its tool and checks its arguments against the tool's
     * schema (every tool's, also one that checks them itself, so that what is shown or
     * changed before the call runs is what the tool gets).
     */
    public PreparedCall prepare(DecodedToolCall decoded) {
        return prepare(Objects.requireNonNull(decoded, "decoded"), true);
    }

    /**
     * @param checkNow check the arguments now (they are what an interceptor or a person sees);
     *                 else when the call runs, and not at all for a tool that checks them itself
     */
    private PreparedCall prepare(DecodedToolCall decoded, boolean checkNow) {
        return switch (decoded) {
            case ToolCallError error -> new PreparedCall(error, null, null, null, new Failed(error, error.error(), null),
                    runner);
            case ToolCall call -> {
                Tool tool;
                ArgumentSchema schema;
                try {
                    tool = registry.lookup(call.serverName(), call.toolName());
                    // Compiled when the tool was registered; a tool the registry no longer holds
                    // (refreshed away meanwhile) is checked against its schema compiled now.
                    schema = tool.validatesArguments() && !checkNow ? null
                            : registry.argumentSchema(call.serverName(), call.toolName())
                                    .orElseGet(() -> ArgumentSchema.compile(tool.inputSchema()));
                } catch (ToolException e) {
                    String message = e.getMessage() == null ? "tool " + call.toolName() + " was not found" : e.getMessage();
                    yield failed(call, message, e);
                } catch (RuntimeException e) {
                    // A tool source that fails while being asked: still an error for the model, not a crash.
                    yield failed(call, ToolCallRunner.failure(call, e), e);
                }
                if (!checkNow) {
                    yield new PreparedCall(call, call, tool, schema, null, runner);
                }
                try {
                    JsonNode checked = schema.check(call.toolName(), call.arguments());
                    // the call itself when nothing was coerced (its frozen arguments came back as they are)
                    ToolCall ready = checked != call.arguments() && checked.isObject()
                            ? new ToolCall(call.serverName(), call.toolName(), checked) : call;
                    yield new PreparedCall(call, ready, tool, schema, null, runner);
                } catch (InvalidArgumentsException e) {
                    yield failed(call, e.getMessage(), e);
                }
            }
        };
    }

    private PreparedCall failed(ToolCall call, String message, Exception cause) {
        return new PreparedCall(call, null, null, null, new Failed(call, message, cause), runner);
    }

    /** Calls that will not run (undecodable, unknown tool) do not hold the others back. */
    private static boolean runsInParallel(List<PreparedCall> steps) {
        int tools = 0;
        for (PreparedCall step : steps) {
            if (step.failure().isEmpty()) {
                if (!step.parallelSafe()) {
                    return false;
                }
                tools++;
            }
        }
        return tools > 1;
    }

    /** What runs one call of {@link #runAll}; it returns the call's outcome and throws nothing it means to keep. */
    @FunctionalInterface
    public interface CallTask {

        /**
         * @param call the call
         * @param stop true once the run is cancelled or the caller interrupted: a call that has
         *             not started should not start
         */
        ToolCallOutcome run(PreparedCall call, BooleanSupplier stop);
    }

    /**
     * Runs {@code task} once per call and returns the outcomes in call order: one after another
     * on the calling thread, or, when {@code parallel}, each on a virtual thread of its own.
     * Interrupting the calling thread stops the calls that have not started, as cancelling
     * does (they are {@link ToolCallOutcome.Cancelled}); those that finish still report. An
     * unchecked exception or error of a task is thrown here, after every task has ended.
     */
    public static List<ToolCallOutcome> runAll(List<PreparedCall> calls, boolean parallel, BooleanSupplier cancelled,
                                               CallTask task) {
        Objects.requireNonNull(calls, "calls");
        Objects.requireNonNull(cancelled, "cancelled");
        Objects.requireNonNull(task, "task");
        if (!parallel) {
            List<ToolCallOutcome> outcomes = new ArrayList<>(calls.size());
            for (PreparedCall call : calls) {
                outcomes.add(task.run(call, cancelled));
            }
            return outcomes;
        }
        AtomicBoolean interrupted = new AtomicBoolean();
        BooleanSupplier stop = () -> interrupted.get() || cancelled.getAsBoolean();
        List<ToolCallOutcome> outcomes = new ArrayList<>(calls.size());
        RuntimeException thrown = null;
        try (ExecutorService executor = Executors.newVirtualThreadPerTaskExecutor()) {
            List<Future<ToolCallOutcome>> futures = new ArrayList<>(calls.size());
            for (PreparedCall call : calls) {
                futures.add(executor.submit(() -> task.run(call, stop)));
            }
            for (int i = 0; i < calls.size(); i++) {
                try {
                    outcomes.add(await(futures.get(i), calls.get(i), interrupted, executor));
                } catch (RuntimeException e) {
                    // The others still end and report; the first exception is thrown afterwards.
                    thrown = thrown == null ? e : thrown;
                    outcomes.add(null);
                }
            }
        }
        if (thrown != null) {
            throw thrown;
        }
        return outcomes;
    }

    private static ToolCallOutcome await(Future<ToolCallOutcome> future, PreparedCall call, AtomicBoolean interrupted,
                                         ExecutorService executor) {
        while (true) {
            try {
                return future.get();
            } catch (InterruptedException e) {
                interrupted.set(true);
                executor.shutdownNow();
                Thread.currentThread().interrupt();
                // Keep collecting: tools that finish still report; the rest end as cancelled.
                if (future.isDone()) {
                    continue;
                }
                future.cancel(true);
            } catch (CancellationException e) {
                return call.failure().isPresent() ? call.failure().get() : new Cancelled(call.call());
            } catch (ExecutionException e) {
                // The runner catches every Exception a tool throws: what gets here is the task's own.
                if (e.getCause() instanceof Error error) {
                    throw error;
                }
                if (e.getCause() instanceof RuntimeException runtime) {
                    throw runtime;
                }
                throw new IllegalStateException(e.getCause());
            }
        }
    }
}
