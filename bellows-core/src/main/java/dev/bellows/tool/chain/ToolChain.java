package dev.bellows.tool.chain;

import dev.bellows.format.OutputFormat;
import dev.bellows.memory.ResultLimit;
import dev.bellows.tool.DecodedToolCall;
import dev.bellows.tool.Tool;
import dev.bellows.tool.ToolCallOutcome;
import dev.bellows.tool.ToolContext;
import dev.bellows.tool.ToolEffect;
import dev.bellows.tool.ToolException;
import dev.bellows.tool.ToolRegistry;
import dev.bellows.tool.chain.internal.Calls;
import java.util.List;
import java.util.Objects;
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

    private final Calls calls;

    /** A chain that writes outputs that are not strings as JSON. */
    public ToolChain(ToolRegistry registry) {
        this(registry, OutputFormat.JSON);
    }

    /**
     * @param registry     where calls find their tools
     * @param outputFormat how outputs that are not strings are written
     */
    public ToolChain(ToolRegistry registry, OutputFormat outputFormat) {
        this(new Calls(registry, outputFormat, ResultLimit.NONE));
    }

    private ToolChain(Calls calls) {
        this.calls = calls;
    }

    /**
     * This chain with each result cut to {@code limit} where it is rendered for the model (the
     * text of a {@link ToolCallOutcome.Succeeded}, which the model and the listeners read), and
     * each error a tool reports (the text of a {@link ToolCallOutcome.Failed}) too.
     */
    public ToolChain withResultLimit(ResultLimit limit) {
        return new ToolChain(calls.withResultLimit(Objects.requireNonNull(limit, "limit")));
    }

    public OutputFormat outputFormat() {
        return calls.outputFormat();
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
        return new ToolChainResult(this.calls.execute(calls, cancelled));
    }
}
