package dev.bellows.format;

import java.util.List;
import java.util.Map;

/**
 * {@link MarkdownFormat}'s reader: a section starts at a complete heading line and ends at the
 * next one or at the end of the text. A line is only known to be a heading once its newline
 * arrives, and only a line starting with {@code #} can be one, so content is passed on as it
 * comes except for such a line, which is held until its end.
 */
final class MarkdownSectionReader implements SectionReader {

    private final MarkdownFormat format;
    private final SectionSet expected;
    private final SectionListener listener;
    private final SectionCollector collector = new SectionCollector();
    private final StringBuilder text = new StringBuilder();
    private String current;         // the open section's key, or null before the first heading
    private int contentStart;       // where the open section's content starts
    private int lineStart;          // the start of the line not yet complete
    private int passedOn;           // content before this was given to the listener
    private boolean finished;

    MarkdownSectionReader(MarkdownFormat format, SectionSet expected, SectionListener listener) {
        this.format = format;
        this.expected = expected;
        this.listener = listener;
    }

    @Override
    public void append(CharSequence more) {
        if (finished) {
            throw new IllegalStateException("the reader has finished");
        }
        int from = text.length();
        text.append(more);
        for (int i = from; i < text.length(); i++) {
            if (text.charAt(i) == '\n') {
                line(i);
                lineStart = i + 1;
            }
        }
        // The incomplete last line: content now, unless it may still become a heading.
        if (current != null && lineStart < text.length() && text.charAt(lineStart) != '#') {
            passOn(text.length());
        }
    }

    @Override
    public Map<String, List<String>> finish() throws TextFormatException {
        if (!finished) {
            finished = true;
            line(text.length());
            close(text.length());
        }
        return collector.result(format, expected, MarkdownFormat.HOW_TO_WRITE);
    }

    /** A complete line {@code [lineStart, end)}: a heading starts a section, other text is content. */
    private void line(int end) {
        String key = MarkdownFormat.headingKey(text, lineStart, end, expected);
        if (key == null) {
            if (current != null) {
                passOn(Math.min(end + 1, text.length()));
            }
            return;
        }
        close(lineStart);
        current = key;
        contentStart = Math.min(end + 1, text.length());
        passedOn = contentStart;
        listener.opened(key);
    }

    private void close(int end) {
        if (current == null) {
            return;
        }
        passOn(end);
        String content = collector.add(current, text.subSequence(contentStart, end));
        if (content != null) {
            listener.completed(current, content);
        }
        current = null;
    }

    private void passOn(int end) {
        if (end > passedOn) {
            listener.content(current, text.subSequence(passedOn, end));
            passedOn = end;
        }
    }
}
