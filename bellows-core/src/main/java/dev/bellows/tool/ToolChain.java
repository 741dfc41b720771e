package dev.bellows.tool;

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
 * Runs the tool calls of one model answer, one outcome per call.
 *
 * <p>Each call is looked up in the {@link ToolRegistry}; its arguments are checked against the
 * tool's schema unless the tool {@linkplain Tool#validatesArguments() checks them itself}; the
 * tool runs; its output is rendered (strings as they are, anything else as JSON or YAML, see
 * {@link OutputFormat}). Nothing a call does stops the batch: an undecodable call, an unknown
 * tool, bad arguments and a failing tool each become a {@link ToolCallOutcome.Failed} whose
 * error the model reads. A {@link ToolException}'s message reaches the model as is; any other
 * exception as {@code tool X failed: Type: message}, never with a stack trace. A result's
 * {@linkplain ToolEffect effect} (end the run, replace the plan) is kept with its outcome for
 * the loop to act on.
 *
 * <p>Calls run one after another on the calling thread, in order; when every tool of the batch
 * is {@linkplain Tool#parallelSafe() parallel-safe} they run at the same time, each on a
 * virtual thread. Either way the outcomes are in call order.
 *
 * <pre>{@code
 * ToolChain chain = new ToolChain(registry);
 * ToolChainResult result = chain.execute(calls, cancelled::get);
 * String observation = Observation.format(new XmlFormat(), result.outcomes());   // for the model, with result.media()
 * }</pre>
 *
 * <p>Immutable and safe to share between threads.
 */
public final class ToolChain {

    private final ToolRegistry registry;
    private final OutputFormat outputFormat;
    private final ToolCallRunner runner;

    /** A chain that writes outputs that are not strings as JSON. */
    public ToolChain(ToolRegistry registry) {
        this(registry, OutputFormat.JSON);
    }

    /**
     * @param registry     where calls find their tools
     * @param outputFormat how outputs that are not strings are written
     */
    public ToolChain(ToolRegistry registry, OutputFormat outputFormat) {
        this(registry, outputFormat, ResultLimit.NONE);
    }

    private ToolChain(ToolRegistry registry, OutputFormat outputFormat, ResultLimit limit) {
        this.registry = Objects.requireNonNull(registry, "registry");
        this.outputFormat = Objects.requireNonNull(outputFormat, "outputFormat");
        this.runner = new ToolCallRunner(new OutputRenderer(outputFormat), Objects.requireNonNull(limit, "limit"));
    }

    /**
     * This chain with each result cut to {@code limit} where it is rendered for the model (the
     * text of a {@link ToolCallOutcome.Succeeded}, which the model and the listeners read), and
     * each error a tool reports (the text of a {@link ToolCallOutcome.Failed}) too.
     */
    public ToolChain withResultLimit(ResultLimit limit) {
        return new ToolChain(registry, outputFormat, limit);
    }

    public OutputFormat outputFormat() {
        return outputFormat;
    }

    /** Runs the calls, never cancelled. */
    public ToolChainResult execute(List<? extends DecodedToolCall> calls) {
        return execute(calls, () -> false);
    }

    /**
     * Runs the calls.
     *
     * @param calls     the decoded calls of one answer, in the order the model wrote them
     * @param cancelled true once the run is cancelled: tools see it through their
     *                  {@link ToolContext}, and calls not yet started are reported
     *                  {@link ToolCallOutcome.Cancelled} without running. Interrupting the
     *                  calling thread has the same effect.
     */
    public ToolChainResult execute(List<? extends DecodedToolCall> calls, BooleanSupplier cancelled) {
        Objects.requireNonNull(calls, "calls");
        Objects.requireNonNull(cancelled, "cancelled");
        // Plain loops: this runs for every answer with a call, most often a single one.
        List<PreparedCall> steps = new ArrayList<>(calls.size());
        for (DecodedToolCall call : calls) {
            steps.add(prepare(call, false));
        }
        List<ToolCallOutcome> outcomes;
        if (runsInParallel(steps)) {
            outcomes = runAll(steps, true, cancelled, (step, stop) -> step.runOrFail(stop));
        } else {
            outcomes = new ArrayList<>(steps.size());
            for (PreparedCall step : steps) {
                outcomes.add(step.runOrFail(cancelled));
            }
        }
        return new ToolChainResult(outcomes);
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
