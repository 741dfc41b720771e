package dev.bellows.format;

import java.util.List;
import java.util.Objects;

/**
 * A section to write for the model, such as one tool's output inside an observation.
 *
 * @param name     the section's name (the rule of {@link TextSection#name()})
 * @param content  its text, written before the children; may be empty
 * @param children sections nested inside it, in order
 */
public record FormattedSection(String name, String content, List<FormattedSection> children) {

    public FormattedSection {
        SectionNames.require(name);
        Objects.requireNonNull(content, "content");
        children = List.copyOf(Objects.requireNonNull(children, "children"));
    }

    /** A section with content and no children. */
    public FormattedSection(String name, String content) {
        this(name, content, List.of());
    }

    /** A section that only holds other sections. */
    public static FormattedSection of(String name, List<FormattedSection> children) {
        return new FormattedSection(name, "", children);
    }
}
