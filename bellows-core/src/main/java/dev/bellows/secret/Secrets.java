package dev.bellows.secret;

import java.util.Arrays;
import java.util.Collection;
import java.util.Comparator;

/**
 * The secret values this process was given (API keys, MCP {@code headers} and {@code env}
 * values, database passwords, bearer and OAuth tokens), each registered once, and
 * {@link #redact} to replace every one of them by {@code [REDACTED]} in text that leaves the
 * process: output, log lines, observations sent to a model, stored sessions, traces.
 *
 * <p>Whoever learns a secret registers it at once, before it can be echoed: Bellows' own
 * parts do (an {@link dev.bellows.provider.ApiKey}, an MCP server's configuration, the
 * command line's database URL); code that obtains one later (an access token from an OAuth
 * flow, a refreshed token, a server's bearer token) calls {@link #register(String)} with it
 * as soon as it holds it. Whoever writes text out of the process passes it through
 * {@link #redact(String)}. Registering is forever: a rotated token may still come back in an
 * old error message.
 *
 * <p>Values shorter than {@link #MIN_LENGTH} characters, after stripping, are not registered:
 * replacing a word like {@code true} everywhere would garble ordinary text while protecting
 * nothing a guess would not find. An {@code Authorization}-style value with a scheme
 * ({@code Bearer abc...}) is registered whole and its credential alone too, since servers echo
 * either.
 *
 * <p>Thread-safe. {@link #redact} takes no lock and costs one scan per registered value; with
 * none registered it returns its argument at once.
 */
public final class Secrets {

    /** What a secret is replaced by. */
    public static final String REDACTED = "[REDACTED]";

    /** The shortest value registered. */
    public static final int MIN_LENGTH = 6;

    private static final Object LOCK = new Object();

    /** The registered values, longest first (a value inside a longer one is replaced with it). */
    private static volatile String[] values = new String[0];

    private Secrets() {
    }

    /** Registers {@code value} (null, blank and short values are ignored; see the class comment). */
    public static void register(String value) {
        if (value == null) {
            return;
        }
        String stripped = value.strip();
        add(stripped);
        int space = stripped.indexOf(' ');
        if (space > 0 && stripped.substring(0, space).chars().allMatch(Character::isLetter)) {
            add(stripped.substring(space + 1).strip()); // "Bearer TOKEN", "Basic CREDENTIALS"
        }
    }

    /** Registers each of {@code secrets}. */
    public static void register(Collection<String> secrets) {
        secrets.forEach(Secrets::register);
    }

    private static void add(String value) {
        if (value.length() < MIN_LENGTH) {
            return;
        }
        synchronized (LOCK) {
            String[] now = values;
            if (Arrays.asList(now).contains(value)) {
                return;
            }
            String[] next = Arrays.copyOf(now, now.length + 1);
            next[now.length] = value;
            Arrays.sort(next, Comparator.comparingInt(String::length).reversed());
            values = next;
        }
    }

    /** {@code text} with every registered value replaced by {@link #REDACTED}; null stays null. */
    public static String redact(String text) {
        String[] now = values;
        if (text == null || now.length == 0) {
            return text;
        }
        String out = text;
        for (String value : now) {
            if (out.contains(value)) {
                out = out.replace(value, REDACTED);
            }
        }
        return out;
    }

    /**
     * A redactor for text that arrives in pieces (a streamed answer shown as it comes), where a
     * secret may be split between two pieces: {@link Streaming#next} holds back the end of a
     * piece while it could be the start of a secret, and {@link Streaming#flush} gives it up
     * when the text ends. Nothing is held back while no secret is registered. Not thread-safe:
     * one per stream.
     */
    public static Streaming streaming() {
        return new Streaming();
    }

    /** See {@link #streaming()}. */
    public static final class Streaming {

        private final StringBuilder pending = new StringBuilder();

        private Streaming() {
        }

        /** What of the text so far can be shown now, redacted; the rest waits for the next piece or {@link #flush}. */
        public String next(String piece) {
            String[] now = values;
            if (now.length == 0 && pending.isEmpty()) {
                return piece;
            }
            pending.append(piece);
            String text = redact(pending.toString());
            int keep = 0;
            for (String value : now) {
                for (int length = Math.min(value.length() - 1, text.length()); length > keep; length--) {
                    if (text.regionMatches(text.length() - length, value, 0, length)) {
                        keep = length;
                        break;
                    }
                }
            }
            pending.setLength(0);
            pending.append(text, text.length() - keep, text.length());
            return text.substring(0, text.length() - keep);
        }

        /** The text held back, redacted: the stream ended. */
        public String flush() {
            String rest = redact(pending.toString());
            pending.setLength(0);
            return rest;
        }
    }

    /** Whether {@code text} holds a registered value. */
    public static boolean appearIn(String text) {
        if (text == null) {
            return false;
        }
        for (String value : values) {
            if (text.contains(value)) {
                return true;
            }
        }
        return false;
    }
}
