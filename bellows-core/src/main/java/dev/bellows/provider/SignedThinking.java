package dev.bellows.provider;

import java.util.Objects;

/**
 * A thinking block as a model with extended thinking returned it (Anthropic): its text and
 * signature, or, for a redacted block, only its encrypted data. The API requires the blocks
 * of the turn that made tool calls back unchanged, so they are kept with the assistant's message.
 *
 * @param thinking     the block's text; empty for a redacted block
 * @param signature    the block's signature; null for a redacted block
 * @param redactedData the encrypted data of a redacted block; null otherwise
 */
public record SignedThinking(String thinking, String signature, String redactedData) {

    public SignedThinking {
        Objects.requireNonNull(thinking, "thinking");
        if ((signature == null) == (redactedData == null)) {
            throw new IllegalArgumentException("a thinking block has either a signature or redacted data");
        }
    }

    public static SignedThinking signed(String thinking, String signature) {
        return new SignedThinking(thinking, Objects.requireNonNull(signature, "signature"), null);
    }

    public static SignedThinking redacted(String data) {
        return new SignedThinking("", null, Objects.requireNonNull(data, "data"));
    }

    public boolean isRedacted() {
        return redactedData != null;
    }
}
