package dev.bellows.tool.chain.internal;

import dev.bellows.memory.ResultLimit;
import dev.bellows.tool.ArgumentSchema;
import dev.bellows.tool.Tool;
import dev.bellows.tool.ToolCall;
import dev.bellows.tool.ToolCallOutcome;
import dev.bellows.tool.ToolContext;
import dev.bellows.tool.ToolEffect;
import dev.bellows.tool.ToolException;
import dev.bellows.tool.ToolResult;
import tools.jackson.databind.JsonNode;
import dev.bellows.tool.LoopEndReason;
import dev.bellows.tool.ToolCallOutcome.Cancelled;
import dev.bellows.tool.ToolCallOutcome.Failed;
import dev.bellows.tool.ToolCallOutcome.Succeeded;
import java.util.function.BooleanSupplier;

/**
 * Runs one call of a known tool and turns whatever happens into an outcome: it never throws for
 * anything a tool does, so one failing call cannot take down the batch.
 */
final class ToolCallRunner {

    private static final System.Logger LOG = System.getLogger(ToolCallRunner.class.getName());

    /** A call longer than this is logged (DEBUG): the usual reason a run seems to hang. */
    static final java.time.Duration SLOW = java.time.Duration.ofSeconds(1);

    private final OutputRenderer renderer;
    private final ResultLimit limit;

    ToolCallRunner(OutputRenderer renderer) {
        this(renderer, ResultLimit.NONE);
    }

    ToolCallRunner(OutputRenderer renderer, ResultLimit limit) {
        this.renderer = renderer;
        this.limit = limit;
    }

    /**
     * @param schema the tool's input schema, compiled when it was registered, to check the
     *               arguments against first; null when they go to the tool as they are (it
     *               checks them itself, or they were checked already)
     */
    ToolCallOutcome run(ToolCall call, Tool tool, ArgumentSchema schema, BooleanSupplier cancelled) {
        if (cancelled.getAsBoolean() || Thread.currentThread().isInterrupted()) {
            return new Cancelled(call);
        }
        long started = System.nanoTime();
        try {
            JsonNode arguments = schema == null ? call.arguments() : schema.check(call.toolName(), call.arguments());
            ToolResult<?> result = tool.call(new ToolContext(call.serverName(), call.toolName(), cancelled), arguments);
            // A tool that returns null has nothing to say; treat it like a null output.
            ToolResult<?> nonNull = result == null ? ToolResult.of(null) : result;
            logIfSlow(call, started);
            return outcome(call, tool, nonNull);
        } catch (ToolException e) {
            String message = e.getMessage();
            // An error costs the model what a result does: a server's huge error text is cut the same way.
            return new Failed(call, limit.apply(message == null || message.isBlank() ? failure(call, e) : message), e);
        } catch (Exception e) {
            if (e instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
            // The model reads only the type and message; the stack trace is kept here.
            LOG.log(System.Logger.Level.DEBUG, () -> "tool " + call.serverName() + "/" + call.toolName() + " threw", e);
            return new Failed(call, limit.apply(failure(call, e)), e);
        }
    }

    /** The outcome of a call whose tool returned {@code result}. */
    Succeeded outcome(ToolCall call, Tool tool, ToolResult<?> result) {
        String text = limit.apply(renderer.render(result));
        if (tool.loopBreaking() && result.effect() instanceof ToolEffect.None) {
            // A loop-breaking tool that says nothing more ends the run with its text.
            result = result.withEffect(new ToolEffect.EndRun(LoopEndReason.fromWireName(call.toolName())
                    .filter(LoopEndReason::successful).orElse(LoopEndReason.TASK_COMPLETION), text));
        }
        return new Succeeded(call, result, text);
    }

    private static void logIfSlow(ToolCall call, long started) {
        long nanos = System.nanoTime() - started;
        if (nanos >= SLOW.toNanos()) {
            LOG.log(System.Logger.Level.DEBUG, () -> "tool " + call.serverName() + "/" + call.toolName() + " took "
                    + nanos / 1_000_000 + " ms");
        }
    }

    /**
     * {@code tool X failed: Type: message}. Only the type and message: a stack trace means
     * nothing to the model, and causes may carry what must not leave the process (keys, paths).
     */
    static String failure(ToolCall call, Exception e) {
        String type = e.getClass().getSimpleName().isEmpty() ? e.getClass().getName() : e.getClass().getSimpleName();
        String message = e.getMessage();
        return "tool " + call.toolName() + " failed: " + type
                + (message == null || message.isBlank() ? "" : ": " + message);
    }
}
