package dev.bellows.format;

import dev.bellows.format.ToolCallOutcome.Failed;
import dev.bellows.format.ToolCallOutcome.Succeeded;
import dev.bellows.tool.Media;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * What a {@link ToolChain} batch produced.
 *
 * @param text     the observation for the model, formatted by the chain's {@link TextFormat}:
 *                 every call's section inside an {@code observation} section; empty when
 *                 there were no calls
 * @param media    the media of all successful results, in call order, to send with the text
 * @param outcomes one outcome per call, in call order
 */
public record ToolChainResult(String text, List<Media> media, List<ToolCallOutcome> outcomes) {

    public ToolChainResult {
        Objects.requireNonNull(text, "text");
        media = List.copyOf(Objects.requireNonNull(media, "media"));
        outcomes = List.copyOf(Objects.requireNonNull(outcomes, "outcomes"));
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

    /**
     * The first successful call of a {@linkplain dev.bellows.tool.Tool#loopBreaking() loop-breaking}
     * tool, whose output ends the agent loop.
     */
    public Optional<Succeeded> loopBreaking() {
        for (ToolCallOutcome outcome : outcomes) {
            if (outcome instanceof Succeeded s && s.tool().loopBreaking()) {
                return Optional.of(s);
            }
        }
        return Optional.empty();
    }
}
