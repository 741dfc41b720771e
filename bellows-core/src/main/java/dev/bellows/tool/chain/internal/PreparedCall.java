package dev.bellows.tool.chain.internal;

import dev.bellows.tool.ArgumentSchema;
import dev.bellows.tool.DecodedToolCall;
import dev.bellows.tool.InvalidArgumentsException;
import dev.bellows.tool.Tool;
import dev.bellows.tool.ToolCall;
import dev.bellows.tool.ToolCallOutcome;
import dev.bellows.tool.ToolContext;
import dev.bellows.tool.ToolResult;
import tools.jackson.databind.JsonNode;
import dev.bellows.json.internal.FrozenJson;
import dev.bellows.tool.ToolCallOutcome.Failed;
import java.util.Objects;
import java.util.Optional;
import java.util.function.BooleanSupplier;

/**
 * One call of a batch made ready by {@link Calls#prepare}: its tool found and its
 * arguments checked against the tool's schema (with lossless coercions applied), or the reason
 * it cannot run (an undecodable call, an unknown tool, arguments the schema refuses), which
 * is what the model reads. {@link Calls#execute} is these steps for a whole batch; the
 * agent loop takes them one at a time, so that its interceptors and approvals see only calls
 * that can run, with arguments already checked.
 *
 * <pre>{@code
 * PreparedCall prepared = chain.prepare(decoded);
 * ToolCallOutcome outcome = prepared.failure().isPresent() ? prepared.failure().get() : prepared.run(cancelled);
 * }</pre>
 *
 * <p>Immutable and safe to share between threads.
 */
public final class PreparedCall {

    private final DecodedToolCall decoded;
    private final ToolCall call;            // with the checked arguments; null when it cannot run
    private final Tool tool;
    private final ArgumentSchema schema;    // for arguments given later (edited); null for a failed call
    private final Failed failure;
    private final ToolCallRunner runner;

    PreparedCall(DecodedToolCall decoded, ToolCall call, Tool tool, ArgumentSchema schema, Failed failure,
                 ToolCallRunner runner) {
        this.decoded = decoded;
        this.call = call;
        this.tool = tool;
        this.schema = schema;
        this.failure = failure;
        this.runner = runner;
    }

    /** The call as the model made it. */
    public DecodedToolCall decoded() {
        return decoded;
    }

    /** Why the call cannot run, as the outcome the model reads; empty when it can. */
    public Optional<Failed> failure() {
        return Optional.ofNullable(failure);
    }

    /**
     * The call with its checked arguments.
     *
     * @throws IllegalStateException when it cannot run ({@link #failure()})
     */
    public ToolCall call() {
        requireReady();
        return call;
    }

    /**
     * The tool the call runs.
     *
     * @throws IllegalStateException when it cannot run ({@link #failure()})
     */
    public Tool tool() {
        requireReady();
        return tool;
    }

    /**
     * Checks other arguments for this call against the tool's schema (arguments a person or an
     * interceptor edited), with lossless coercions applied. The result is frozen (read-only);
     * {@code arguments} is never changed.
     *
     * @throws InvalidArgumentsException when they do not match, saying what is wrong
     * @throws IllegalStateException     when the call cannot run ({@link #failure()})
     */
    public JsonNode check(JsonNode arguments) throws InvalidArgumentsException {
        Objects.requireNonNull(arguments, "arguments");
        requireReady();
        JsonNode checked = schema.check(call.toolName(), arguments);
        return FrozenJson.freeze(checked != null && checked.isObject() ? checked : arguments);
    }

    /**
     * Runs the call with its checked arguments. Whatever the tool does is an outcome, never an
     * exception: {@link ToolCallOutcome.Succeeded}, {@link ToolCallOutcome.Failed}, or
     * {@link ToolCallOutcome.Cancelled} when {@code cancelled} was true before it started.
     *
     * @param cancelled true once the run is cancelled; the tool sees it through its {@link ToolContext}
     * @throws IllegalStateException when it cannot run ({@link #failure()})
     */
    public ToolCallOutcome run(BooleanSupplier cancelled) {
        requireReady();
        return runner.run(call, tool, null, cancelled);
    }

    /**
     * Runs the call with other arguments, checked first ({@link #check}): a mismatch is a
     * {@link ToolCallOutcome.Failed} that says what is wrong, and the tool is not called.
     *
     * @throws IllegalStateException when it cannot run ({@link #failure()})
     */
    public ToolCallOutcome run(JsonNode arguments, BooleanSupplier cancelled) {
        requireReady();
        ToolCall edited = new ToolCall(call.serverName(), call.toolName(), arguments);
        return runner.run(edited, tool, schema, cancelled);
    }

    /**
     * The outcome of this call had its tool returned {@code result}, without running it: the
     * result rendered as the model reads it, its effect kept (a loop-breaking tool's result
     * without one ends the run, as when it runs).
     *
     * @param arguments the arguments to record with the call, or null for the checked ones
     * @throws IllegalStateException when it cannot run ({@link #failure()})
     */
    public ToolCallOutcome.Succeeded respond(JsonNode arguments, ToolResult<?> result) {
        Objects.requireNonNull(result, "result");
        requireReady();
        ToolCall answered = arguments == null ? call : new ToolCall(call.serverName(), call.toolName(), arguments);
        return runner.outcome(answered, tool, result);
    }

    /** Runs as {@link Calls#execute} does: a failed call is its failure. */
    ToolCallOutcome runOrFail(BooleanSupplier cancelled) {
        return failure != null ? failure : runner.run(call, tool, schema, cancelled);
    }

    boolean parallelSafe() {
        return tool != null && tool.parallelSafe();
    }

    private void requireReady() {
        if (failure != null) {
            throw new IllegalStateException("this call cannot run: " + failure.error());
        }
    }

    @Override
    public String toString() {
        return failure != null ? "PreparedCall[cannot run: " + failure.error() + "]"
                : "PreparedCall[" + call.serverName() + "/" + call.toolName() + "]";
    }
}
