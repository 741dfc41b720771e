package dev.bellows.format;

import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Sections as Markdown headings: a section starts at a line {@code # name} (a {@code #} at the
 * start of the line, at least one space or tab, the name, nothing else) and runs to the next
 * such line or the end. Text before the first heading is ignored.
 *
 * <pre>
 * # thinking
 * The user wants the weather.
 *
 * # answer
 * It is sunny.
 * </pre>
 *
 * <p>Nested sections are written one level deeper ({@code ##}, {@code ###}, ...; past six levels
 * Markdown renderers show the heading as text, which the model reads just as well). Parsing reads
 * top-level ({@code #}) sections only, so a parent's content includes its children as written.
 */
public final class MarkdownFormat implements TextFormat {

    static final String HOW_TO_WRITE = "Start each section with a line holding '#', a space and the"
            + " section's name; the section runs until the next such line, and text before the first one"
            + " is ignored.";

    private volatile SectionSet sections = SectionSet.EMPTY;

    /** A format with no section registered. */
    public MarkdownFormat() {
    }

    @Override
    public synchronized MarkdownFormat registerSection(TextSection section) {
        sections = sections.with(Objects.requireNonNull(section, "section"));
        return this;
    }

    @Override
    public List<TextSection> sections() {
        return sections.sections();
    }

    @Override
    public Map<String, List<String>> parse(String output) throws TextFormatException {
        Objects.requireNonNull(output, "output");
        SectionReader reader = reader(new SectionListener() { });
        reader.append(output);
        return reader.finish();
    }

    /** Reads as the text streams: a section is complete once the next heading line is. */
    @Override
    public SectionReader reader(SectionListener listener) {
        return new MarkdownSectionReader(this, sections, Objects.requireNonNull(listener, "listener"));
    }

    /** The lower-case name if the line is a level-1 heading of a section that counts, else null. */
    static String headingKey(CharSequence text, int start, int end, SectionSet expected) {
        if (end - start < 3 || text.charAt(start) != '#' || !isBlank(text.charAt(start + 1))) {
            return null;
        }
        int nameStart = start + 2;
        while (nameStart < end && isBlank(text.charAt(nameStart))) {
            nameStart++;
        }
        int nameEnd = end;
        while (nameEnd > nameStart && Character.isWhitespace(text.charAt(nameEnd - 1))) {
            nameEnd--;
        }
        CharSequence name = text.subSequence(nameStart, nameEnd);
        if (!SectionNames.isValid(name)) {
            return null;
        }
        String key = SectionNames.key(name);
        return expected.counts(key) ? key : null;
    }

    private static boolean isBlank(char c) {
        return c == ' ' || c == '\t';
    }

    @Override
    public String describeStructure() {
        return FormatTexts.describe(this, sections, HOW_TO_WRITE);
    }

    @Override
    public String formatSection(String name, String content) {
        return section(name, content, 1);
    }

    @Override
    public String formatSections(List<FormattedSection> sections) {
        StringBuilder text = new StringBuilder();
        for (FormattedSection section : sections) {
            append(text, section, 1);
        }
        return text.toString();
    }

    /** Sections and children are separated by a blank line, so each heading stands alone. */
    private static void append(StringBuilder text, FormattedSection section, int level) {
        if (!text.isEmpty()) {
            text.append("\n\n");
        }
        text.append(section(section.name(), section.content(), level));
        for (FormattedSection child : section.children()) {
            append(text, child, level + 1);
        }
    }

    private static String section(String name, String content, int level) {
        SectionNames.require(name);
        Objects.requireNonNull(content, "content");
        String heading = "#".repeat(level) + " " + name;
        return content.isEmpty() ? heading : heading + "\n" + content;
    }
}
