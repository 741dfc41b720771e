package dev.bellows.format;

import java.util.List;
import java.util.Map;

/**
 * One convention for sections in text, used in both directions: to read the sections of a
 * model's answer ({@link #parse}), and to write sections for the model, such as tool
 * observations ({@link #formatSections}), so the model sees a single convention in the whole
 * conversation. {@link MarkdownFormat} uses {@code # name} headings, {@link XmlFormat} uses
 * {@code <name>...</name>} tags.
 *
 * <p>Section names start with an ASCII letter or {@code _} and contain only letters, digits and
 * {@code _ - . :}; they are matched ASCII case-insensitively. Implementations are safe to use
 * from several threads, registration included.
 *
 * <h2>Round trip</h2>
 * {@code parse(formatSections(sections))} gives back each section's content, trimmed, under its
 * lower-case name, provided no content is blank and no content itself contains what
 * delimits a counted section (a {@code # name} line in Markdown, a {@code <name>} or
 * {@code </name>} tag in XML, for a name that counts: a registered one, or any if none are).
 */
public interface TextFormat {

    /**
     * Adds a section the model is asked to write. A name already registered, in any case, is
     * ignored: the first registration wins (so components may register the sections they need
     * without coordinating).
     *
     * @return this format, for chaining
     */
    TextFormat registerSection(TextSection section);

    /** The registered sections, in registration order. */
    List<TextSection> sections();

    /**
     * Splits a whole model answer into sections.
     *
     * <p>Keys are the lower-case section names, in order of first appearance; each value lists
     * the contents of that section, trimmed, in order, so a repeated section gives several
     * entries. Text outside sections is ignored, and sections that are empty or blank are
     * dropped. When sections are registered, only their names delimit sections (other
     * headings or tags are ordinary content); when none are, every valid name does.
     *
     * <p>Runs in time linear in the length of {@code output}.
     *
     * @throws TextFormatException when no section with content is found; the message tells the
     *                             model which sections are expected and how to write them
     */
    Map<String, List<String>> parse(String output) throws TextFormatException;

    /**
     * A reader for one answer that streams: the same result as {@link #parse} of the whole
     * text, and the listener told of each section the moment it is certain. The default
     * buffers the text and parses it at the end (a format of your own then reports every
     * section at the end); {@link MarkdownFormat} and {@link XmlFormat} read as the text comes.
     */
    default SectionReader reader(SectionListener listener) {
        java.util.Objects.requireNonNull(listener, "listener");
        StringBuilder text = new StringBuilder();
        return new SectionReader() {
            @Override
            public void append(CharSequence more) {
                text.append(more);
            }

            @Override
            public Map<String, List<String>> finish() throws TextFormatException {
                Map<String, List<String>> sections = parse(text.toString());
                sections.forEach((name, contents) -> contents.forEach(content -> listener.completed(name, content)));
                return sections;
            }
        };
    }

    /**
     * Tells the model how to write its answer in this format: the convention, then each
     * registered section with its guidance. Empty when no section is registered.
     */
    String describeStructure();

    /** One section, with {@code content} as is. */
    String formatSection(String name, String content);

    /** Several sections, in order, children nested inside their parents. Empty for no sections. */
    String formatSections(List<FormattedSection> sections);
}
