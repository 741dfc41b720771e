package dev.bellows.format;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

class MarkdownFormatTest {

    private static MarkdownFormat format(String... sections) {
        MarkdownFormat format = new MarkdownFormat();
        for (String section : sections) {
            format.registerSection(TextSection.named(section));
        }
        return format;
    }

    private static Map<String, List<String>> parse(MarkdownFormat format, String output) throws TextFormatException {
        return format.parse(output);
    }

    /**
     * The cases of gent's TestMarkdown_Parse (rickchristie/gent, format/markdown_test.go, commit
     * 60288c5897801e2fc08116a736af0e443c077c65), with one deliberate difference: gent kept an
     * empty section as {@code ""}, Bellows drops it (issue 3: "empty sections dropped", as gent's
     * own later XML format does).
     */
    @Nested
    class GentParseCases {

        @Test
        void singleSection() throws Exception {
            assertThat(parse(format("Answer"), "# Answer\nThe weather is sunny today."))
                    .isEqualTo(Map.of("answer", List.of("The weather is sunny today.")));
        }

        @Test
        void multipleSections() throws Exception {
            String output = """
                    # Thinking
                    I need to search for weather information.

                    # Action
                    {"tool": "search", "args": {"query": "weather"}}

                    # Answer
                    The weather is sunny.""";
            assertThat(parse(format("Thinking", "Action", "Answer"), output)).containsExactly(
                    Map.entry("thinking", List.of("I need to search for weather information.")),
                    Map.entry("action", List.of("{\"tool\": \"search\", \"args\": {\"query\": \"weather\"}}")),
                    Map.entry("answer", List.of("The weather is sunny.")));
        }

        @Test
        void multipleSameSection() throws Exception {
            assertThat(parse(format("Action"), "# Action\nFirst action content.\n\n# Action\nSecond action content."))
                    .isEqualTo(Map.of("action", List.of("First action content.", "Second action content.")));
        }

        @Test
        void caseInsensitive() throws Exception {
            assertThat(parse(format("Thinking"), "# THINKING\nCase insensitive content."))
                    .isEqualTo(Map.of("thinking", List.of("Case insensitive content.")));
        }

        @Test
        void contentBeforeFirstHeaderIgnored() throws Exception {
            String output = "Some content before the first header that should be ignored.\n\n# Answer\nThe actual answer.";
            assertThat(parse(format("Answer"), output)).isEqualTo(Map.of("answer", List.of("The actual answer.")));
        }

        @Test
        void emptySectionIsDropped() throws Exception {
            assertThat(parse(format("Thinking", "Answer"), "# Thinking\n\n# Answer\nThe answer."))
                    .isEqualTo(Map.of("answer", List.of("The answer.")));
        }

        @Test
        void whitespaceTrimming() throws Exception {
            assertThat(parse(format("Answer"), "# Answer\n\n   Content with whitespace around it.\n\n"))
                    .isEqualTo(Map.of("answer", List.of("Content with whitespace around it.")));
        }

        @Test
        void noRecognizedSectionsIsAnError() {
            assertThatThrownBy(() -> parse(format("Answer"), "# Unknown\nSome content."))
                    .isInstanceOf(TextFormatException.class);
        }

        @Test
        void noHeadersIsAnError() {
            assertThatThrownBy(() -> parse(format("Answer"), "Just some plain text without any headers."))
                    .isInstanceOf(TextFormatException.class);
        }

        @Test
        void inlineMultipleSections() throws Exception {
            String output = "# Thinking\nQuick thought.\n# Action\ndo_something\n# Answer\nDone.";
            assertThat(parse(format("Thinking", "Action", "Answer"), output)).containsExactly(
                    Map.entry("thinking", List.of("Quick thought.")),
                    Map.entry("action", List.of("do_something")),
                    Map.entry("answer", List.of("Done.")));
        }

        @Test
        void contentWithLiteralHashCharacters() throws Exception {
            String output = """
                    # Code
                    func main() {
                        // This is a comment with # symbol
                        fmt.Println("Hello")
                    }""";
            assertThat(parse(format("Code"), output)).isEqualTo(Map.of("code",
                    List.of("func main() {\n    // This is a comment with # symbol\n    fmt.Println(\"Hello\")\n}")));
        }

        @Test
        void headerWithExtraSpaces() throws Exception {
            assertThat(parse(format("Answer"), "#    Answer\nThe answer with extra spaces in header."))
                    .isEqualTo(Map.of("answer", List.of("The answer with extra spaces in header.")));
        }

        // gent's TestMarkdown_DescribeStructure: "empty sections returns empty string".
        @Test
        void describeStructureWithoutSectionsIsEmpty() {
            assertThat(new MarkdownFormat().describeStructure()).isEmpty();
        }
    }

    @Nested
    class Parse {

        @Test
        void keysAreLowerCaseInOrderOfFirstAppearance() throws Exception {
            String output = "# ANSWER\nfirst\n# Thinking\nhmm\n# answer\nsecond";
            assertThat(parse(format("thinking", "answer"), output)).containsExactly(
                    Map.entry("answer", List.of("first", "second")),
                    Map.entry("thinking", List.of("hmm")));
        }

        @Test
        void unregisteredHeadingsAndDeeperHeadingsAreContent() throws Exception {
            String output = "# answer\n# Summary\nIt works.\n## Details\nAll of them.";
            assertThat(parse(format("answer"), output))
                    .isEqualTo(Map.of("answer", List.of("# Summary\nIt works.\n## Details\nAll of them.")));
        }

