package dev.bellows.provider;

/**
 * Tokens a call used, as the API reported them.
 *
 * @param inputTokens  tokens of the prompt
 * @param outputTokens tokens of the answer (reasoning included where the API counts it there)
 */
public record TokenUsage(long inputTokens, long outputTokens) {

    public TokenUsage {
        if (inputTokens < 0 || outputTokens < 0) {
            throw new IllegalArgumentException("token counts cannot be negative");
        }
    }

    public long totalTokens() {
        return inputTokens + outputTokens;
    }
}
