package dev.bellows.eval;

import dev.bellows.provider.Provider;
import java.util.Objects;

/**
 * The model a {@code judge} expectation asks: any {@link Provider} and the model's name. Its
 * calls go to the provider directly, never through the agent under test, so they count in
 * none of the subject's figures (iterations, tokens, events, duration).
 */
public record JudgeModel(Provider provider, String model) {

    public JudgeModel {
        Objects.requireNonNull(provider, "provider");
        Objects.requireNonNull(model, "model");
    }
}
