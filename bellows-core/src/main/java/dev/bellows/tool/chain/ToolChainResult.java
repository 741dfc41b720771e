package dev.bellows.tool.chain;

import dev.bellows.tool.Media;
import dev.bellows.tool.ToolCallOutcome.Failed;
import dev.bellows.tool.ToolCallOutcome.Succeeded;
import dev.bellows.tool.ToolCallOutcome;
import dev.bellows.tool.ToolEffect;
import dev.bellows.tool.chain.ToolChain;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * What a {@link ToolChain} batch produced: one outcome per call, in call order. The
 * observation the model reads is written from the outcomes by a text format
 * ({@code dev.bellows.format.Observation}).
 *
 * @param outcomes one outcome per call, in call order
 */
public record ToolChainResult(List<ToolCallOutcome> outcomes) {

    public ToolChainResult {
        outcomes = List.copyOf(Objects.requireNonNull(outcomes, "outcomes"));
    }

    /** The media of all successful results, in call order, to send with the observation. */
    public List<Media> media() {
        List<Media> media = List.of();
        for (ToolCallOutcome outcome : outcomes) {
            if (outcome instanceof Succeeded s && !s.result().media().isEmpty()) {
                if (media.isEmpty()) {
                    media = new ArrayList<>();
                }
                media.addAll(s.result().media());
            }
        }
        return media;
    }

    /** The calls that ran and returned, in call order. */
    public List<Succeeded> succeeded() {
        return outcomes.stream().filter(Succeeded.class::isInstance).map(Succeeded.class::cast).toList();
    }

    /** The calls that failed, in call order. */
    public List<Failed> failed() {
        return outcomes.stream().filter(Failed.class::isInstance).map(Failed.class::cast).toList();
    }

    /** True when any call failed (an error the model was shown). */
    public boolean hasFailures() {
        return outcomes.stream().anyMatch(Failed.class::isInstance);
    }

    /** The effect of the first successful call that ends the run ({@link ToolEffect.EndRun}), if any. */
    public Optional<ToolEffect.EndRun> endingRun() {
        for (ToolCallOutcome outcome : outcomes) {
            if (outcome instanceof Succeeded s && s.effect() instanceof ToolEffect.EndRun end) {
                return Optional.of(end);
            }
        }
        return Optional.empty();
    }

    /**
     * The effect of the first successful call that hands the conversation to another agent
     * ({@link ToolEffect.HandOff}), if any.
     */
    public Optional<ToolEffect.HandOff> handingOff() {
        for (ToolCallOutcome outcome : outcomes) {
            if (outcome instanceof Succeeded s && s.effect() instanceof ToolEffect.HandOff handOff) {
                return Optional.of(handOff);
            }
        }
        return Optional.empty();
    }
}