        @Test
        void withNothingRegisteredEveryValidNameIsASection() throws Exception {
            String output = "intro\n# plan\nstep one\n# A title with spaces\n# answer\n42";
            assertThat(parse(new MarkdownFormat(), output)).containsExactly(
                    Map.entry("plan", List.of("step one\n# A title with spaces")),
                    Map.entry("answer", List.of("42")));
        }

        @Test
        void aHeadingNeedsASpaceAndStartsTheLine() throws Exception {
            String output = "# answer\n#answer\n ## answer\n  # answer\ntext";
            assertThat(parse(format("answer"), output))
                    .isEqualTo(Map.of("answer", List.of("#answer\n ## answer\n  # answer\ntext")));
        }

        @Test
        void crlfLineEndings() throws Exception {
            assertThat(parse(format("a", "b"), "# a\r\none\r\n# B \r\ntwo\r\n"))
                    .containsExactly(Map.entry("a", List.of("one")), Map.entry("b", List.of("two")));
        }

        @Test
        void noSectionErrorTellsTheModelWhatToWrite() {
            assertThatThrownBy(() -> parse(format("thinking", "answer"), "The answer is 42."))
                    .isInstanceOf(TextFormatException.class)
                    .hasMessage("""
                            Your answer has no section. Start each section with a line holding '#', a space and \
                            the section's name; the section runs until the next such line, and text before the \
                            first one is ignored. The sections are: thinking, answer. For example:

                            # thinking
                            ...

                            Write your answer again in this format.""");
        }

        @Test
        void onlyEmptySectionsSaysSo() {
            assertThatThrownBy(() -> parse(format("answer"), "# answer\n   \n"))
                    .hasMessageStartingWith("Your answer has no section with content (empty sections do not count).");
        }

        @Test
        void noSectionErrorWithNothingRegisteredShowsAnExample() {
            assertThatThrownBy(() -> parse(new MarkdownFormat(), "plain"))
                    .hasMessageContaining("For example:\n\n# answer\n...")
                    .hasMessageNotContaining("The sections are");
        }

        @Test
        void manyHeadingsParseInOnePass() throws Exception {
            // 200 000 sections: a per-heading rescan of the rest of the text would not finish.
            String output = "# a\nx\n".repeat(200_000);
            assertThat(parse(format("a"), output).get("a")).hasSize(200_000);
        }
    }

    @Nested
    class Describe {

        @Test
        void snapshot() {
            MarkdownFormat format = new MarkdownFormat()
                    .registerSection(new TextSection("thinking", "Think through the problem, step by step."))
                    .registerSection(TextSection.named("answer"));
            assertThat(format.describeStructure()).isEqualTo("""
                    Format your answer as sections. Start each section with a line holding '#', a space and \
                    the section's name; the section runs until the next such line, and text before the first \
                    one is ignored. The sections:

                    # thinking
                    Think through the problem, step by step.

                    # answer
                    ... answer ...""");
        }

        @Test
        void firstRegistrationOfANameWinsInAnyCase() {
            MarkdownFormat format = new MarkdownFormat()
                    .registerSection(new TextSection("Answer", "First guidance."))
                    .registerSection(new TextSection("answer", "Second guidance."))
                    .registerSection(new TextSection("ANSWER", "Third guidance."));
            assertThat(format.sections()).containsExactly(new TextSection("Answer", "First guidance."));
            assertThat(format.describeStructure()).endsWith("# Answer\nFirst guidance.");
        }
    }

    @Nested
    class Format {

        @Test
        void oneSection() {
            assertThat(new MarkdownFormat().formatSection("search", "{\"hits\":3}")).isEqualTo("# search\n{\"hits\":3}");
            assertThat(new MarkdownFormat().formatSection("search", "")).isEqualTo("# search");
        }

        @Test
        void noSectionsIsEmpty() {
            assertThat(new MarkdownFormat().formatSections(List.of())).isEmpty();
        }

        @Test
        void childrenGoOneLevelDeeper() {
            List<FormattedSection> sections = List.of(
                    new FormattedSection("intro", "Introduction."),
                    new FormattedSection("tools", "Two tools ran.", List.of(
                            new FormattedSection("search", "Search result."),
                            FormattedSection.of("calculate", List.of(new FormattedSection("result", "42"))))),
                    new FormattedSection("conclusion", "Done."));
            assertThat(new MarkdownFormat().formatSections(sections)).isEqualTo("""
                    # intro
                    Introduction.

                    # tools
                    Two tools ran.

                    ## search
                    Search result.

                    ## calculate

                    ### result
                    42

                    # conclusion
                    Done.""");
        }

        @Test
        void nestedSectionsRoundTripAsTheirParentsContent() throws Exception {
            MarkdownFormat format = new MarkdownFormat();
            String text = format.formatSections(List.of(FormattedSection.of("observation", List.of(
                    new FormattedSection("search", "found"), new FormattedSection("read", "text")))));
            assertThat(format.parse(text)).isEqualTo(Map.of("observation", List.of("## search\nfound\n\n## read\ntext")));
        }

        @Test
        void invalidNamesAreRejectedWithTheRule() {
            assertThatThrownBy(() -> new MarkdownFormat().formatSection("two words", "x"))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("'two words'")
                    .hasMessageContaining("only letters, digits");
        }
    }
}
