package dev.bellows.format;

import java.util.Objects;

/**
 * A section the model is asked to write, such as {@code thinking} or {@code answer}.
 *
 * @param name     the section's name: an ASCII letter or {@code _}, then letters, digits,
 *                 {@code _ - . :}; matched case-insensitively
 * @param guidance what to write in it, shown to the model by {@link TextFormat#describeStructure()};
 *                 may be empty
 */
public record TextSection(String name, String guidance) {

    public TextSection {
        SectionNames.require(name);
        Objects.requireNonNull(guidance, "guidance");
    }

    /** A section without guidance. */
    public static TextSection named(String name) {
        return new TextSection(name, "");
    }
}
