package dev.bellows.tool;

import dev.bellows.tool.LoopEndReason;
import dev.bellows.plan.Plan;
import dev.bellows.tool.chain.ToolChain;
import java.util.List;
import java.util.Objects;

/**
 * What a tool returns: its raw, typed output (formatting it for the model is the
 * {@link ToolChain}'s job, not the tool's), any media it produced, such as images, and its
 * {@linkplain ToolEffect effect} on the agent loop.
 *
 * <pre>{@code
 * return ToolResult.of(new Forecast("Lisbon", 21));                       // output only
 * return ToolResult.of("chart attached", Media.image(png, "image/png"));  // with media
 * return ToolResult.endingRun(LoopEndReason.TASK_COMPLETION, answer);    // ends the run
 * }</pre>
 *
 * @param output the raw output: a record, a collection, a string, or {@code null} for none
 * @param media  images and other binary parts, in order
 * @param effect what the result does to the loop; {@link ToolEffect#NONE} for most tools
 * @param <O>    the output's type
 */
public record ToolResult<O>(O output, List<Media> media, ToolEffect effect) {

    public ToolResult {
        media = List.copyOf(Objects.requireNonNull(media, "media"));
        Objects.requireNonNull(effect, "effect");
    }

    /** A result without effect on the loop. */
    public ToolResult(O output, List<Media> media) {
        this(output, media, ToolEffect.NONE);
    }

    /** A result with output only. */
    public static <O> ToolResult<O> of(O output) {
        return new ToolResult<>(output, List.of(), ToolEffect.NONE);
    }

    /** A result with output and media. */
    public static <O> ToolResult<O> of(O output, Media... media) {
        return new ToolResult<>(output, List.of(media), ToolEffect.NONE);
    }

    /**
     * A result that ends the run: its output is {@code result}, the answer the run ends with.
     *
     * @param reason {@code task_completion}, {@code ask_question} or {@code converse}
     * @throws IllegalArgumentException for another reason
     */
    public static ToolResult<String> endingRun(LoopEndReason reason, String result) {
        return new ToolResult<>(result, List.of(), new ToolEffect.EndRun(reason, result));
    }

    /** A result that replaces the plan; its output is the plan. */
    public static ToolResult<Plan> replacingPlan(Plan plan) {
        return new ToolResult<>(plan, List.of(), new ToolEffect.ReplacePlan(plan));
    }

    /** This result with another effect. */
    public ToolResult<O> withEffect(ToolEffect effect) {
        return new ToolResult<>(output, media, effect);
    }
}
