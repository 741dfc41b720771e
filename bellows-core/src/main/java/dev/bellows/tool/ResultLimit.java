package dev.bellows.tool;

import dev.bellows.memory.EstimatingTokenCounter;
import dev.bellows.memory.TokenCounter;
import java.util.Objects;

/**
 * The most a tool result may cost the model: a result longer than {@code maxTokens} reaches it
 * cut, its beginning kept, with a note saying how much was left out, so that one enormous
 * result (a 20 MB file, a database dump) neither floods the context nor every later request.
 * 25,000 tokens by default, the limit common MCP clients use.
 *
 * <p>A text of at most {@code maxTokens} characters is never counted (no token is shorter than
 * a character), so results of ordinary size cost nothing. Immutable and thread-safe when the
 * counter is.
 *
 * @param maxTokens at least 1; {@link Integer#MAX_VALUE} for no limit
 * @param counter   how tokens are counted (the model's tokenizer, or the estimate)
 */
public record ResultLimit(int maxTokens, TokenCounter counter) {

    /** The default limit, in tokens. */
    public static final int DEFAULT_MAX_TOKENS = 25_000;

    /** {@value #DEFAULT_MAX_TOKENS} tokens, estimated. */
    public static final ResultLimit DEFAULT = new ResultLimit(DEFAULT_MAX_TOKENS, new EstimatingTokenCounter());

    /** No limit. */
    public static final ResultLimit NONE = new ResultLimit(Integer.MAX_VALUE, new EstimatingTokenCounter());

    public ResultLimit {
        if (maxTokens < 1) {
            throw new IllegalArgumentException("maxTokens must be at least 1, got " + maxTokens);
        }
        Objects.requireNonNull(counter, "counter");
    }

    /** {@code text} if it fits, else its beginning and a note on what was cut. */
    public String apply(String text) {
        if (text == null || text.length() <= maxTokens || maxTokens == Integer.MAX_VALUE) {
            return text;
        }
        int tokens = counter.count(text);
        if (tokens <= maxTokens) {
            return text;
        }
        // Room for the note, then as many characters as the text's own ratio says fit; checked, shrunk if need be.
        int room = Math.max(1, maxTokens - 80);
        int keep = (int) Math.min(text.length() - 1L, (long) ((double) text.length() * room / tokens));
        for (int attempt = 0; attempt < 8; attempt++) {
            keep = boundary(text, keep);
            if (counter.count(text.substring(0, keep)) <= room) {
                break;
            }
            keep = keep * 9 / 10;
        }
        return text.substring(0, keep) + note(text.length() - keep, text.length(), tokens, maxTokens);
    }

    /** Not inside a surrogate pair. */
    private static int boundary(String text, int at) {
        return at > 0 && at < text.length() && Character.isLowSurrogate(text.charAt(at)) ? at - 1 : at;
    }

    static String note(int cut, int length, int tokens, int limit) {
        return String.format("%n%n[this result was cut: %,d of its %,d characters (about %,d tokens in all) were left"
                + " out to keep it within %,d tokens; ask for a smaller part if you need more]", cut, length, tokens, limit);
    }
}
