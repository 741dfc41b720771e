package dev.bellows.memory;

/**
 * Counts the tokens a text costs in a model's context window, for {@link ConversationMemory}'s
 * token limit.
 *
 * <p>Core ships {@link EstimatingTokenCounter}, a documented estimate that needs no library. A
 * real tokenizer plugs in through this interface: for OpenAI models, the o200k_base encoding
 * (GPT-4o and later) or cl100k_base (GPT-4, GPT-3.5), for instance with JTokkit
 * ({@code com.knuddels:jtokkit}, added by the module that wants it, never by core):
 *
 * <pre>{@code
 * Encoding o200k = Encodings.newDefaultEncodingRegistry().getEncoding(EncodingType.O200K_BASE);
 * ConversationMemory memory = ConversationMemory.builder()
 *         .maxTokens(100_000)
 *         .tokenCounter(o200k::countTokens)
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
