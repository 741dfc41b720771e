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
 */
final class XmlSectionScanner {

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

    private final String text;
    private final SectionSet expected;
    // Slots in order of their open tags, so sections come out in order of appearance.
    private final List<Slot> slots = new ArrayList<>();
    private final Map<String, Deque<Slot>> unclosed = new HashMap<>();
    private Slot lastTagOpened;

    private XmlSectionScanner(String text, SectionSet expected) {
        this.text = text;
        this.expected = expected;
    }

    /** Adds the sections of {@code text} to {@code collector}, in order of their open tags. */
    static void scan(String text, SectionSet expected, SectionCollector collector) {
        XmlSectionScanner scanner = new XmlSectionScanner(text, expected);
        scanner.findTags();
        scanner.collect(collector);
    }

    private void findTags() {
        int i = text.indexOf('<');
        while (i >= 0) {
            i = text.indexOf('<', tag(i));
        }
    }

    /**
     * Reads a tag at {@code start} (a '<') and records it if it counts.
     *
     * @return where to look for the next '<' (after the tag, or after what was read of a non-tag)
     */
    private int tag(int start) {
        int i = start + 1;
        boolean close = i < text.length() && text.charAt(i) == '/';
        if (close) {
            i++;
        }
        int nameStart = i;
        if (i >= text.length() || !SectionNames.isStart(text.charAt(i))) {
            return i;
        }
        while (i < text.length() && SectionNames.isPart(text.charAt(i))) {
            i++;
        }
        int nameEnd = i;
        while (i < text.length() && (text.charAt(i) == ' ' || text.charAt(i) == '\t')) {
            i++;
        }
        if (i >= text.length() || text.charAt(i) != '>') {
            return i;
        }
        String key = SectionNames.key(text.subSequence(nameStart, nameEnd));
        if (expected.counts(key)) {
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
        lastTagOpened = slot;
    }

    private void closeTag(String key, int tagStart) {
        Deque<Slot> open = unclosed.get(key);
        if (open != null && !open.isEmpty()) {
            open.pop().contentEnd = tagStart;
        }
        lastTagOpened = null;
    }

    private void collect(SectionCollector collector) {
        if (lastTagOpened != null) {
            lastTagOpened.contentEnd = text.length();
        }
        for (Slot slot : slots) {
            if (slot.contentEnd >= 0) {
                collector.add(slot.key, text.substring(slot.contentStart, slot.contentEnd));
            }
        }
    }
}
