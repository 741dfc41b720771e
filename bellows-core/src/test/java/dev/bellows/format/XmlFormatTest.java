package dev.bellows.format;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

class XmlFormatTest {

    private static XmlFormat format(String... sections) {
        XmlFormat format = new XmlFormat();
        for (String section : sections) {
            format.registerSection(TextSection.named(section));
        }
        return format;
    }

    /**
     * The cases of gent's TestXML_Parse (rickchristie/gent, format/xml_test.go, commit
     * d78b978d01328d6a87c41ccf6b781a3e19907883). Differences, on purpose: keys are lower-case
     * (gent returned the registered spelling, "Thinking"), as issue 3 asks; gent's strict mode
     * (an error on ambiguous tags) is not ported: the nearest-unused pairing resolves them.
     */
    @Nested
    class GentParseCases {

        @Test
        void singleSection() throws Exception {
            assertThat(format("answer").parse("<answer>\nThe weather is sunny today.\n</answer>"))
                    .isEqualTo(Map.of("answer", List.of("The weather is sunny today.")));
        }

        @Test
        void multipleSections() throws Exception {
            String output = """
                    <thinking>
                    I need to search for weather information.
                    </thinking>

                    <action>
                    {"tool": "search", "args": {"query": "weather"}}
                    </action>

                    <answer>
                    The weather is sunny.
                    </answer>""";
            assertThat(format("thinking", "action", "answer").parse(output)).containsExactly(
                    Map.entry("thinking", List.of("I need to search for weather information.")),
                    Map.entry("action", List.of("{\"tool\": \"search\", \"args\": {\"query\": \"weather\"}}")),
                    Map.entry("answer", List.of("The weather is sunny.")));
        }

        @Test
        void multipleSameSection() throws Exception {
            String output = "<action>\nFirst action content.\n</action>\n\n<action>\nSecond action content.\n</action>";
            assertThat(format("action").parse(output))
                    .isEqualTo(Map.of("action", List.of("First action content.", "Second action content.")));
        }

        @Test
        void caseInsensitive() throws Exception {
            assertThat(format("Thinking").parse("<THINKING>\nCase insensitive content.\n</THINKING>"))
                    .isEqualTo(Map.of("thinking", List.of("Case insensitive content.")));
        }

        @Test
        void contentOutsideTagsIgnored() throws Exception {
            String output = "Some content before tags that should be ignored.\n\n<answer>\nThe actual answer.\n"
                    + "</answer>\n\nSome content after tags.";
            assertThat(format("answer").parse(output)).isEqualTo(Map.of("answer", List.of("The actual answer.")));
        }

        @Test
        void emptySectionExcludedFromResults() throws Exception {
            assertThat(format("thinking", "answer").parse("<thinking></thinking>\n<answer>The answer.</answer>"))
                    .isEqualTo(Map.of("answer", List.of("The answer.")));
        }

        @Test
        void emptyActionTagWithAnswer() throws Exception {
            String output = """
                    <thinking>
                    The customer is referring to their "number". I cannot access any booking without it.

                    No tool actions needed at this stage.
                    </thinking>
                    <action>
                    </action>
                    <answer>
                    Hello! For security reasons, please provide:
                    - Your booking reference number (e.g., BK001)
                    - Your email address or customer ID
                    </answer>""";
            assertThat(format("thinking", "action", "answer").parse(output)).containsExactly(
                    Map.entry("thinking", List.of("The customer is referring to their \"number\". I cannot access"
                            + " any booking without it.\n\nNo tool actions needed at this stage.")),
                    Map.entry("answer", List.of("Hello! For security reasons, please provide:\n"
                            + "- Your booking reference number (e.g., BK001)\n- Your email address or customer ID")));
        }

        @Test
        void sameLineTag() throws Exception {
            assertThat(format("answer").parse("<answer>Short answer.</answer>"))
                    .isEqualTo(Map.of("answer", List.of("Short answer.")));
        }

