package dev.bellows.format;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Finds the {@code <name>...</name>} sections of a text in one pass.
 *
 * <p>A close tag pairs with the nearest unused open tag of the same name before it (a stack per
 * name), so a model that mentions {@code <answer>} inside its thinking and then writes the real
 * {@code <answer>...</answer>} gets the real one, and same-name nesting pairs inner with inner.
 * A close tag with no open tag left is ignored. An open tag never closed is ignored too, except
 * when it is the last tag of the text: then its section runs to the end, because an answer cut
 * by a stop sequence or a token limit usually loses just its final close tag.
 *
 * <p>Tags are {@code <name>} and {@code </name>}, optionally with spaces or tabs before
 * {@code >}; anything else (attributes, {@code <name/>}, {@code a < b}) is text. Each character
 * is looked at a bounded number of times, so the scan is linear.
 *
 * <p>It reads as the text streams: a section is complete when its close tag arrives (the
 * pairing is final then) or, for the trailing open tag, at the end. Text is passed on as
 * content of the section opened last once it is known not to be part of a tag; a {@code <}
 * whose tag is undecided at the end of the text so far waits for more.
 */
final class XmlSectionScanner implements SectionReader {

    /** An open tag: where its content starts, and ends once its close tag is found (-1 until then). */
    private static final class Slot {
        final String key;
        final int contentStart;
        int contentEnd = -1;

        Slot(String key, int contentStart) {
            this.key = key;
            this.contentStart = contentStart;
        }
    }

    /** {@link #tag} could not decide: the text so far ends inside what may be a tag. */
    private static final int UNDECIDED = -1;

    private final XmlFormat format;
    private final SectionSet expected;
    private final SectionListener listener;
    private final StringBuilder text = new StringBuilder();
    // Slots in order of their open tags, so sections come out in order of appearance.
    private final List<Slot> slots = new ArrayList<>();
    private final Map<String, Deque<Slot>> unclosed = new HashMap<>();
    private final Deque<Slot> openOrder = new ArrayDeque<>();   // unclosed slots, last opened on top
    private Slot lastTagOpened;
    private int next;               // where to look for the next '<'
    private int passedOn;           // content before this was given to the listener
    private boolean finished;

    XmlSectionScanner(XmlFormat format, SectionSet expected, SectionListener listener) {
        this.format = format;
        this.expected = expected;
        this.listener = listener;
    }

    @Override
    public void append(CharSequence more) {
        if (finished) {
            throw new IllegalStateException("the reader has finished");
        }
        text.append(more);
        findTags(false);
    }

    @Override
    public Map<String, List<String>> finish() throws TextFormatException {
        if (!finished) {
            finished = true;
            findTags(true);
            if (lastTagOpened != null) {
                lastTagOpened.contentEnd = text.length();
                complete(lastTagOpened);
            }
        }
        SectionCollector collector = new SectionCollector();
        for (Slot slot : slots) {
            if (slot.contentEnd >= 0) {
                collector.add(slot.key, text.subSequence(slot.contentStart, slot.contentEnd));
            }
        }
        return collector.result(format, expected, XmlFormat.HOW_TO_WRITE);
    }

    private void findTags(boolean atEnd) {
        while (true) {
            int lt = text.indexOf("<", next);
            if (lt < 0) {
                passOn(text.length());
                next = text.length();
                return;
            }
            passOn(lt);
            int after = tag(lt, atEnd);
            if (after == UNDECIDED) {
                next = lt;
                return;
            }
            passOn(after);  // what was read of a non-tag is content; a tag moved passedOn past itself
            next = after;
        }
    }

    /**
     * Reads a tag at {@code start} (a '<') and records it if it counts.
     *
     * @return where to look for the next '<' (after the tag, or after what was read of a
     *         non-tag), or {@link #UNDECIDED} when more text could still make it a tag
     */
    private int tag(int start, boolean atEnd) {
        int i = start + 1;
        boolean close = i < text.length() && text.charAt(i) == '/';
        if (close) {
            i++;
        }
        int nameStart = i;
        if (i >= text.length()) {
            return atEnd ? i : UNDECIDED;
        }
        if (!SectionNames.isStart(text.charAt(i))) {
            return i;
        }
        while (i < text.length() && SectionNames.isPart(text.charAt(i))) {
            i++;
        }
        int nameEnd = i;
        while (i < text.length() && (text.charAt(i) == ' ' || text.charAt(i) == '\t')) {
            i++;
        }
        if (i >= text.length()) {
            return atEnd ? i : UNDECIDED;
        }
        if (text.charAt(i) != '>') {
            return i;
        }
        String key = SectionNames.key(text.subSequence(nameStart, nameEnd));
        if (expected.counts(key)) {
            passedOn = i + 1;
            if (close) {
                closeTag(key, start);
            } else {
                openTag(key, i + 1);
            }
        }
        return i + 1;
    }

    private void openTag(String key, int contentStart) {
        Slot slot = new Slot(key, contentStart);
        slots.add(slot);
        unclosed.computeIfAbsent(key, k -> new ArrayDeque<>()).push(slot);
        openOrder.push(slot);
        lastTagOpened = slot;
        listener.opened(key);
    }

    private void closeTag(String key, int tagStart) {
        Deque<Slot> open = unclosed.get(key);
        if (open != null && !open.isEmpty()) {
            Slot slot = open.pop();
            slot.contentEnd = tagStart;
            openOrder.remove(slot);
            complete(slot);
        }
        lastTagOpened = null;
    }

    private void complete(Slot slot) {
        String content = text.subSequence(slot.contentStart, slot.contentEnd).toString().strip();
        if (!content.isEmpty()) {
            listener.completed(slot.key, content);
        }
    }

    /** Text up to {@code end} that is no tag: content of the section opened last, if any. */
    private void passOn(int end) {
        if (end > passedOn) {
            if (!openOrder.isEmpty()) {
                listener.content(openOrder.peek().key, text.subSequence(passedOn, end));
            }
            passedOn = end;
        }
    }
}
