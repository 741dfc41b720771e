package dev.bellows.memory;

/**
 * Counts the tokens a text costs in a model's context window, for {@link ConversationMemory}'s
 * token limit.
 *
 * <p>Core ships {@link EstimatingTokenCounter}, a documented estimate that needs no library.
 * Real tokenizers live outside core, which depends on Jackson only: the
 * {@code bellows-tokenizers} module's {@code TokenCounters.forModel(model)} gives the exact
 * counter for OpenAI models (o200k_base for GPT-4o and later, cl100k_base for GPT-4 and
 * GPT-3.5, through JTokkit) and this estimate for the others:
 *
 * <pre>{@code
 * ConversationMemory memory = ConversationMemory.builder()
 *         .maxTokens(100_000)
 *         .tokenCounter(TokenCounters.forModel("gpt-4o-mini"))
 *         .build();
 * }</pre>
 *
 * <p>An implementation must be thread-safe when the memory is shared between threads, return 0
 * for the empty text and never a negative count, and give the same count for the same text
 * every time (counts are cached per message).
 */
@FunctionalInterface
public interface TokenCounter {

    /** The number of tokens {@code text} costs. */
    int count(String text);
}