        @Test
        void inlineMultipleSections() throws Exception {
            String output = "<thinking>Quick thought.</thinking><action>do_something</action><answer>Done.</answer>";
            assertThat(format("thinking", "action", "answer").parse(output)).containsExactly(
                    Map.entry("thinking", List.of("Quick thought.")),
                    Map.entry("action", List.of("do_something")),
                    Map.entry("answer", List.of("Done.")));
        }

        @Test
        void whitespaceTrimming() throws Exception {
            assertThat(format("answer").parse("<answer>\n\n   Content with whitespace around it.\n\n</answer>"))
                    .isEqualTo(Map.of("answer", List.of("Content with whitespace around it.")));
        }

        @Test
        void noRecognizedTagsIsAnError() {
            assertThatThrownBy(() -> format("answer").parse("<unknown>Some content.</unknown>"))
                    .isInstanceOf(TextFormatException.class);
        }

        @Test
        void noTagsIsAnError() {
            assertThatThrownBy(() -> format("answer").parse("Just some plain text without any tags."))
                    .isInstanceOf(TextFormatException.class);
        }

        @Test
        void literalAngleBracketsInContent() throws Exception {
            String output = "<code>\nfunc main() {\n    fmt.Println(\"<hello>\")\n}\n</code>";
            assertThat(format("code").parse(output))
                    .isEqualTo(Map.of("code", List.of("func main() {\n    fmt.Println(\"<hello>\")\n}")));
        }

        @Test
        void modelWritesAnObservationAndTextOutsideTags() throws Exception {
            String output = """
                    <thinking>
                    Reschedule succeeded: BK001 now on AA102.
                    Parallel tool calls now. After observation, provide <answer>.
                    </thinking>
                    <action>
                    - tool: get_booking_info
                      args:
                        booking_id: BK001
                    </action>
                    <observation>
                    [get_booking_info] {"booking_id":"BK001"}
                    </observation>

                    A: Tool calls successful.

                    Be professional.<answer>
                    Hello John,

                    Your booking **BK001** has been rescheduled to **AA102**.
                    </answer>""";
            assertThat(format("thinking", "action", "answer").parse(output)).containsExactly(
                    Map.entry("thinking", List.of("Reschedule succeeded: BK001 now on AA102.\n"
                            + "Parallel tool calls now. After observation, provide <answer>.")),
                    Map.entry("action", List.of("- tool: get_booking_info\n  args:\n    booking_id: BK001")),
                    Map.entry("answer", List.of(
                            "Hello John,\n\nYour booking **BK001** has been rescheduled to **AA102**.")));
        }

        @Test
        void ambiguousOpenTagInsideAnotherSection() throws Exception {
            String output = "<thinking>\nAfter observation, provide <answer>.\n</thinking>\n<answer>\nThe actual answer.\n</answer>";
            assertThat(format("thinking", "answer").parse(output)).containsExactly(
                    Map.entry("thinking", List.of("After observation, provide <answer>.")),
                    Map.entry("answer", List.of("The actual answer.")));
        }

        // gent's TestXML_DescribeStructure: "empty sections returns empty string".
        @Test
        void describeStructureWithoutSectionsIsEmpty() {
            assertThat(new XmlFormat().describeStructure()).isEmpty();
        }
    }

    /** gent's TestXML_FormatSections (same file), output for output. */
    @Nested
    class GentFormatCases {

        private final XmlFormat format = new XmlFormat();

        @Test
        void noSectionsIsEmpty() {
            assertThat(format.formatSections(List.of())).isEmpty();
        }

        @Test
        void singleSection() {
            assertThat(format.formatSections(List.of(new FormattedSection("task", "Do something useful."))))
                    .isEqualTo("<task>\nDo something useful.\n</task>");
        }

        @Test
        void multipleFlatSections() {
            assertThat(format.formatSections(List.of(
                    new FormattedSection("behavior", "Be helpful."), new FormattedSection("rules", "Follow the rules."))))
                    .isEqualTo("<behavior>\nBe helpful.\n</behavior>\n<rules>\nFollow the rules.\n</rules>");
        }

