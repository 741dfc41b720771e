package dev.bellows.format;

import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Sections as XML-style tags: {@code <name>}, the content, {@code </name>}. Text outside the
 * tags is ignored. The content is not escaped: models read and write code and JSON verbatim,
 * and the parser does not need escapes (see {@link XmlSectionScanner} for how tags pair up).
 *
 * <pre>
 * &lt;thinking&gt;
 * The user wants the weather.
 * &lt;/thinking&gt;
 * &lt;answer&gt;
 * It is sunny.
 * &lt;/answer&gt;
 * </pre>
 *
 * <p>Nested sections are written as nested elements, one per line and not indented, so that
 * multi-line content (code, YAML) reaches the model exactly as produced.
 */
public final class XmlFormat implements TextFormat {

    static final String HOW_TO_WRITE = "Put each section between an opening and a closing tag"
            + " named after it; text outside the tags is ignored.";

    private volatile SectionSet sections = SectionSet.EMPTY;

    /** A format with no section registered. */
    public XmlFormat() {
    }

    @Override
    public synchronized XmlFormat registerSection(TextSection section) {
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

    /** Reads as the text streams: a section is complete once its close tag arrives. */
    @Override
    public SectionReader reader(SectionListener listener) {
        return new XmlSectionScanner(this, sections, Objects.requireNonNull(listener, "listener"));
    }

    @Override
    public String describeStructure() {
        return FormatTexts.describe(this, sections, HOW_TO_WRITE);
    }

    @Override
    public String formatSection(String name, String content) {
        SectionNames.require(name);
        Objects.requireNonNull(content, "content");
        return content.isEmpty()
                ? "<" + name + ">\n</" + name + ">"
                : "<" + name + ">\n" + content + "\n</" + name + ">";
    }

    @Override
    public String formatSections(List<FormattedSection> sections) {
        StringBuilder text = new StringBuilder();
        for (FormattedSection section : sections) {
            if (!text.isEmpty()) {
                text.append('\n');
            }
            append(text, section);
        }
        return text.toString();
    }

    private static void append(StringBuilder text, FormattedSection section) {
        text.append('<').append(section.name()).append(">\n");
        if (!section.content().isEmpty()) {
            text.append(section.content()).append('\n');
        }
        for (FormattedSection child : section.children()) {
            append(text, child);
            text.append('\n');
        }
        text.append("</").append(section.name()).append('>');
    }
}
