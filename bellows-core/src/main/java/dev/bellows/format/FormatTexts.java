package dev.bellows.format;

import java.util.List;
import java.util.stream.Collectors;

/**
 * The words a format says to the model: how to write the answer, and what went wrong when no
 * section was found. Both are built from the format's own {@link TextFormat#formatSection}, so
 * the example the model copies is exactly what the parser reads.
 */
final class FormatTexts {

    private FormatTexts() {
    }

    static String describe(TextFormat format, SectionSet sections, String howToWrite) {
        if (sections.isEmpty()) {
            // Nothing to ask for: the prompt builder leaves the format out.
            return "";
        }
        return "Format your answer as sections. " + howToWrite + " The sections:\n\n"
                + sections.sections().stream()
                        .map(section -> format.formatSection(section.name(), placeholder(section)))
                        .collect(Collectors.joining("\n\n"));
    }

    static String noSection(TextFormat format, SectionSet expected, String howToWrite, boolean sawEmpty) {
        StringBuilder message = new StringBuilder(sawEmpty
                ? "Your answer has no section with content (empty sections do not count). "
                : "Your answer has no section. ");
        message.append(howToWrite);
        List<String> names = expected.sections().stream().map(TextSection::name).toList();
        if (!names.isEmpty()) {
            message.append(" The sections are: ").append(String.join(", ", names)).append('.');
        }
        String example = names.isEmpty() ? "answer" : names.get(0);
        return message.append(" For example:\n\n").append(format.formatSection(example, "..."))
                .append("\n\nWrite your answer again in this format.").toString();
    }

    private static String placeholder(TextSection section) {
        return section.guidance().isBlank() ? "... " + section.name() + " ..." : section.guidance();
    }
}