        @Test
        void childrenUseNestedTags() {
            assertThat(format.formatSections(List.of(FormattedSection.of("observation", List.of(
                    new FormattedSection("result", "{\"status\": \"ok\"}"),
                    new FormattedSection("instructions", "Process the result."))))))
                    .isEqualTo("<observation>\n<result>\n{\"status\": \"ok\"}\n</result>\n"
                            + "<instructions>\nProcess the result.\n</instructions>\n</observation>");
        }

        @Test
        void contentComesBeforeChildren() {
            assertThat(format.formatSections(List.of(new FormattedSection("parent", "Parent content first.",
                    List.of(new FormattedSection("child", "Child content."))))))
                    .isEqualTo("<parent>\nParent content first.\n<child>\nChild content.\n</child>\n</parent>");
        }

        @Test
        void deeplyNested() {
            assertThat(format.formatSections(List.of(FormattedSection.of("level1", List.of(
                    FormattedSection.of("level2", List.of(new FormattedSection("level3", "Deep content."))))))))
                    .isEqualTo("<level1>\n<level2>\n<level3>\nDeep content.\n</level3>\n</level2>\n</level1>");
        }

        @Test
        void mixedNesting() {
            assertThat(format.formatSections(List.of(
                    new FormattedSection("intro", "Introduction."),
                    FormattedSection.of("tools", List.of(
                            new FormattedSection("search", "Search result."), new FormattedSection("calculate", "42"))),
                    new FormattedSection("conclusion", "Done."))))
                    .isEqualTo("<intro>\nIntroduction.\n</intro>\n"
                            + "<tools>\n<search>\nSearch result.\n</search>\n<calculate>\n42\n</calculate>\n</tools>\n"
                            + "<conclusion>\nDone.\n</conclusion>");
        }
    }

    @Nested
    class Parse {

        @Test
        void closeTagPairsWithTheNearestUnusedOpenTag() throws Exception {
            // The first <answer> is only mentioned; </answer> belongs to the second.
            String output = "<answer> is where I will put it.\n<answer>42</answer>";
            assertThat(format("answer").parse(output)).isEqualTo(Map.of("answer", List.of("42")));
        }

        @Test
        void nestedSameNameTagsPairInnerWithInner() throws Exception {
            String output = "<note>outer <note>inner</note> tail</note>";
            assertThat(format("note").parse(output))
                    .isEqualTo(Map.of("note", List.of("outer <note>inner</note> tail", "inner")));
        }

        @Test
        void nestedRegisteredSectionsAreBothFound() throws Exception {
            String output = "<observation>\n<search>\nfound\n</search>\n</observation>";
            assertThat(new XmlFormat().parse(output)).containsExactly(
                    Map.entry("observation", List.of("<search>\nfound\n</search>")),
                    Map.entry("search", List.of("found")));
            assertThat(format("observation").parse(output))
                    .isEqualTo(Map.of("observation", List.of("<search>\nfound\n</search>")));
        }

        @Test
        void strayCloseTagsAreIgnored() throws Exception {
            assertThat(format("answer").parse("</answer> oops <answer>yes</answer> </answer>"))
                    .isEqualTo(Map.of("answer", List.of("yes")));
        }

        @Test
        void mixedCaseTagsPair() throws Exception {
            assertThat(format("answer").parse("<Answer>yes</ANSWER >"))
                    .isEqualTo(Map.of("answer", List.of("yes")));
        }

        @Test
        void unterminatedLastSectionRunsToTheEnd() throws Exception {
            // What a stop sequence or a token limit leaves: the final close tag is missing.
            assertThat(format("thinking", "answer").parse("<thinking>hm</thinking>\n<answer>\nIt is 42."))
                    .containsExactly(Map.entry("thinking", List.of("hm")), Map.entry("answer", List.of("It is 42.")));
        }

