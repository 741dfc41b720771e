package dev.bellows.memory;

import java.util.Objects;

/**
 * A token count estimated from the characters of a text, for when no tokenizer for the model
 * is at hand. It is built on what the BPE tokenizers of current models (o200k_base,
 * cl100k_base, Claude's, Llama's) do on average, weighing each code point:
 * <ul>
 *   <li>an ASCII character: 1/4 token (English prose and code run at about four characters a
 *       token);</li>
 *   <li>a Chinese, Japanese or Korean character (Han, Hiragana, Katakana, Hangul, CJK
 *       punctuation and full-width forms): 1 token;</li>
 *   <li>any other character of the Basic Multilingual Plane (accented Latin, Greek, Cyrillic,
 *       Arabic, Hebrew, Indic scripts, symbols): 1/2 token;</li>
 *   <li>a character beyond it (emoji and other supplementary characters, except Han): 2
 *       tokens.</li>
 * </ul>
 * The weights are summed and rounded up, so the empty text costs 0 and any other text at least
 * 1. Examples: {@code "Hello, world!"} (13 ASCII characters) is 4 tokens; {@code "你好世界"}
 * is 4; {@code "Привет"} is 3; {@code "🙂"} is 2.
 *
 * <p>It errs on neither side on purpose: real counts for English prose are usually within
 * about 20% of it, while text made of long runs of one character (whitespace indentation,
 * separator lines) costs real tokenizers less than estimated. When the budget is tight,
 * leave headroom or plug in a real tokenizer (see {@link TokenCounter}).
 *
 * <p>The count is linear in the text's length, needs no memory, and never decreases when text
 * is appended. Instances hold no state and are safe to share.
 */
public final class EstimatingTokenCounter implements TokenCounter {

    // Weights in quarter tokens.
    private static final int ASCII = 1;
    private static final int OTHER_BMP = 2;
    private static final int CJK = 4;
    private static final int SUPPLEMENTARY = 8;

    public EstimatingTokenCounter() {
    }

    @Override
    public int count(String text) {
        Objects.requireNonNull(text, "text");
        long quarters = 0;
        for (int i = 0; i < text.length(); ) {
            int codePoint = text.codePointAt(i);
            quarters += weight(codePoint);
            i += Character.charCount(codePoint);
        }
        long tokens = (quarters + 3) / 4;
        return (int) Math.min(tokens, Integer.MAX_VALUE);
    }

    private static int weight(int codePoint) {
        if (codePoint < 0x80) {
            return ASCII;
        }
        if (isCjk(codePoint)) {
            return CJK;
        }
        return Character.isSupplementaryCodePoint(codePoint) ? SUPPLEMENTARY : OTHER_BMP;
    }

    private static boolean isCjk(int codePoint) {
        Character.UnicodeScript script = Character.UnicodeScript.of(codePoint);
        if (script == Character.UnicodeScript.HAN || script == Character.UnicodeScript.HIRAGANA
                || script == Character.UnicodeScript.KATAKANA || script == Character.UnicodeScript.HANGUL
                || script == Character.UnicodeScript.BOPOMOFO) {
            return true;
        }
        // CJK symbols and punctuation (、。「」), and the full-width forms (，！Ａ).
        return (codePoint >= 0x3000 && codePoint <= 0x303F) || (codePoint >= 0xFF00 && codePoint <= 0xFFEF);
    }

    @Override
    public String toString() {
        return "EstimatingTokenCounter";
    }
}
