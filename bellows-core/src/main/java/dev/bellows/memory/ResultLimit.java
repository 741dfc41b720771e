package dev.bellows.memory;

import dev.bellows.memory.EstimatingTokenCounter;
import dev.bellows.memory.TokenCounter;
import java.util.Objects;

/**
 * The most a tool result may cost the model: a result longer than {@code maxTokens} reaches it
 * cut, its beginning kept, with a note saying how much was left out, so that one enormous
 * result (a 20 MB file, a database dump) neither floods the context nor every later request.
 * 25,000 tokens by default, the limit common MCP clients use. A tool's error message is cut the
 * same way. The note counts what was cut of the result as the tool sent it, including what a
 * transport already cut as it arrived (see {@link #arrivalNote(long)}): the model always learns
 * that it read part of a result, and how large a part.
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

    /**
     * {@code text} if it fits, else its beginning and a note on what was cut. The note counts
     * what {@linkplain #arrivalNote(long) arrival notes} in the text say was cut before: the
     * characters left out and the total are those of the result as the tool sent it, not of the
     * part that arrived (a 50 MB MCP result cut to 2,000,000 characters as it arrived is said
     * to have had 50 million).
     */
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
        // What the tool sent: the text without its arrival notes, plus what those notes say they replaced.
        long notesChars = 0;
        long cutOnArrival = 0;
        long notesCharsKept = 0;
        for (ArrivalNote note = ArrivalNote.next(text, 0); note != null; note = ArrivalNote.next(text, note.end())) {
            if (note.start() < keep && keep < note.end()) {
                keep = note.start(); // never half a note: the note of this cut says it all
            }
            notesChars += note.length();
            cutOnArrival = Math.min(Long.MAX_VALUE / 4, cutOnArrival + note.replaced()); // at most 18 digits each
            if (note.end() <= keep) {
                notesCharsKept += note.length();
            }
        }
        long sent = text.length() - notesChars + cutOnArrival;
        long sentKept = keep - notesCharsKept;
        long sentTokens = sent == text.length() ? tokens : (long) ((double) tokens * sent / text.length());
        return text.substring(0, keep) + note(sent - sentKept, sent, sentTokens, maxTokens);
    }

    /**
     * The note that replaces the rest of a text cut as it arrived, before the whole result was
     * read ({@code "... [48000000 more characters cut by Bellows as they arrived]"}): an MCP
     * server's transport cuts each text of a huge message to a bound as the bytes come in, so
     * that the message is never held whole. {@link #apply} counts the characters such a note
     * says it replaced, so that the note of a cut that drops it still says how much of what
     * the tool sent was left out.
     *
     * @param charactersLeftOut how many characters of the text were dropped, at least 0
     */
    public static String arrivalNote(long charactersLeftOut) {
        if (charactersLeftOut < 0) {
            throw new IllegalArgumentException("charactersLeftOut must be at least 0, got " + charactersLeftOut);
        }
        return ARRIVAL_START + charactersLeftOut + ARRIVAL_END;
    }

    /**
     * The first {@code keepChars} characters of {@code text} (fewer, not to split a character or
     * an arrival note), then an {@linkplain #arrivalNote(long) arrival note} for the rest: for a
     * transport or a store that must bound a text before the loop's limit sees it. The note
     * counts what the arrival notes in the dropped part said they replaced, so that
     * {@link #apply} still tells the model how much the tool sent.
     *
     * @param keepChars at least 0; {@code text} is returned as it is when it is no longer
     */
    public static String cutAsArrived(String text, int keepChars) {
        if (keepChars < 0) {
            throw new IllegalArgumentException("keepChars must be at least 0, got " + keepChars);
        }
        if (text.length() <= keepChars) {
            return text;
        }
        int keep = boundary(text, keepChars);
        for (ArrivalNote note = ArrivalNote.next(text, 0); note != null && note.start() < keep;
                note = ArrivalNote.next(text, note.end())) {
            if (keep < note.end()) {
                keep = note.start();             // never half a note
                break;
            }
        }
        long leftOut = text.length() - keep;     // the notes dropped: what they replaced, not their words
        for (ArrivalNote note = ArrivalNote.next(text, keep); note != null; note = ArrivalNote.next(text, note.end())) {
            leftOut = Math.min(Long.MAX_VALUE / 4, leftOut - note.length() + note.replaced());
        }
        return text.substring(0, keep) + arrivalNote(leftOut);
    }

    private static final String ARRIVAL_START = "... [";
    private static final String ARRIVAL_END = " more characters cut by Bellows as they arrived]";

    /** An arrival note found in a text: its place and how many characters it says it replaced. */
    private record ArrivalNote(int start, int end, long replaced) {

        /** The first arrival note whose closing words begin at {@code from} or after; null when none. */
        static ArrivalNote next(String text, int from) {
            for (int at = from; ; ) {
                int words = text.indexOf(ARRIVAL_END, at);
                if (words < 0) {
                    return null;
                }
                int end = words + ARRIVAL_END.length();
                int digits = words;
                while (digits > 0 && words - digits < 18 && text.charAt(digits - 1) >= '0'
                        && text.charAt(digits - 1) <= '9') {
                    digits--;
                }
                if (digits < words && digits >= ARRIVAL_START.length()
                        && text.startsWith(ARRIVAL_START, digits - ARRIVAL_START.length())) {
                    return new ArrivalNote(digits - ARRIVAL_START.length(), end,
                            Long.parseLong(text, digits, words, 10));
                }
                at = end;   // the words without a number before them: text of the result's own
            }
        }

        int length() {
            return end - start;
        }
    }

    /** Not inside a surrogate pair. */
    private static int boundary(String text, int at) {
        return at > 0 && at < text.length() && Character.isLowSurrogate(text.charAt(at)) ? at - 1 : at;
    }

    static String note(long cut, long length, long tokens, int limit) {
        return String.format(java.util.Locale.ROOT, "%n%n[this result was cut: %,d of its %,d characters (about %,d tokens in all) were left"
                + " out to keep it within %,d tokens; ask for a smaller part if you need more]", cut, length, tokens, limit);
    }
}