        @Test
        void unterminatedSectionFollowedByAnotherTagIsIgnored() throws Exception {
            assertThat(format("thinking", "answer").parse("<answer>draft\n<thinking>hm</thinking>"))
                    .isEqualTo(Map.of("thinking", List.of("hm")));
        }

        @Test
        void tagsWithAttributesOrSelfClosingAreText() {
            assertThatThrownBy(() -> format("answer").parse("<answer id=\"1\">x</answer><answer/>"))
                    .isInstanceOf(TextFormatException.class);
        }

        @Test
        void unregisteredTagsAreContent() throws Exception {
            assertThat(format("answer").parse("<answer><b>bold</b> and a < b</answer>"))
                    .isEqualTo(Map.of("answer", List.of("<b>bold</b> and a < b")));
        }

        @Test
        void noSectionErrorTellsTheModelWhatToWrite() {
            assertThatThrownBy(() -> format("thinking", "answer").parse("<final>42</final>"))
                    .isInstanceOf(TextFormatException.class)
                    .hasMessage("""
                            Your answer has no section. Put each section between an opening and a closing tag \
                            named after it; text outside the tags is ignored. The sections are: thinking, answer. \
                            For example:

                            <thinking>
                            ...
                            </thinking>

                            Write your answer again in this format.""");
        }

        @Test
        void pathologicalInputsParseInOnePass() throws Exception {
            // Unclosed open tags, lone '<', unmatched closes: each would cost a rescan of the
            // rest of the text in a search-for-the-close-tag parser.
            String opens = "<a>".repeat(100_000) + "<".repeat(100_000) + "</b>".repeat(100_000) + "<a>x</a>";
            assertThat(new XmlFormat().parse(opens).get("a")).containsExactly("x");
            // Deep nesting pairs in one pass too (kept small: the contents themselves grow quadratically).
            String nested = "<a>".repeat(2_000) + "x" + "</a>".repeat(2_000);
            assertThat(new XmlFormat().parse(nested).get("a")).hasSize(2_000).endsWith("x");
        }
    }

    @Nested
    class Describe {

        @Test
        void snapshot() {
            XmlFormat format = new XmlFormat()
                    .registerSection(new TextSection("thinking", "Think through the problem, step by step."))
                    .registerSection(new TextSection("action", "One or more tool calls.\nOr none."))
                    .registerSection(TextSection.named("answer"));
            assertThat(format.describeStructure()).isEqualTo("""
                    Format your answer as sections. Put each section between an opening and a closing tag \
                    named after it; text outside the tags is ignored. The sections:

                    <thinking>
                    Think through the problem, step by step.
                    </thinking>

                    <action>
                    One or more tool calls.
                    Or none.
                    </action>

                    <answer>
                    ... answer ...
                    </answer>""");
        }

        // gent's TestXML_RegisterSection: "idempotent registration", "case insensitive idempotency".
        @Test
        void firstRegistrationOfANameWinsInAnyCase() {
            XmlFormat format = new XmlFormat()
                    .registerSection(new TextSection("Answer", "First guidance."))
                    .registerSection(new TextSection("answer", "Second guidance."))
                    .registerSection(new TextSection("ANSWER", "Third guidance."));
            assertThat(format.describeStructure()).endsWith("\n\n<Answer>\nFirst guidance.\n</Answer>");
        }
    }

    @Test
    void nestedSectionsRoundTrip() throws Exception {
        XmlFormat format = format("observation", "search", "read");
        String text = format.formatSections(List.of(FormattedSection.of("observation", List.of(
                new FormattedSection("search", "found"), new FormattedSection("read", "text")))));
        assertThat(format.parse(text)).containsExactly(
                Map.entry("observation", List.of("<search>\nfound\n</search>\n<read>\ntext\n</read>")),
                Map.entry("search", List.of("found")),
                Map.entry("read", List.of("text")));
    }
}
