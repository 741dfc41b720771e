package dev.bellows.stream.internal;

import java.util.Objects;

/**
 * Finds the called tool's name in the content of one tool block while it streams, so the
 * processor can emit {@code tool_call_name} long before the block closes (stream contract,
 * "Early tool-name detection").
 *
 * <p>The processor feeds every character of the block's content exactly once, in order,
 * in pieces cut anywhere. This class handles the preamble the spec allows before the body
 * (leading whitespace, one Markdown fence line) and then hands each character to the
 * scanner of the form the first non-whitespace character chose: {@link JsonNameScanner}
 * for {@code {}, {@link XmlNameScanner} for {@code <}. Nothing is ever scanned twice and
 * only the name candidate is buffered, so a long argument costs the same per character as
 * a short one; after the outcome is known ({@link #isDone()}) feeding costs nothing.
 */
final class ToolNameSniffer implements NameSniffer {

    /** Where the sniffer is in the block's content. */
    private enum State {
        /** Before the first non-whitespace character. */
        LEADING_WHITESPACE,
        /** Inside a run of backticks at the start; {@link #backticks} counts them. */
        FENCE_TICKS,
        /** On the fence's first line, which is dropped up to and including its {@code \n}. */
        FENCE_LINE,
        /** Between the fence line and the body's first non-whitespace character. */
        AFTER_FENCE,
        /** In the body; {@link #body} decides. */
        BODY,
        /** Outcome decided: the name was reported, or it can no longer be found. */
        DONE
    }

    /** What one character did to a body scanner. */
    enum Step {
        /** Not decided yet. */
        MORE,
        /** The name is complete: {@link BodyScanner#name()} returns it. */
        FOUND,
        /** The name can no longer be found in this block. */
        NONE
    }

    /** A scanner for one form of tool-call body; one instance per block. */
    sealed interface BodyScanner permits JsonNameScanner, XmlNameScanner {

        Step accept(char c);

        /** The decoded name, once {@link #accept} returned {@link Step#FOUND}. */
        String name();
    }

    private static final int FENCE_LENGTH = 3;

    private State state;
    private int backticks;
    private BodyScanner body;

    ToolNameSniffer() {
        reset();
    }

    /** Forget everything: a new tool block starts. */
    void reset() {
        state = State.LEADING_WHITESPACE;
        backticks = 0;
        body = null;
    }

    /**
     * Scans {@code text[from, to)}. Returns the tool name if it became known within this
     * range (at most once per block), else {@code null}.
     */
    @Override
    public String feed(CharSequence text, int from, int to) {
        Objects.checkFromToIndex(from, to, text.length());
        for (int i = from; i < to && state != State.DONE; i++) {
            String name = accept(text.charAt(i));
            if (name != null) {
                return name;
            }
        }
        return null;
    }

    /** True once the outcome is decided (name found, or it can no longer be found): feed() may then be skipped. */
    @Override
    public boolean isDone() {
        return state == State.DONE;
    }

    /** Takes one character; returns the name if this character completed it. */
    private String accept(char c) {
        switch (state) {
            case LEADING_WHITESPACE -> {
                if (c == '`') {
                    backticks = 1;
                    state = State.FENCE_TICKS;
                } else if (!isWhitespace(c)) {
                    startBody(c);
                }
            }
            case FENCE_TICKS -> {
                if (c != '`') {
                    // Fewer than three backticks is no fence, and a backtick starts neither form.
                    finish();
                } else if (++backticks == FENCE_LENGTH) {
                    state = State.FENCE_LINE;
                }
            }
            case FENCE_LINE -> {
                // The info string (```json) and anything else on the line is dropped.
                if (c == '\n') {
                    state = State.AFTER_FENCE;
                }
            }
            case AFTER_FENCE -> {
                // Only one fence line is skipped: a second fence starts neither form.
                if (!isWhitespace(c)) {
                    startBody(c);
                }
            }
            case BODY -> {
                switch (body.accept(c)) {
                    case MORE -> { }
                    case FOUND -> {
                        String name = body.name();
                        finish();
                        return name;
                    }
                    case NONE -> finish();
                }
            }
            case DONE -> { }
        }
        return null;
    }

    /** The first non-whitespace character of the body chooses its form. */
    private void startBody(char c) {
        if (c == '{') {
            body = new JsonNameScanner();
            state = State.BODY;
        } else if (c == '<') {
            body = new XmlNameScanner();
            state = State.BODY;
            // The '<' may be the start of "<tool_name>", so the XML scanner sees it too.
            body.accept(c);
        } else {
            finish();
        }
    }

    private void finish() {
        state = State.DONE;
        body = null; // the candidate buffer is garbage now
    }

    /** Whitespace as the stream contract defines it: space, tab, CR, LF. */
    static boolean isWhitespace(char c) {
        return c == ' ' || c == '\t' || c == '\r' || c == '\n';
    }
}
