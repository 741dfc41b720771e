package dev.bellows.stream.internal;


/**
 * The arguments of a tool block in the stream contract's forms, while the block streams: the
 * same preamble as the early name (leading whitespace, one Markdown fence line), then the first
 * character chooses the form: {@code {} a JSON call ({@link JsonArgumentScanner#forCall}),
 * {@code <} XML elements ({@link XmlArgumentScanner}). Anything else has no arguments to report.
 */
final class ToolArgumentSniffer implements ArgumentReader {

    private static final int LEADING_WHITESPACE = 0;
    private static final int FENCE_TICKS = 1;
    private static final int FENCE_LINE = 2;
    private static final int AFTER_FENCE = 3;
    private static final int BODY = 4;
    private static final int DONE = 5;

    private final Sink sink;
    private int state = LEADING_WHITESPACE;
    private int backticks;
    private ArgumentReader body;

    ToolArgumentSniffer(Sink sink) {
        this.sink = sink;
    }

    @Override
    public void feed(CharSequence text, int from, int to) {
        int i = from;
        while (i < to && state < BODY) {
            char c = text.charAt(i);
            switch (state) {
                case LEADING_WHITESPACE -> {
                    if (c == '`') {
                        backticks = 1;
                        state = FENCE_TICKS;
                    } else if (!ContentText.isWhitespace(c)) {
                        start(c);
                        continue; // the body reads this character itself
                    }
                }
                case FENCE_TICKS -> {
                    if (c != '`') {
                        state = DONE;
                    } else if (++backticks == 3) {
                        state = FENCE_LINE;
                    }
                }
                case FENCE_LINE -> {
                    if (c == '\n') {
                        state = AFTER_FENCE;
                    }
                }
                default -> { // AFTER_FENCE
                    if (!ContentText.isWhitespace(c)) {
                        start(c);
                        continue;
                    }
                }
            }
            i++;
        }
        if (state == BODY && i < to) {
            body.feed(text, i, to);
        }
    }

    private void start(char c) {
        if (c == '{') {
            body = JsonArgumentScanner.forCall(sink);
            state = BODY;
        } else if (c == '<') {
            body = new XmlArgumentScanner(sink);
            state = BODY;
        } else {
            state = DONE;
        }
    }
}
