package dev.bellows.format;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Pattern;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Assume;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * Format, then parse, gives the sections back: each content trimmed, under its lower-case name,
 * in order, blank ones dropped. Within the documented limits of {@link TextFormat}: contents
 * must not themselves delimit a counted section. Contents are built from fragments that come
 * close (other tags, '#' lines, '<' alone, CRLF) so the limit is exercised right at its edge.
 */
class TextFormatRoundTripProperties {

    record Section(String name, String content) {
    }

    private static final String[] FRAGMENTS = {
            "text", "42", " ", "  ", "\n", "\r\n", "\t", "<", ">", "</", "/>", "#", "# ", "\n# ", "## x", "\n## h\n",
            "<b>", "</b>", "<x y=\"1\">", "a < b", "{\"k\": [1, 2]}", "```", "é", "日本", "😀", "&lt;",
    };

    @Provide
    Arbitrary<String> names() {
        Arbitrary<Character> start = Arbitraries.chars().with("aAbBzZ_");
        Arbitrary<String> rest = Arbitraries.strings().withChars("abcXYZ019_-.:").ofMaxLength(6);
        return Combinators.combine(start, rest).as((s, r) -> s + r);
    }

    @Provide
    Arbitrary<String> contents() {
        return Arbitraries.of(FRAGMENTS).list().ofMaxSize(12).map(parts -> String.join("", parts));
    }

    @Provide
    Arbitrary<List<Section>> sections() {
        Arbitrary<Section> section = Combinators.combine(names(), contents()).as(Section::new);
        return section.list().ofMinSize(1).ofMaxSize(6);
    }

    @Property(tries = 500)
    void markdownRoundTrip(@ForAll("sections") List<Section> sections, @ForAll boolean register) throws Exception {
        MarkdownFormat format = new MarkdownFormat();
        if (register) {
            sections.forEach(s -> format.registerSection(TextSection.named(s.name())));
        }
        for (Section section : sections) {
            Assume.that(section.content().lines().noneMatch(line -> delimitsMarkdown(line, format)));
        }
        check(format, sections);
    }

    @Property(tries = 500)
    void xmlRoundTrip(@ForAll("sections") List<Section> sections, @ForAll boolean register) throws Exception {
        XmlFormat format = new XmlFormat();
        if (register) {
            sections.forEach(s -> format.registerSection(TextSection.named(s.name())));
        }
        for (Section section : sections) {
            Assume.that(!delimitsXml(section.content(), format));
        }
        check(format, sections);
    }

    private static void check(TextFormat format, List<Section> sections) throws TextFormatException {
        String text = format.formatSections(sections.stream()
                .map(s -> new FormattedSection(s.name(), s.content())).toList());
        Map<String, List<String>> expected = new LinkedHashMap<>();
        for (Section section : sections) {
            String content = section.content().strip();
            if (!content.isEmpty()) {
                expected.computeIfAbsent(section.name().toLowerCase(Locale.ROOT), k -> new ArrayList<>()).add(content);
            }
        }
        if (expected.isEmpty()) {
            assertThatThrownBy(() -> format.parse(text)).isInstanceOf(TextFormatException.class);
        } else {
            assertThat(format.parse(text)).containsExactlyEntriesOf(expected);
        }
    }

    private static final Pattern HEADING = Pattern.compile("#[ \\t]+([A-Za-z_][-A-Za-z0-9_.:]*)\\s*");
    private static final Pattern TAG = Pattern.compile("</?([A-Za-z_][-A-Za-z0-9_.:]*)[ \\t]*>");

    /** The documented limit, restated independently of the parser. */
    private static boolean delimitsMarkdown(String line, TextFormat format) {
        var heading = HEADING.matcher(line);
        return heading.matches() && counts(heading.group(1), format);
    }

    private static boolean delimitsXml(String content, TextFormat format) {
        return TAG.matcher(content).results().anyMatch(tag -> counts(tag.group(1), format));
    }

    private static boolean counts(String name, TextFormat format) {
        return format.sections().isEmpty()
                || format.sections().stream().anyMatch(s -> s.name().equalsIgnoreCase(name));
    }
}
