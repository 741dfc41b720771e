package dev.bellows.format;

import dev.bellows.format.ToolCallOutcome.Cancelled;
import dev.bellows.format.ToolCallOutcome.Failed;
import dev.bellows.format.ToolCallOutcome.Succeeded;
import dev.bellows.tool.ArgumentSchema;
import dev.bellows.tool.DecodedToolCall;
import dev.bellows.tool.Media;
import dev.bellows.tool.Tool;
import dev.bellows.tool.ToolCall;
import dev.bellows.tool.ToolCallError;
import dev.bellows.tool.ToolException;
import dev.bellows.tool.ToolRegistry;
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
 * Runs the tool calls of one model answer and writes the observation the model reads next.
 *
 * <p>Each call is looked up in the {@link ToolRegistry}; its arguments are checked against the
 * tool's schema unless the tool {@linkplain Tool#validatesArguments() checks them itself}; the
 * tool runs; its output is rendered (strings as they are, anything else as JSON or YAML, see
 * {@link OutputFormat}). Nothing a call does stops the batch: an undecodable call, an unknown
 * tool, bad arguments and a failing tool each become an error the model reads in its
 * observation, and a {@link ToolCallOutcome.Failed} for the program. A
 * {@link dev.bellows.tool.ToolException}'s message reaches the model as is; any other exception
 * as {@code tool X failed: Type: message}, never with a stack trace.
 *
 * <p>Calls run one after another on the calling thread, in order; when every tool of the batch
 * is {@linkplain Tool#parallelSafe() parallel-safe} they run at the same time, each on a
 * virtual thread. Either way the outcomes, media and observation are in call order.
 *
 * <pre>{@code
 * ToolChain chain = new ToolChain(registry, new XmlFormat());
 * ToolChainResult result = chain.execute(calls, cancelled::get);
 * String observation = result.text();          // send to the model, with result.media()
 * }</pre>
 *
 * <p>Immutable and safe to share between threads.
 */
public final class ToolChain {

    private final ToolRegistry registry;
    private final TextFormat textFormat;
    private final OutputFormat outputFormat;
    private final ToolCallRunner runner;

    /** A chain that writes non-string outputs as JSON. */
    public ToolChain(ToolRegistry registry, TextFormat textFormat) {
        this(registry, textFormat, OutputFormat.JSON);
    }

    /**
     * @param registry     where calls find their tools
     * @param textFormat   the format of the observation; use the one the model writes its answers in
     * @param outputFormat how non-string outputs are written
     */
    public ToolChain(ToolRegistry registry, TextFormat textFormat, OutputFormat outputFormat) {
        this.registry = Objects.requireNonNull(registry, "registry");
        this.textFormat = Objects.requireNonNull(textFormat, "textFormat");
        this.outputFormat = Objects.requireNonNull(outputFormat, "outputFormat");
        this.runner = new ToolCallRunner(new OutputRenderer(outputFormat));
    }

    public TextFormat textFormat() {
        return textFormat;
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
     *                  {@link dev.bellows.tool.ToolContext}, and calls not yet started are
     *                  reported {@link ToolCallOutcome.Cancelled} without running. Interrupting
     *                  the calling thread has the same effect.
     */
    public ToolChainResult execute(List<? extends DecodedToolCall> calls, BooleanSupplier cancelled) {
        Objects.requireNonNull(calls, "calls");
        Objects.requireNonNull(cancelled, "cancelled");
        // Plain loops: this runs for every answer with a call, most often a single one.
        List<Step> steps = new ArrayList<>(calls.size());
        for (DecodedToolCall call : calls) {
            steps.add(resolve(call));
        }
        List<ToolCallOutcome> outcomes;
        if (runsInParallel(steps)) {
            outcomes = runInParallel(steps, cancelled);
        } else {
            outcomes = new ArrayList<>(steps.size());
            for (Step step : steps) {
                outcomes.add(step.run(runner, cancelled));
            }
        }
        List<Media> media = List.of();
        for (ToolCallOutcome outcome : outcomes) {
            if (outcome instanceof Succeeded s && !s.result().media().isEmpty()) {
                if (media.isEmpty()) {
                    media = new ArrayList<>();
                }
                media.addAll(s.result().media());
            }
        }
        return new ToolChainResult(Observation.format(textFormat, outcomes), media, outcomes);
    }

    /** A call with its tool found, or already failed. */
    private record Step(ToolCall call, Tool tool, ArgumentSchema schema, Failed failure) {

        ToolCallOutcome run(ToolCallRunner runner, BooleanSupplier cancelled) {
            return failure != null ? failure : runner.run(call, tool, schema, cancelled);
        }
    }

    private Step resolve(DecodedToolCall decoded) {
        return switch (decoded) {
            case ToolCallError error -> new Step(null, null, null, new Failed(error, error.error(), null));
            case ToolCall call -> {
                try {
                    Tool tool = registry.lookup(call.serverName(), call.toolName());
                    // Compiled when the tool was registered; a tool the registry no longer holds
                    // (refreshed away meanwhile) is checked against its schema compiled now.
                    ArgumentSchema schema = tool.validatesArguments() ? null
                            : registry.argumentSchema(call.serverName(), call.toolName())
                                    .orElseGet(() -> ArgumentSchema.compile(tool.inputSchema()));
                    yield new Step(call, tool, schema, null);
                } catch (ToolException e) {
                    String message = e.getMessage() == null ? "tool " + call.toolName() + " was not found" : e.getMessage();
                    yield new Step(call, null, null, new Failed(call, message, e));
                } catch (RuntimeException e) {
                    // A tool source that fails while being asked: still an error for the model, not a crash.
                    yield new Step(call, null, null, new Failed(call, ToolCallRunner.failure(call, e), e));
                }
            }
        };
    }

    /** Calls that will not run (undecodable, unknown tool) do not hold the others back. */
    private static boolean runsInParallel(List<Step> steps) {
        int tools = 0;
        for (Step step : steps) {
            if (step.tool() != null) {
                if (!step.tool().parallelSafe()) {
                    return false;
                }
                tools++;
            }
        }
        return tools > 1;
    }

    private List<ToolCallOutcome> runInParallel(List<Step> steps, BooleanSupplier cancelled) {
        // Interrupting the caller stops the calls that have not started, as cancelling does.
        AtomicBoolean interrupted = new AtomicBoolean();
        BooleanSupplier stop = () -> interrupted.get() || cancelled.getAsBoolean();
        List<ToolCallOutcome> outcomes = new ArrayList<>(steps.size());
        try (ExecutorService executor = Executors.newVirtualThreadPerTaskExecutor()) {
            List<Future<ToolCallOutcome>> futures = steps.stream()
                    .map(step -> executor.submit(() -> step.run(runner, stop)))
                    .toList();
            for (int i = 0; i < steps.size(); i++) {
                outcomes.add(await(futures.get(i), steps.get(i), interrupted, executor));
            }
        }
        return outcomes;
    }

    private static ToolCallOutcome await(Future<ToolCallOutcome> future, Step step, AtomicBoolean interrupted,
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
                return new Cancelled(step.call());
            } catch (ExecutionException e) {
                // The runner catches every Exception, so only an Error gets here.
                if (e.getCause() instanceof Error error) {
                    throw error;
                }
                throw new IllegalStateException(e.getCause());
            }
        }
    }
}
