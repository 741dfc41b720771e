package dev.bellows.format;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Gathers parsed sections in order of appearance, trimmed, dropping empty ones. Shared by both
 * formats so that they agree on what a parse result looks like.
 */
final class SectionCollector {

    private final Map<String, List<String>> sections = new LinkedHashMap<>();
    private boolean sawEmpty;

    /** Adds the content of one section; {@code key} is the lower-case name. Returns it trimmed, or null when empty. */
    String add(String key, CharSequence content) {
        String trimmed = content.toString().strip();
        if (trimmed.isEmpty()) {
            sawEmpty = true;
            return null;
        }
        sections.computeIfAbsent(key, k -> new ArrayList<>()).add(trimmed);
        return trimmed;
    }

    /** The sections found, or the error {@link FormatTexts#noSection} writes for the model. */
    Map<String, List<String>> result(TextFormat format, SectionSet expected, String howToWrite)
            throws TextFormatException {
        if (sections.isEmpty()) {
            throw new TextFormatException(FormatTexts.noSection(format, expected, howToWrite, sawEmpty));
        }
        Map<String, List<String>> result = new LinkedHashMap<>();
        sections.forEach((key, contents) -> result.put(key, List.copyOf(contents)));
        return Collections.unmodifiableMap(result);
    }
}
