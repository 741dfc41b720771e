package dev.bellows.stream;

import static dev.bellows.stream.StreamTesting.assertEvents;
import static dev.bellows.stream.StreamTesting.chunks;
import static dev.bellows.stream.StreamTesting.complete;
import static dev.bellows.stream.StreamTesting.decoded;
import static dev.bellows.stream.StreamTesting.dq;
import static dev.bellows.stream.StreamTesting.expect;
import static dev.bellows.stream.StreamTesting.msg;
import static dev.bellows.stream.StreamTesting.onlyToolCallError;
import static dev.bellows.stream.StreamTesting.run;
import static dev.bellows.stream.StreamTesting.think;
import static dev.bellows.stream.StreamTesting.thinkingOpen;
import static org.assertj.core.api.Assertions.assertThat;

import dev.bellows.event.StreamEvent;
import dev.bellows.tool.ToolCallError;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Every example and rule statement of {@code stream-contract.md}, with the exact events it
 * gives, chunk indices included.
 *
 * <p>Expected events are written one a line as {@link StreamTesting#render} shows them, after
 * merging the deltas of a block emitted during the same chunk (how one chunk's text is split
 * into deltas is free). Every run also checks that the listener API and {@code parse} agree,
 * that each event carries the chunk during which it was emitted, and the well-formedness rules
 * ({@link StreamTesting#assertWellFormed}). Inside text blocks, {@code \\n} stands for the
 * rendered escape {@code \n} of a newline.
 */
class StreamContractExamplesTest {

    @Nested
    @DisplayName("Whitespace")
    class Whitespace {

        @Test
        void spaceBeforeAndAfterABlockCollapsesToOne() {
            expect("Let me think. <thinking>x</thinking> The answer.", """
                    0 message_start
                    0 message_content "Let me think."
                    0 message_end "Let me think."
                    0 thinking_start thinking {}
                    0 thinking_content "x"
                    0 thinking_end "x"
                    0 message_start
                    0 message_content " The answer."
                    1 message_end " The answer."
                    1 complete "Let me think. The answer." thinking=[thinking {} "x"] tool_calls=[]
                    """);
        }

        @Test
        void newlineBeforeAndAfterABlockCollapsesToOne() {
            expect("A\n<thinking>t</thinking>\nB", """
                    0 message_start
                    0 message_content "A"
                    0 message_end "A"
                    0 thinking_start thinking {}
                    0 thinking_content "t"
                    0 thinking_end "t"
                    0 message_start
                    0 message_content "\\nB"
                    1 message_end "\\nB"
                    1 complete "A\\nB" thinking=[thinking {} "t"] tool_calls=[]
                    """);
        }

        @Test
        void spaceOnlyAfterABlockIsKept() {
            expect("Hello<thinking>x</thinking> world", """
                    0 message_start
                    0 message_content "Hello"
                    0 message_end "Hello"
                    0 thinking_start thinking {}
                    0 thinking_content "x"
                    0 thinking_end "x"
                    0 message_start
                    0 message_content " world"
                    1 message_end " world"
                    1 complete "Hello world" thinking=[thinking {} "x"] tool_calls=[]
                    """);
        }

        @Test
        void whitespaceAfterALeadingBlockIsDropped() {
            expect("<thinking>x</thinking>\n\nHi", """
                    0 thinking_start thinking {}
                    0 thinking_content "x"
                    0 thinking_end "x"
                    0 message_start
                    0 message_content "Hi"
                    1 message_end "Hi"
                    1 complete "Hi" thinking=[thinking {} "x"] tool_calls=[]
                    """);
        }

        @Test
        void spaceOnlyBeforeABlockIsKept() {
            expect("A <thinking>x</thinking>B", """
                    0 message_start
                    0 message_content "A"
                    0 message_end "A"
                    0 thinking_start thinking {}
                    0 thinking_content "x"
                    0 thinking_end "x"
                    0 message_start
                    0 message_content " B"
                    1 message_end " B"
                    1 complete "A B" thinking=[thinking {} "x"] tool_calls=[]
                    """);
        }

        @Test
        void heldWhitespaceStaysHeldAcrossSeveralBlocks() {
            expect(dq("A <thinking>x</thinking> <tool>{'name': 't'}</tool>\n B"), """
                    0 message_start
                    0 message_content "A"
                    0 message_end "A"
                    0 thinking_start thinking {}
                    0 thinking_content "x"
                    0 thinking_end "x"
                    0 tool_call_start tool {}
                    0 tool_call_name t
                    0 tool_call_content "{"name": "t"}"
                    0 tool_call_end {"server_name":"local","tool_name":"t","arguments":{}}
                    0 message_start
                    0 message_content " B"
                    1 message_end " B"
                    1 complete "A B" thinking=[thinking {} "x"] tool_calls=[{"server_name":"local","tool_name":"t","arguments":{}}]
                    """);
        }

        @Test
        void whitespaceBetweenBlocksIsHeldAtTheSecondBlockAndDroppedAfterIt() {
            // No whitespace held when the thinking block begins, so the space after it is
            // message whitespace, held; it is still held when the tool block begins, so the
            // run after the tool block is dropped.
            expect(dq("A<thinking>x</thinking> <tool>{'name': 't'}</tool>  B"), """
                    0 message_start
                    0 message_content "A"
                    0 message_end "A"
                    0 thinking_start thinking {}
                    0 thinking_content "x"
                    0 thinking_end "x"
                    0 tool_call_start tool {}
                    0 tool_call_name t
                    0 tool_call_content "{"name": "t"}"
                    0 tool_call_end {"server_name":"local","tool_name":"t","arguments":{}}
                    0 message_start
                    0 message_content " B"
                    1 message_end " B"
                    1 complete "A B" thinking=[thinking {} "x"] tool_calls=[{"server_name":"local","tool_name":"t","arguments":{}}]
                    """);
        }

        @Test
        void droppedRunAfterABlockMaySpanChunks() {
            expect(chunks("A <thinking>x</thinking> ", "\t", " B"), """
                    0 message_start
                    0 message_content "A"
                    0 message_end "A"
                    0 thinking_start thinking {}
                    0 thinking_content "x"
                    0 thinking_end "x"
                    2 message_start
                    2 message_content " B"
                    3 message_end " B"
                    3 complete "A B" thinking=[thinking {} "x"] tool_calls=[]
                    """);
        }

        @Test
        void leadingAndTrailingWhitespaceOfTheMessageIsDropped() {
            expect(" \n\t Hello,  world \r\n ", """
                    0 message_start
                    0 message_content "Hello,  world"
                    1 message_end "Hello,  world"
                    1 complete "Hello,  world" thinking=[] tool_calls=[]
                    """);
        }

        @Test
        void trailingWhitespaceAfterABlockIsDropped() {
            expect("Hello<thinking>x</thinking>  \n", """
                    0 message_start
                    0 message_content "Hello"
                    0 message_end "Hello"
                    0 thinking_start thinking {}
                    0 thinking_content "x"
                    0 thinking_end "x"
                    1 complete "Hello" thinking=[thinking {} "x"] tool_calls=[]
                    """);
        }

        @Test
        void whitespaceIsHeldUntilTheNextNonWhitespaceCharacterArrives() {
            expect(chunks("Hi ", " ", "\n", "there"), """
                    0 message_start
                    0 message_content "Hi"
                    3 message_content "  \\nthere"
                    4 message_end "Hi  \\nthere"
                    4 complete "Hi  \\nthere" thinking=[] tool_calls=[]
                    """);
        }

        @Test
        void onlySpaceTabCrLfAreWhitespace() {
            expect("\u2003\u00a0Hi\u000b\f", """
                    0 message_start
                    0 message_content "\u2003\u00a0Hi\u000b\f"
                    1 message_end "\u2003\u00a0Hi\u000b\f"
                    1 complete "\u2003\u00a0Hi\u000b\f" thinking=[] tool_calls=[]
                    """);
        }

        @Test
        void whitespaceOnlyStreamHasNoMessageBlock() {
            expect(chunks("  ", "\n\t"), """
                    2 complete "" thinking=[] tool_calls=[]
                    """);
        }

        @Test
        void emptyStreamIsJustComplete() {
            expect(List.of(), """
                    0 complete "" thinking=[] tool_calls=[]
                    """);
        }

        @Test
        void blockContentIsTrimmedAndInnerWhitespaceKeptExactly() {
            expect("<thinking>\n  a \n\t b  \r\n</thinking>", """
                    0 thinking_start thinking {}
                    0 thinking_content "a \\n\\t b"
                    0 thinking_end "a \\n\\t b"
                    1 complete "" thinking=[thinking {} "a \\n\\t b"] tool_calls=[]
                    """);
        }

        @Test
        void trailingWhitespaceInABlockIsHeldUntilContentFollows() {
            expect(chunks("<thinking> a ", " b ", "</thinking>"), """
                    0 thinking_start thinking {}
                    0 thinking_content "a"
                    1 thinking_content "  b"
                    2 thinking_end "a  b"
                    3 complete "" thinking=[thinking {} "a  b"] tool_calls=[]
                    """);
        }
    }

    @Nested
    @DisplayName("Plain text: no other name is special")
    class PlainText {

        @ParameterizedTest
        @ValueSource(strings = {
                "Make it <b>bold</b>.",
                "Open the <toolbox> now",
                "<thinker>deep</thinker>",
                "<think-tank>",
                "a < b",
                "x<10",
                "</div>",
                "<thinking2>x</thinking2>",
                "<tool2>x</tool2>",
                "<tool_calls>x</tool_calls>",
                "a</thinking>b",
                "done </tool> </tool_call>",
                "< thinking>x</thinking>",
                "<>",
                "<thinking/x>",
                "<!-- <b> -->",
                "<![CDATA[x]]>",
                "if (a<b && c>d) return;",
                "1 <2> 3",
                "<thinking\u000b>x</thinking>",
                "<thinking\u00a0a=\"1\">x</thinking>",
        })
        void passesThroughUnchanged(String text) {
            expect(text, """
                    0 message_start
                    0 message_content "%1$s"
                    1 message_end "%1$s"
                    1 complete "%1$s" thinking=[] tool_calls=[]
                    """.formatted(text));
        }

        @Test
        void strayCloseTagIsTextEvenAfterABlock() {
            expect("<thinking>x</thinking>y</thinking>", """
                    0 thinking_start thinking {}
                    0 thinking_content "x"
                    0 thinking_end "x"
                    0 message_start
                    0 message_content "y</thinking>"
                    1 message_end "y</thinking>"
                    1 complete "y</thinking>" thinking=[thinking {} "x"] tool_calls=[]
                    """);
        }

        @Test
        void customTagSetsReplaceTheDefaults() {
            StreamOptions options = StreamOptions.builder().thinkingTags("reasoning").toolTags("call").build();
            expect(options, chunks(dq("<think>a</think><reasoning>r</reasoning><call>{'name': 't'}</call><tool>x</tool>")), """
                    0 message_start
                    0 message_content "<think>a</think>"
                    0 message_end "<think>a</think>"
                    0 thinking_start reasoning {}
                    0 thinking_content "r"
                    0 thinking_end "r"
                    0 tool_call_start call {}
                    0 tool_call_name t
                    0 tool_call_content "{"name": "t"}"
                    0 tool_call_end {"server_name":"local","tool_name":"t","arguments":{}}
                    0 message_start
                    0 message_content "<tool>x</tool>"
                    1 message_end "<tool>x</tool>"
                    1 complete "<think>a</think><tool>x</tool>" thinking=[reasoning {} "r"] tool_calls=[{"server_name":"local","tool_name":"t","arguments":{}}]
                    """);
        }
    }

    @Nested
    @DisplayName("Tag names are matched ASCII case-insensitively and reported as written")
    class CaseInsensitivity {

        @Test
        void upperCaseThinkingClosedByLowerCase() {
            expect("<THINKING>x</thinking>", """
                    0 thinking_start THINKING {}
                    0 thinking_content "x"
                    0 thinking_end "x"
                    1 complete "" thinking=[THINKING {} "x"] tool_calls=[]
                    """);
        }

        @Test
        void mixedCaseThink() {
            expect("<Think>x</tHINK>", """
                    0 thinking_start Think {}
                    0 thinking_content "x"
                    0 thinking_end "x"
                    1 complete "" thinking=[Think {} "x"] tool_calls=[]
                    """);
        }

        @Test
        void mixedCaseToolCall() {
            expect(dq("<Tool_Call>{'name': 't'}</TOOL_CALL>"), """
                    0 tool_call_start Tool_Call {}
                    0 tool_call_name t
                    0 tool_call_content "{"name": "t"}"
                    0 tool_call_end {"server_name":"local","tool_name":"t","arguments":{}}
                    1 complete "" thinking=[] tool_calls=[{"server_name":"local","tool_name":"t","arguments":{}}]
                    """);
        }

        @Test
        void closeTagOfTheOtherThinkingNameIsContentWhateverItsCase() {
            expect("<THINK>a</Thinking>b</think>", """
                    0 thinking_start THINK {}
                    0 thinking_content "a</Thinking>b"
                    0 thinking_end "a</Thinking>b"
                    1 complete "" thinking=[THINK {} "a</Thinking>b"] tool_calls=[]
                    """);
        }
    }

    @Nested
    @DisplayName("Attributes")
    class AttributeSection {

        private void expectThinkAttributes(String openTag, String attributes) {
            expect(openTag + "x</think>", """
                    0 thinking_start think %1$s
                    0 thinking_content "x"
                    0 thinking_end "x"
                    1 complete "" thinking=[think %1$s "x"] tool_calls=[]
                    """.formatted(attributes));
        }

        @Test
        void doubleQuoted() {
            expectThinkAttributes("<think a=\"v w\">", "{a=\"v w\"}");
        }

        @Test
        void singleQuotedMayHoldDoubleQuotes() {
            expectThinkAttributes("<think a='say \"hi\"' b=\"it's\">", "{a=\"say \"hi\"\", b=\"it's\"}");
        }

        @Test
        void unquotedRunsToTheNextWhitespace() {
            expectThinkAttributes("<think a=v b=x/y\tc=3>", "{a=\"v\", b=\"x/y\", c=\"3\"}");
        }

        @Test
        void bareAttributeHasEmptyValue() {
            expectThinkAttributes("<think a b=\"2\" c>", "{a=\"\", b=\"2\", c=\"\"}");
        }

        @Test
        void whitespaceMaySurroundEquals() {
            expectThinkAttributes("<think a = \"1\" b= '2' c =3 d =\n4>", "{a=\"1\", b=\"2\", c=\"3\", d=\"4\"}");
        }

        @Test
        void valuesAreLiteralNoEntityDecoding() {
            expectThinkAttributes("<think a=\"&amp;&lt;&#65;\">", "{a=\"&amp;&lt;&#65;\"}");
        }

        @Test
        void repeatedAttributeKeepsItsLastValue() {
            expectThinkAttributes("<think b=\"2\" a=\"1\" a='3'>", "{b=\"2\", a=\"3\"}");
        }

        @Test
        void namesMayUseColonDashDotUnderscoreAndKeepTheirOrderAndCase() {
            expectThinkAttributes("<think z=\"1\" xml:lang=\"en\" data-x.y='2' _Mode=fast>",
                    "{z=\"1\", xml:lang=\"en\", data-x.y=\"2\", _Mode=\"fast\"}");
        }

        @Test
        void invalidAttributeNamesAreIgnored() {
            expectThinkAttributes("<think a=\"1\" @ = \"2\" # b=3 %>", "{a=\"1\", b=\"3\"}");
        }

        @Test
        void whitespaceInTheSectionMayBeNewlinesAndTabs() {
            expectThinkAttributes("<think\n\ta=\"1\"\r\n>", "{a=\"1\"}");
        }

        @Test
        void whitespaceOnlySectionMeansNoAttributes() {
            expectThinkAttributes("<think  \n>", "{}");
        }

        @Test
        void toolTagsHaveAttributesToo() {
            expect(dq("<tool id='7' async>{'name': 't'}</tool>"), """
                    0 tool_call_start tool {id="7", async=""}
                    0 tool_call_name t
                    0 tool_call_content "{"name": "t"}"
                    0 tool_call_end {"server_name":"local","tool_name":"t","arguments":{}}
                    1 complete "" thinking=[] tool_calls=[{"server_name":"local","tool_name":"t","arguments":{}}]
                    """);
        }

        @Test
        void selfClosingSlashIsNeverPartOfAnUnquotedValue() {
            expect("<think a=v/>", """
                    0 thinking_start think {a="v"}
                    0 thinking_end ""
                    1 complete "" thinking=[think {a="v"} ""] tool_calls=[]
                    """);
        }

        @Test
        void selfClosingAfterWhitespaceAndBareAttribute() {
            expect("<think a />", """
                    0 thinking_start think {a=""}
                    0 thinking_end ""
                    1 complete "" thinking=[think {a=""} ""] tool_calls=[]
                    """);
        }

        @Test
        void attributeSectionContainingALessThanIsNotATagEvenInQuotes() {
            // The '<' breaks the candidate; it is scanned afresh ("<\"" is no tag either).
            expect("<thinking a=\"<\">x</thinking>", """
                    0 message_start
                    0 message_content "<thinking a="<">x</thinking>"
                    1 message_end "<thinking a="<">x</thinking>"
                    1 complete "<thinking a="<">x</thinking>" thinking=[] tool_calls=[]
                    """);
        }

        @Test
        void lessThanInTheAttributeSectionStartsAFreshCandidate() {
            expect("<thinking a<think>y</think>", """
                    0 message_start
                    0 message_content "<thinking a"
                    0 message_end "<thinking a"
                    0 thinking_start think {}
                    0 thinking_content "y"
                    0 thinking_end "y"
                    1 complete "<thinking a" thinking=[think {} "y"] tool_calls=[]
                    """);
        }
    }

    @Nested
    @DisplayName("Self-closing tags are empty blocks")
    class SelfClosing {

        @Test
        void selfClosingThinking() {
            expect("A<thinking/>B", """
                    0 message_start
                    0 message_content "A"
                    0 message_end "A"
                    0 thinking_start thinking {}
                    0 thinking_end ""
                    0 message_start
                    0 message_content "B"
                    1 message_end "B"
                    1 complete "AB" thinking=[thinking {} ""] tool_calls=[]
                    """);
        }

        @Test
        void selfClosingWithAttributeBetweenSpaces() {
            expect("A <think a=\"1\" /> B", """
                    0 message_start
                    0 message_content "A"
                    0 message_end "A"
                    0 thinking_start think {a="1"}
                    0 thinking_end ""
                    0 message_start
                    0 message_content " B"
                    1 message_end " B"
                    1 complete "A B" thinking=[think {a="1"} ""] tool_calls=[]
                    """);
        }

        @Test
        void selfClosingToolIsAnEmptyCallWhichIsAnError() {
            List<StreamEvent> events = run("<tool/>");
            assertEvents(events, """
                    0 tool_call_start tool {}
                    0 tool_call_end error
                    1 complete "" thinking=[] tool_calls=[error]
                    """);
            assertThat(onlyToolCallError(events).content()).isEmpty();
        }

        @Test
        void emptyBlocksAreListedInComplete() {
            expect("<thinking></thinking>A<think/><thinking> \n </thinking>", """
                    0 thinking_start thinking {}
                    0 thinking_end ""
                    0 message_start
                    0 message_content "A"
                    0 message_end "A"
                    0 thinking_start think {}
                    0 thinking_end ""
                    0 thinking_start thinking {}
                    0 thinking_end ""
                    1 complete "A" thinking=[thinking {} "", think {} "", thinking {} ""] tool_calls=[]
                    """);
        }
    }

    @Nested
    @DisplayName("256-character limit")
    class LengthLimit {

        private static final String PREFIX = "<thinking a=\""; // 13 characters

        @Test
        void openTagOfExactly256CharactersIsATag() {
            String value = "x".repeat(256 - PREFIX.length() - 2);
            String tag = PREFIX + value + "\">";
            assertThat(tag).hasSize(256);
            expect(tag + "y</thinking>", """
                    0 thinking_start thinking {a="%1$s"}
                    0 thinking_content "y"
                    0 thinking_end "y"
                    1 complete "" thinking=[thinking {a="%1$s"} "y"] tool_calls=[]
                    """.formatted(value));
        }

        @Test
        void openTagOf257CharactersIsText() {
            String text = PREFIX + "x".repeat(256 - PREFIX.length() - 1) + "\">y</thinking>";
            expect(text, """
                    0 message_start
                    0 message_content "%1$s"
                    1 message_end "%1$s"
                    1 complete "%1$s" thinking=[] tool_calls=[]
                    """.formatted(text));
        }

        @Test
        void candidateIsReleasedInTheChunkWhereItReaches256Characters() {
            String first = PREFIX + "x".repeat(256 - PREFIX.length() - 1); // 255 characters
            expect(chunks(first, "\"", ">y"), """
                    1 message_start
                    1 message_content "%1$s""
                    2 message_content ">y"
                    3 message_end "%1$s">y"
                    3 complete "%1$s">y" thinking=[] tool_calls=[]
                    """.formatted(first));
        }

        @Test
        void tagCompletedAtCharacter256IsATagInThatChunk() {
            String first = PREFIX + "x".repeat(256 - PREFIX.length() - 2); // 254 characters
            expect(chunks(first, "\"", ">", "y</thinking>"), """
                    2 thinking_start thinking {a="%1$s"}
                    3 thinking_content "y"
                    3 thinking_end "y"
                    4 complete "" thinking=[thinking {a="%1$s"} "y"] tool_calls=[]
                    """.formatted("x".repeat(256 - PREFIX.length() - 2)));
        }

        @Test
        void candidateWithoutEndIsReleasedAt256AndTheRestFlowsInTheSameChunk() {
            String text = "<thinking " + "a".repeat(300);
            expect(chunks(text, " tail"), """
                    0 message_start
                    0 message_content "%1$s"
                    1 message_content " tail"
                    2 message_end "%1$s tail"
                    2 complete "%1$s tail" thinking=[] tool_calls=[]
                    """.formatted(text));
        }

        @Test
        void closeTagOfExactly256CharactersCloses() {
            String close = "</thinking" + " ".repeat(245) + ">";
            assertThat(close).hasSize(256);
            expect("<thinking>a" + close + "b", """
                    0 thinking_start thinking {}
                    0 thinking_content "a"
                    0 thinking_end "a"
                    0 message_start
                    0 message_content "b"
                    1 message_end "b"
                    1 complete "b" thinking=[thinking {} "a"] tool_calls=[]
                    """);
        }

        @Test
        void closeTagOf257CharactersIsContent() {
            String notClose = "</thinking" + " ".repeat(246) + ">";
            expect("<thinking>a" + notClose + "b</thinking>c", """
                    0 thinking_start thinking {}
                    0 thinking_content "a%1$sb"
                    0 thinking_end "a%1$sb"
                    0 message_start
                    0 message_content "c"
                    1 message_end "c"
                    1 complete "c" thinking=[thinking {} "a%1$sb"] tool_calls=[]
                    """.formatted(notClose));
        }
    }

    @Nested
    @DisplayName("Candidates and close tags")
    class Candidates {

        @Test
        void lessThanInsideACandidateBreaksItAndIsScannedAfresh() {
            expect("<thin<thinking>x</thinking>", """
                    0 message_start
                    0 message_content "<thin"
                    0 message_end "<thin"
                    0 thinking_start thinking {}
                    0 thinking_content "x"
                    0 thinking_end "x"
                    1 complete "<thin" thinking=[thinking {} "x"] tool_calls=[]
                    """);
        }

        @Test
        void doubleLessThan() {
            expect("<<thinking>x</thinking>", """
                    0 message_start
                    0 message_content "<"
                    0 message_end "<"
                    0 thinking_start thinking {}
                    0 thinking_content "x"
                    0 thinking_end "x"
                    1 complete "<" thinking=[thinking {} "x"] tool_calls=[]
                    """);
        }

        @Test
        void closeTagOfAnotherNameInsideABlockIsContent() {
            expect("<think>a</thinking>b</think>", """
                    0 thinking_start think {}
                    0 thinking_content "a</thinking>b"
                    0 thinking_end "a</thinking>b"
                    1 complete "" thinking=[think {} "a</thinking>b"] tool_calls=[]
                    """);
        }

        @Test
        void noNesting() {
            expect("<thinking>a<thinking>b</thinking>c", """
                    0 thinking_start thinking {}
                    0 thinking_content "a<thinking>b"
                    0 thinking_end "a<thinking>b"
                    0 message_start
                    0 message_content "c"
                    1 message_end "c"
                    1 complete "c" thinking=[thinking {} "a<thinking>b"] tool_calls=[]
                    """);
        }

        @Test
        void toolTagInsideThinkingIsContent() {
            expect(dq("<thinking>maybe <tool>{'name': 'x'}</tool> later</thinking>done"), """
                    0 thinking_start thinking {}
                    0 thinking_content "maybe <tool>{"name": "x"}</tool> later"
                    0 thinking_end "maybe <tool>{"name": "x"}</tool> later"
                    0 message_start
                    0 message_content "done"
                    1 message_end "done"
                    1 complete "done" thinking=[thinking {} "maybe <tool>{"name": "x"}</tool> later"] tool_calls=[]
                    """);
        }

        @Test
        void closeTagMayHaveWhitespaceBeforeTheGreaterThan() {
            expect("<thinking>a</thinking \r\n\t>b", """
                    0 thinking_start thinking {}
                    0 thinking_content "a"
                    0 thinking_end "a"
                    0 message_start
                    0 message_content "b"
                    1 message_end "b"
                    1 complete "b" thinking=[thinking {} "a"] tool_calls=[]
                    """);
        }

        @Test
        void closeTagNeedsTheNameDirectlyAfterTheSlash() {
            expect("<thinking>a</ thinking>b</thinking>", """
                    0 thinking_start thinking {}
                    0 thinking_content "a</ thinking>b"
                    0 thinking_end "a</ thinking>b"
                    1 complete "" thinking=[thinking {} "a</ thinking>b"] tool_calls=[]
                    """);
        }

        @Test
        void otherToolCloseTagInsideAToolBlockIsContent() {
            expect(dq("<tool>{'name': 't', 'arguments': {'x': '</tool_call>'}}</tool>"), """
                    0 tool_call_start tool {}
                    0 tool_call_name t
                    0 tool_call_content "{"name": "t", "arguments": {"x": "</tool_call>"}}"
                    0 tool_call_end {"server_name":"local","tool_name":"t","arguments":{"x":"</tool_call>"}}
                    1 complete "" thinking=[] tool_calls=[{"server_name":"local","tool_name":"t","arguments":{"x":"</tool_call>"}}]
                    """);
        }

        @Test
        void openTagCandidatePendingAtEndOfStreamIsText() {
            expect(chunks("Hi <thinking a=\"1\""), """
                    0 message_start
                    0 message_content "Hi"
                    1 message_content " <thinking a="1""
                    1 message_end "Hi <thinking a="1""
                    1 complete "Hi <thinking a="1"" thinking=[] tool_calls=[]
                    """);
        }

        @Test
        void unclosedThinkingBlockEndsAtEndOfStream() {
            expect(chunks("<thinking>ab", "c "), """
                    0 thinking_start thinking {}
                    0 thinking_content "ab"
                    1 thinking_content "c"
                    2 thinking_end "abc"
                    2 complete "" thinking=[thinking {} "abc"] tool_calls=[]
                    """);
        }

        @Test
        void closeTagCandidatePendingAtEndOfStreamIsContent() {
            expect(chunks("<thinking>ab</thin"), """
                    0 thinking_start thinking {}
                    0 thinking_content "ab"
                    1 thinking_content "</thin"
                    1 thinking_end "ab</thin"
                    1 complete "" thinking=[thinking {} "ab</thin"] tool_calls=[]
                    """);
        }
    }

    @Nested
    @DisplayName("CDATA in tool blocks")
    class Cdata {

        @Test
        void cdataHidesTheCloseTagInXmlForm() {
            expect("<tool><tool_name>write</tool_name><arguments><text><![CDATA[a </tool> b]]></text></arguments></tool>", """
                    0 tool_call_start tool {}
                    0 tool_call_name write
                    0 tool_call_content "<tool_name>write</tool_name><arguments><text><![CDATA[a </tool> b]]></text></arguments>"
                    0 tool_call_end {"server_name":"local","tool_name":"write","arguments":{"text":"a </tool> b"}}
                    1 complete "" thinking=[] tool_calls=[{"server_name":"local","tool_name":"write","arguments":{"text":"a </tool> b"}}]
                    """);
        }

        @Test
        void cdataHidesTheCloseTagInJsonToo() {
            expect(dq("<tool>{'name': 'w', 'arguments': {'t': '<![CDATA[</tool>]]>'}}</tool>"), """
                    0 tool_call_start tool {}
                    0 tool_call_name w
                    0 tool_call_content "{"name": "w", "arguments": {"t": "<![CDATA[</tool>]]>"}}"
                    0 tool_call_end {"server_name":"local","tool_name":"w","arguments":{"t":"<![CDATA[</tool>]]>"}}
                    1 complete "" thinking=[] tool_calls=[{"server_name":"local","tool_name":"w","arguments":{"t":"<![CDATA[</tool>]]>"}}]
                    """);
        }

        @Test
        void cdataMarkersMaySpanChunks() {
            // Nothing here is whitespace or a possible close tag, so nothing is held back.
            expect(chunks(dq("<tool>{'name': 'w', 'arguments': {'t': '<![CD"), "ATA[</to", dq("ol>]]>'}}</tool>")), """
                    0 tool_call_start tool {}
                    0 tool_call_name w
                    0 tool_call_content "{"name": "w", "arguments": {"t": "<![CD"
                    1 tool_call_content "ATA[</to"
                    2 tool_call_content "ol>]]>"}}"
                    2 tool_call_end {"server_name":"local","tool_name":"w","arguments":{"t":"<![CDATA[</tool>]]>"}}
                    3 complete "" thinking=[] tool_calls=[{"server_name":"local","tool_name":"w","arguments":{"t":"<![CDATA[</tool>]]>"}}]
                    """);
        }

        @Test
        void cdataMarkersAreCaseSensitive() {
            expect(dq("<tool>{'name': 'w', 'arguments': {'t': '<![cdata[</tool>]]>'}}</tool>"), """
                    0 tool_call_start tool {}
                    0 tool_call_name w
                    0 tool_call_content "{"name": "w", "arguments": {"t": "<![cdata["
                    0 tool_call_end error
                    0 message_start
                    0 message_content "]]>"}}</tool>"
                    1 message_end "]]>"}}</tool>"
                    1 complete "]]>"}}</tool>" thinking=[] tool_calls=[error]
                    """);
        }

        @Test
        void closeTagInsideAJsonStringEndsTheBlock() {
            List<StreamEvent> events = run(dq("<tool>{'name': 'write', 'arguments': {'text': 'a</tool>b'}}</tool>"));
            assertEvents(events, """
                    0 tool_call_start tool {}
                    0 tool_call_name write
                    0 tool_call_content "{"name": "write", "arguments": {"text": "a"
                    0 tool_call_end error
                    0 message_start
                    0 message_content "b"}}</tool>"
                    1 message_end "b"}}</tool>"
                    1 complete "b"}}</tool>" thinking=[] tool_calls=[error]
                    """);
            assertThat(onlyToolCallError(events).content()).isEqualTo(dq("{'name': 'write', 'arguments': {'text': 'a"));
        }

        @Test
        void cdataIsNotSpecialInThinking() {
            expect("<thinking><![CDATA[</thinking>]]></thinking>", """
                    0 thinking_start thinking {}
                    0 thinking_content "<![CDATA["
                    0 thinking_end "<![CDATA["
                    0 message_start
                    0 message_content "]]></thinking>"
                    1 message_end "]]></thinking>"
                    1 complete "]]></thinking>" thinking=[thinking {} "<![CDATA["] tool_calls=[]
                    """);
        }
    }

    @Nested
    @DisplayName("thinking-open")
    class ThinkingOpen {

        @Test
        void streamStartsInsideAThinkBlock() {
            expect(thinkingOpen(), chunks("Let me see.</think>The answer."), """
                    0 thinking_start think {}
                    0 thinking_content "Let me see."
                    0 thinking_end "Let me see."
                    0 message_start
                    0 message_content "The answer."
                    1 message_end "The answer."
                    1 complete "The answer." thinking=[think {} "Let me see."] tool_calls=[]
                    """);
        }

        @ParameterizedTest
        @ValueSource(strings = {"</thinking>", "</THINKING>", "</Think >"})
        void endsAtACloseTagOfAnyThinkingName(String close) {
            expect(thinkingOpen(), chunks("r" + close + "m"), """
                    0 thinking_start think {}
                    0 thinking_content "r"
                    0 thinking_end "r"
                    0 message_start
                    0 message_content "m"
                    1 message_end "m"
                    1 complete "m" thinking=[think {} "r"] tool_calls=[]
                    """);
        }

        @Test
        void noChunksAtAll() {
            expect(thinkingOpen(), List.of(), """
                    0 thinking_start think {}
                    0 thinking_end ""
                    0 complete "" thinking=[think {} ""] tool_calls=[]
                    """);
        }

        @Test
        void emptyFirstChunk() {
            expect(thinkingOpen(), chunks("", "a</think>b"), """
                    0 thinking_start think {}
                    1 thinking_content "a"
                    1 thinking_end "a"
                    1 message_start
                    1 message_content "b"
                    2 message_end "b"
                    2 complete "b" thinking=[think {} "a"] tool_calls=[]
                    """);
        }

        @Test
        void closeTagSplitAcrossChunksAndWhitespaceAroundIt() {
            expect(thinkingOpen(), chunks("\n\nreasoning\n</th", "ink>\n\nAnswer"), """
                    0 thinking_start think {}
                    0 thinking_content "reasoning"
                    1 thinking_end "reasoning"
                    1 message_start
                    1 message_content "Answer"
                    2 message_end "Answer"
                    2 complete "Answer" thinking=[think {} "reasoning"] tool_calls=[]
                    """);
        }

        @Test
        void toolCloseTagDoesNotEndIt() {
            expect(thinkingOpen(), chunks("a</tool>b</think>c"), """
                    0 thinking_start think {}
                    0 thinking_content "a</tool>b"
                    0 thinking_end "a</tool>b"
                    0 message_start
                    0 message_content "c"
                    1 message_end "c"
                    1 complete "c" thinking=[think {} "a</tool>b"] tool_calls=[]
                    """);
        }

        @Test
        void aSecondOpenThinkTagInsideIsContentBecauseThereIsNoNesting() {
            // 1.0 had "<think>a</think>b" here; since 1.1 that first <think> is consumed
            // (StreamContract11Test), so the no-nesting rule is shown with content before it.
            expect(thinkingOpen(), chunks("x<think>a</think>b"), """
                    0 thinking_start think {}
                    0 thinking_content "x<think>a"
                    0 thinking_end "x<think>a"
                    0 message_start
                    0 message_content "b"
                    1 message_end "b"
                    1 complete "b" thinking=[think {} "x<think>a"] tool_calls=[]
                    """);
        }

        @Test
        void tagsWorkAsUsualAfterTheOpenBlock() {
            expect(thinkingOpen(), chunks(dq("x</think>A <tool>{'name': 't'}</tool> B")), """
                    0 thinking_start think {}
                    0 thinking_content "x"
                    0 thinking_end "x"
                    0 message_start
                    0 message_content "A"
                    0 message_end "A"
                    0 tool_call_start tool {}
                    0 tool_call_name t
                    0 tool_call_content "{"name": "t"}"
                    0 tool_call_end {"server_name":"local","tool_name":"t","arguments":{}}
                    0 message_start
                    0 message_content " B"
                    1 message_end " B"
                    1 complete "A B" thinking=[think {} "x"] tool_calls=[{"server_name":"local","tool_name":"t","arguments":{}}]
                    """);
        }
    }

    @Nested
    @DisplayName("Provider-typed thinking")
    class ProviderThinking {

        @Test
        void consecutiveThinkingChunksFormOneBlockEndedByAMessageChunk() {
            expect(List.of(think("a"), think("b"), msg("c")), """
                    0 thinking_start thinking {}
                    0 thinking_content "a"
                    1 thinking_content "b"
                    2 thinking_end "ab"
                    2 message_start
                    2 message_content "c"
                    3 message_end "c"
                    3 complete "c" thinking=[thinking {} "ab"] tool_calls=[]
                    """);
        }

        @Test
        void endsAtEndOfStreamAndIsTrimmed() {
            expect(List.of(think("  a "), think(" b  ")), """
                    0 thinking_start thinking {}
                    0 thinking_content "a"
                    1 thinking_content "  b"
                    2 thinking_end "a  b"
                    2 complete "" thinking=[thinking {} "a  b"] tool_calls=[]
                    """);
        }

        @Test
        void isNeverScannedForTags() {
            expect(List.of(think(dq("<tool>{'name': 'x'}</tool> </thinking> <think>"))), """
                    0 thinking_start thinking {}
                    0 thinking_content "<tool>{"name": "x"}</tool> </thinking> <think>"
                    1 thinking_end "<tool>{"name": "x"}</tool> </thinking> <think>"
                    1 complete "" thinking=[thinking {} "<tool>{"name": "x"}</tool> </thinking> <think>"] tool_calls=[]
                    """);
        }

        @Test
        void endsTheMessageBlock() {
            expect(List.of(msg("Hi"), think("r"), msg("there")), """
                    0 message_start
                    0 message_content "Hi"
                    1 message_end "Hi"
                    1 thinking_start thinking {}
                    1 thinking_content "r"
                    2 thinking_end "r"
                    2 message_start
                    2 message_content "there"
                    3 message_end "there"
                    3 complete "Hithere" thinking=[thinking {} "r"] tool_calls=[]
                    """);
        }

        @Test
        void pendingOpenTagCandidateBecomesTextWhenAThinkingChunkArrives() {
            expect(List.of(msg("Hi <thi"), think("r"), msg("nking>")), """
                    0 message_start
                    0 message_content "Hi"
                    1 message_content " <thi"
                    1 message_end "Hi <thi"
                    1 thinking_start thinking {}
                    1 thinking_content "r"
                    2 thinking_end "r"
                    2 message_start
                    2 message_content "nking>"
                    3 message_end "nking>"
                    3 complete "Hi <thinking>" thinking=[thinking {} "r"] tool_calls=[]
                    """);
        }

        @Test
        void whitespaceRulesApplyAroundProviderBlocks() {
            expect(List.of(msg("Hi "), think("r"), msg(" there")), """
                    0 message_start
                    0 message_content "Hi"
                    1 message_end "Hi"
                    1 thinking_start thinking {}
                    1 thinking_content "r"
                    2 thinking_end "r"
                    2 message_start
                    2 message_content " there"
                    3 message_end " there"
                    3 complete "Hi there" thinking=[thinking {} "r"] tool_calls=[]
                    """);
        }

        @Test
        void whitespaceAfterALeadingProviderBlockIsDropped() {
            expect(List.of(think("r"), msg("\n\nAnswer")), """
                    0 thinking_start thinking {}
                    0 thinking_content "r"
                    1 thinking_end "r"
                    1 message_start
                    1 message_content "Answer"
                    2 message_end "Answer"
                    2 complete "Answer" thinking=[thinking {} "r"] tool_calls=[]
                    """);
        }

        @Test
        void emptyChunksOfEitherTypeChangeNothingButCountAsAnIndex() {
            expect(List.of(think("a"), think(""), msg(""), think("b"), msg(""), msg("c")), """
                    0 thinking_start thinking {}
                    0 thinking_content "a"
                    3 thinking_content "b"
                    5 thinking_end "ab"
                    5 message_start
                    5 message_content "c"
                    6 message_end "c"
                    6 complete "c" thinking=[thinking {} "ab"] tool_calls=[]
                    """);
        }

        @Test
        void emptyThinkingChunkDoesNotStartABlockNorEndTheMessage() {
            expect(List.of(msg("a"), think(""), msg("b")), """
                    0 message_start
                    0 message_content "a"
                    2 message_content "b"
                    3 message_end "ab"
                    3 complete "ab" thinking=[] tool_calls=[]
                    """);
        }

        @Test
        void emptyThinkingChunkDoesNotBreakAPendingCandidate() {
            expect(List.of(msg("a<thi"), think(""), msg("nking>x</thinking>")), """
                    0 message_start
                    0 message_content "a"
                    2 message_end "a"
                    2 thinking_start thinking {}
                    2 thinking_content "x"
                    2 thinking_end "x"
                    3 complete "a" thinking=[thinking {} "x"] tool_calls=[]
                    """);
        }

        @Test
        void tagBlockThenProviderBlockAreTwoBlocks() {
            expect(List.of(msg("<thinking>x</thinking>"), think("y")), """
                    0 thinking_start thinking {}
                    0 thinking_content "x"
                    0 thinking_end "x"
                    1 thinking_start thinking {}
                    1 thinking_content "y"
                    2 thinking_end "y"
                    2 complete "" thinking=[thinking {} "x", thinking {} "y"] tool_calls=[]
                    """);
        }
    }

    @Nested
    @DisplayName("Tool-call content")
    class ToolCallContent {

        @ParameterizedTest(name = "{0} => {1}")
        @CsvSource(delimiterString = "=>", quoteCharacter = '`', textBlock = """
                {"tool_name": "read_file", "arguments": {"path": "a"}}          => local/read_file {"path":"a"}
                {"name": "read_file", "args": {"path": "a"}}                    => local/read_file {"path":"a"}
                {"tool": "read_file", "parameters": {"path": "a"}}              => local/read_file {"path":"a"}
                {"name": "t"}                                                   => local/t {}
                {"name": "t", "arguments": null}                                => local/t {}
                {"name": "t", "arguments": " \\n "}                             => local/t {}
                {"name": "t", "arguments": ""}                                  => local/t {}
                {"name": "t", "arguments": "{\\"a\\": 1}"}                      => local/t {"a":1}
                {"server_name": "fs", "name": "t", "arguments": {}}             => fs/t {}
                {"arguments": {"n": [1, 2.5, true, null], "o": {"k": "v"}}, "name": "t"} => local/t {"n":[1,2.5,true,null],"o":{"k":"v"}}
                {"name": "a", "name": "b"}                                      => local/b {}
                {"name": "t", "arguments": {"a": 1}, "arguments": {"b": 2}}     => local/t {"b":2}
                {"server_name": "name", "name": "t"}                            => name/t {}
                """)
        void jsonCalls(String content, String expected) {
            assertThat(decoded(content)).isEqualTo(expected);
        }

        @ParameterizedTest(name = "{0}")
        @CsvSource(delimiterString = "=>", quoteCharacter = '`', textBlock = """
                {"name": "a", "tool": "b"}                           => two name keys
                {"tool_name": "a", "name": "a"}                      => two name keys, same value
                {}                                                   => no name key
                {"arguments": {"name": "x"}}                         => name only nested
                {"name": ""}                                         => empty name
                {"name": 5}                                          => name not a string
                {"name": null}                                       => name null
                {"name": "t", "server_name": ""}                     => empty server_name
                {"name": "t", "server_name": 5}                      => server_name not a string
                {"name": "t", "arguments": [1]}                      => arguments an array
                {"name": "t", "arguments": 5}                        => arguments a number
                {"name": "t", "arguments": "[1]"}                    => arguments a string holding an array
                {"name": "t", "arguments": "not json"}               => arguments a string holding no JSON
                {"name": "t", "arguments": "{\\"a\\": 1,}"}          => arguments a string holding bad JSON
                {"name": "t", "arguments": {}, "args": {}}           => two arguments keys
                {"name": "t", "arguments": {}, "parameters": null}   => two arguments keys, one null
                {"name": "t",}                                       => trailing comma
                {"name": "t", "arguments": {"x": NaN}}               => NaN
                {name: "t"}                                          => unquoted key
                {'name': 't'}                                        => single quotes
                {"name": "t"                                         => unclosed object
                {"name": "t"} and more                               => text after the object
                [{"name": "t"}]                                      => an array
                read_file                                            => plain text
                call {"name": "t"}                                   => text before the object
                """)
        void jsonErrors(String content, String why) {
            assertThat(decoded(content)).as(why).isEqualTo("error");
        }

        @ParameterizedTest(name = "{0} => {1}")
        @CsvSource(delimiterString = "=>", quoteCharacter = '`', textBlock = """
                <tool_name>read_file</tool_name><arguments><path>a</path></arguments>                     => local/read_file {"path":"a"}
                <server_name> fs </server_name> <tool_name> t </tool_name> <arguments> <a> 1 </a> </arguments> => fs/t {"a":" 1 "}
                <tool_name>t</tool_name><arguments><o><x>1</x><y>2</y></o></arguments>                   => local/t {"o":{"x":"1","y":"2"}}
                <tool_name>t</tool_name><arguments><f>a</f><f>c</f><g>b</g></arguments>                  => local/t {"f":["a","c"],"g":"b"}
                <tool_name>t</tool_name><arguments><q>&lt;a&gt; &amp; &quot;b&quot; &apos;c&apos;</q></arguments> => local/t {"q":"<a> & \\"b\\" 'c'"}
                <tool_name>t</tool_name><arguments><q>&#65;&#x42;&#x1F600;</q></arguments>               => local/t {"q":"AB😀"}
                <tool_name>t</tool_name><arguments><q>&nbsp;&foo &#0; &#xD800; & x</q></arguments>       => local/t {"q":"&nbsp;&foo &#0; &#xD800; & x"}
                <tool_name>t</tool_name><arguments><q>  <![CDATA[ <x> & y ]]>  </q></arguments>          => local/t {"q":" <x> & y "}
                <tool_name>t</tool_name><arguments><q>a<![CDATA[<b>&amp;]]>c</q></arguments>             => local/t {"q":"a<b>&amp;c"}
                <tool_name>t</tool_name><arguments>{"a": 1}</arguments>                                 => local/t {"a":1}
                <tool_name>t</tool_name><arguments>   </arguments>                                        => local/t {}
                <tool_name>t</tool_name><arguments></arguments>                                           => local/t {}
                <tool_name>t</tool_name>                                                                 => local/t {}
                <thought>hmm</thought><tool_name>t</tool_name><extra><z>1</z></extra>                      => local/t {}
                <tool_name>a</tool_name><tool_name>b</tool_name>                                         => local/b {}
                <server_name> </server_name><tool_name>t</tool_name>                                     => local/t {}
                <tool_name>r&amp;d</tool_name>                                                           => local/r&d {}
                <arguments><a>1</a></arguments><tool_name>t</tool_name>                                  => local/t {"a":"1"}
                """)
        void xmlCalls(String content, String expected) {
            assertThat(decoded(content)).isEqualTo(expected);
        }

        @ParameterizedTest(name = "{0}")
        @CsvSource(delimiterString = "=>", quoteCharacter = '`', textBlock = """
                <Tool_Name>t</Tool_Name>                                      => element names are case-sensitive
                <tool_name>  </tool_name>                                     => empty tool_name
                <arguments><a>1</a></arguments>                               => no tool_name
                <tool_name>t</tool_name> please                               => text after the elements
                <tool_name>t</tool_name> and <arguments></arguments>          => text between the elements
                <!-- c --><tool_name>t</tool_name>                             => a comment
                <tool_name>t                                                  => an unclosed element
                <tool_name>t</tool_name><arguments><a>1</arguments>           => an unclosed child
                <tool_name>t</tool_name><arguments>hello</arguments>          => arguments text not JSON
                <tool_name>t</tool_name><arguments>[1]</arguments>            => arguments text a JSON array
                """)
        void xmlErrors(String content, String why) {
            assertThat(decoded(content)).as(why).isEqualTo("error");
        }

        @Test
        void fencedJsonWithLanguage() {
            assertThat(decoded(dq("\n```json\n{'name': 't', 'arguments': {'a': 1}}\n```\n"))).isEqualTo("local/t {\"a\":1}");
        }

        @Test
        void fencedJsonWithoutLanguage() {
            assertThat(decoded(dq("```\n{'name': 't'}\n```"))).isEqualTo("local/t {}");
        }

        @Test
        void openingFenceAlone() {
            assertThat(decoded(dq("```json\n{'name': 't'}"))).isEqualTo("local/t {}");
        }

        @Test
        void fencedXml() {
            assertThat(decoded("```xml\n<tool_name>t</tool_name>\n```")).isEqualTo("local/t {}");
        }

        @Test
        void errorCarriesTheTrimmedContentAndAReason() {
            List<StreamEvent> events = run("<tool>\n not a call \n</tool>");
            assertEvents(events, """
                    0 tool_call_start tool {}
                    0 tool_call_content "not a call"
                    0 tool_call_end error
                    1 complete "" thinking=[] tool_calls=[error]
                    """);
            ToolCallError error = onlyToolCallError(events);
            assertThat(error.content()).isEqualTo("not a call");
            assertThat(error.error()).isNotBlank();
        }

        @Test
        void unterminatedToolBlockIsAnErrorAtEndOfStream() {
            List<StreamEvent> events = run(dq("Run: <tool>{'name': 'x', 'arguments': {"));
            assertEvents(events, """
                    0 message_start
                    0 message_content "Run:"
                    0 message_end "Run:"
                    0 tool_call_start tool {}
                    0 tool_call_name x
                    0 tool_call_content "{"name": "x", "arguments": {"
                    1 tool_call_end error
                    1 complete "Run:" thinking=[] tool_calls=[error]
                    """);
            assertThat(onlyToolCallError(events).content()).isEqualTo(dq("{'name': 'x', 'arguments': {"));
        }

        @Test
        void unterminatedToolBlockWithADanglingCloseTagIsAnError() {
            // 1.1: the content so far is decoded, the partial close tag included, so it is not a call.
            List<StreamEvent> events = run(chunks(dq("<tool>{'name': 'x'}  </to")));
            assertEvents(events, """
                    0 tool_call_start tool {}
                    0 tool_call_name x
                    0 tool_call_content "{"name": "x"}"
                    1 tool_call_content "  </to"
                    1 tool_call_end error
                    1 complete "" thinking=[] tool_calls=[error]
                    """);
            assertThat(onlyToolCallError(events).content()).isEqualTo(dq("{'name': 'x'}  </to"));
            assertThat(onlyToolCallError(events).error()).contains("never closed");
        }

        @Test
        void toolBlocksSplitTheMessage() {
            expect(dq("a<tool>{'name': 't'}</tool>b"), """
                    0 message_start
                    0 message_content "a"
                    0 message_end "a"
                    0 tool_call_start tool {}
                    0 tool_call_name t
                    0 tool_call_content "{"name": "t"}"
                    0 tool_call_end {"server_name":"local","tool_name":"t","arguments":{}}
                    0 message_start
                    0 message_content "b"
                    1 message_end "b"
                    1 complete "ab" thinking=[] tool_calls=[{"server_name":"local","tool_name":"t","arguments":{}}]
                    """);
        }
    }

    @Nested
    @DisplayName("Early tool-name detection")
    class EarlyToolName {

        @Test
        void nameFiresInTheChunkThatCompletesIt() {
            expect(chunks(dq("<tool>{'tool_name': 'read"), dq("_file', 'arguments': {'path': 'a'}}"), "</tool>"), """
                    0 tool_call_start tool {}
                    0 tool_call_content "{"tool_name": "read"
                    1 tool_call_name read_file
                    1 tool_call_content "_file", "arguments": {"path": "a"}}"
                    2 tool_call_end {"server_name":"local","tool_name":"read_file","arguments":{"path":"a"}}
                    3 complete "" thinking=[] tool_calls=[{"server_name":"local","tool_name":"read_file","arguments":{"path":"a"}}]
                    """);
        }

        @Test
        void nameFiresWhenTheClosingQuoteArrives() {
            expect(chunks(dq("<tool>{'name': 'x"), "\"", dq(", 'arguments': {}}</tool>")), """
                    0 tool_call_start tool {}
                    0 tool_call_content "{"name": "x"
                    1 tool_call_name x
                    1 tool_call_content "\""
                    2 tool_call_content ", "arguments": {}}"
                    2 tool_call_end {"server_name":"local","tool_name":"x","arguments":{}}
                    3 complete "" thinking=[] tool_calls=[{"server_name":"local","tool_name":"x","arguments":{}}]
                    """);
        }

        @Test
        void keySplitAcrossChunks() {
            expect(chunks(dq("<tool>{'na"), dq("me': 'x'}</tool>")), """
                    0 tool_call_start tool {}
                    0 tool_call_content "{"na"
                    1 tool_call_name x
                    1 tool_call_content "me": "x"}"
                    1 tool_call_end {"server_name":"local","tool_name":"x","arguments":{}}
                    2 complete "" thinking=[] tool_calls=[{"server_name":"local","tool_name":"x","arguments":{}}]
                    """);
        }

        @Test
        void nestedKeysNeverCount() {
            expect(chunks(dq("<tool>{'arguments': {'name': 'evil', 'tool': 'evil'}, "), dq("'tool_name': 'good'}</tool>")), """
                    0 tool_call_start tool {}
                    0 tool_call_content "{"arguments": {"name": "evil", "tool": "evil"},"
                    1 tool_call_name good
                    1 tool_call_content " "tool_name": "good"}"
                    1 tool_call_end {"server_name":"local","tool_name":"good","arguments":{"name":"evil","tool":"evil"}}
                    2 complete "" thinking=[] tool_calls=[{"server_name":"local","tool_name":"good","arguments":{"name":"evil","tool":"evil"}}]
                    """);
        }

        @Test
        void keysInsideArraysAndStringsNeverCount() {
            String content = dq("{'arguments': {'list': [{'name': 'x'}]}, 'note': '\\'name\\': \\'y\\'', 'name': 'z'}");
            List<StreamEvent> events = run("<tool>" + content + "</tool>");
            assertThat(toolNames(events)).containsExactly("z");
        }

        @Test
        void onlyNestedNameGivesNoEvent() {
            List<StreamEvent> events = run(dq("<tool>{'arguments': {'name': 'x'}}</tool>"));
            assertThat(toolNames(events)).isEmpty();
            onlyToolCallError(events);
        }

        @Test
        void aNameValueThatIsAlsoAKeyWordDoesNotConfuseIt() {
            List<StreamEvent> events = run(dq("<tool>{'server_name': 'name', 'name': 't'}</tool>"));
            assertThat(toolNames(events)).containsExactly("t");
        }

        @Test
        void escapesAreDecoded() {
            String content = "{\"name\": \"caf\\u00e9\\\"s\"}";
            List<StreamEvent> events = run("<tool>" + content + "</tool>");
            assertThat(toolNames(events)).containsExactly("café\"s");
            assertThat(StreamTesting.onlyToolCall(events).toolName()).isEqualTo("café\"s");
        }

        @Test
        void theFirstNameMemberDecidesEvenIfTheParseLaterFails() {
            List<StreamEvent> events = run(dq("<tool>{'name': 'a', 'tool': 'b'}</tool>"));
            assertEvents(events, """
                    0 tool_call_start tool {}
                    0 tool_call_name a
                    0 tool_call_content "{"name": "a", "tool": "b"}"
                    0 tool_call_end error
                    1 complete "" thinking=[] tool_calls=[error]
                    """);
        }

        @Test
        void theFirstNameMemberDecidesEvenIfARepeatedKeyLaterWinsTheParse() {
            List<StreamEvent> events = run(dq("<tool>{'name': 'a', 'name': 'b'}</tool>"));
            assertThat(toolNames(events)).containsExactly("a");
            assertThat(StreamTesting.onlyToolCall(events).toolName()).isEqualTo("b");
        }

        @ParameterizedTest
        @ValueSource(strings = {
                "{\"name\": 5, \"tool_name\": \"x\"}",
                "{\"name\": \"\", \"tool\": \"x\"}",
                "{\"name\": null}",
                "{\"arguments\": {}}",
                "call \"name\": \"x\"",
                "[{\"name\": \"x\"}]",
        })
        void noEventUnlessTheFirstNameMemberIsANonEmptyString(String content) {
            assertThat(toolNames(run("<tool>" + content + "</tool>"))).isEmpty();
        }

        @Test
        void fencedJsonFiresToo() {
            expect(chunks(dq("<tool>\n```json\n{'name': 't'"), "}\n```\n</tool>"), """
                    0 tool_call_start tool {}
                    0 tool_call_name t
                    0 tool_call_content "```json\\n{"name": "t""
                    1 tool_call_content "}\\n```"
                    1 tool_call_end {"server_name":"local","tool_name":"t","arguments":{}}
                    2 complete "" thinking=[] tool_calls=[{"server_name":"local","tool_name":"t","arguments":{}}]
                    """);
        }

        @Test
        void xmlFormFiresWhenTheCloseElementCompletes() {
            expect(chunks("<tool><tool_name>read_file</tool_na", "me><arguments><path>a</path></arguments></tool>"), """
                    0 tool_call_start tool {}
                    0 tool_call_content "<tool_name>read_file</tool_na"
                    1 tool_call_name read_file
                    1 tool_call_content "me><arguments><path>a</path></arguments>"
                    1 tool_call_end {"server_name":"local","tool_name":"read_file","arguments":{"path":"a"}}
                    2 complete "" thinking=[] tool_calls=[{"server_name":"local","tool_name":"read_file","arguments":{"path":"a"}}]
                    """);
        }

        @Test
        void xmlFormInAToolCallBlock() {
            expect(chunks("<tool_call>\n<tool_name>t</tool_name>", "\n</tool_call>"), """
                    0 tool_call_start tool_call {}
                    0 tool_call_name t
                    0 tool_call_content "<tool_name>t</tool_name>"
                    1 tool_call_end {"server_name":"local","tool_name":"t","arguments":{}}
                    2 complete "" thinking=[] tool_calls=[{"server_name":"local","tool_name":"t","arguments":{}}]
                    """);
        }

        @Test
        void xmlValueIsDecodedAndTrimmed() {
            assertThat(toolNames(run("<tool><tool_name> r&amp;d </tool_name></tool>"))).containsExactly("r&d");
            assertThat(toolNames(run("<tool><tool_name><![CDATA[t]]></tool_name></tool>"))).containsExactly("t");
        }

        @Test
        void xmlValueWithALessThanAfterDecodingGivesNoEvent() {
            List<StreamEvent> events = run("<tool><tool_name>a&lt;b</tool_name></tool>");
            assertThat(toolNames(events)).isEmpty();
            assertThat(decoded("<tool_name>a&lt;b</tool_name>")).isEqualTo("local/a<b {}");
        }

        @Test
        void xmlArgumentsBeforeTheNameGivesNoEvent() {
            assertThat(toolNames(run("<tool><arguments><a>1</a></arguments><tool_name>t</tool_name></tool>"))).isEmpty();
            assertThat(toolNames(run("<tool><arguments><tool_name>x</tool_name></arguments><tool_name>t</tool_name></tool>")))
                    .isEmpty();
        }

        @Test
        void xmlRepeatedNameFiresOnceForTheFirst() {
            List<StreamEvent> events = run("<tool><tool_name>a</tool_name><tool_name>b</tool_name></tool>");
            assertThat(toolNames(events)).containsExactly("a");
            assertThat(StreamTesting.onlyToolCall(events).toolName()).isEqualTo("b");
        }

        @Test
        void fencedXmlFiresToo() {
            assertThat(toolNames(run("<tool>```xml\n<tool_name>t</tool_name>\n```</tool>"))).containsExactly("t");
        }

        private static List<String> toolNames(List<StreamEvent> events) {
            return events.stream().filter(e -> e instanceof StreamEvent.ToolCallName)
                    .map(e -> ((StreamEvent.ToolCallName) e).toolName()).toList();
        }
    }

    @Nested
    @DisplayName("Message blocks and timing")
    class Timing {

        @Test
        void messageStartsOnlyWithTheFirstEmittedText() {
            expect(chunks("  ", "\n", "Hi"), """
                    2 message_start
                    2 message_content "Hi"
                    3 message_end "Hi"
                    3 complete "Hi" thinking=[] tool_calls=[]
                    """);
        }

        @Test
        void textBeforeAPossibleTagIsEmittedAndTheSpaceIsHeld() {
            expect(chunks("Hello <thin", "king>x</thinking>"), """
                    0 message_start
                    0 message_content "Hello"
                    1 message_end "Hello"
                    1 thinking_start thinking {}
                    1 thinking_content "x"
                    1 thinking_end "x"
                    2 complete "Hello" thinking=[thinking {} "x"] tool_calls=[]
                    """);
        }

        @Test
        void heldCandidateIsReleasedInTheChunkThatBreaksIt() {
            expect(chunks("Hello <thin", "g> world"), """
                    0 message_start
                    0 message_content "Hello"
                    1 message_content " <thing> world"
                    2 message_end "Hello <thing> world"
                    2 complete "Hello <thing> world" thinking=[] tool_calls=[]
                    """);
        }

        @Test
        void tagAssembledFromManyChunks() {
            expect(chunks("<", "thi", "nk", ">", "x", "</", "think", ">"), """
                    3 thinking_start think {}
                    4 thinking_content "x"
                    7 thinking_end "x"
                    8 complete "" thinking=[think {} "x"] tool_calls=[]
                    """);
        }

        @Test
        void closeTagCandidateIsHeldThenCloses() {
            expect(chunks("<thinking>abc</thi", "nking>"), """
                    0 thinking_start thinking {}
                    0 thinking_content "abc"
                    1 thinking_end "abc"
                    2 complete "" thinking=[thinking {} "abc"] tool_calls=[]
                    """);
        }

        @Test
        void closeTagCandidateIsHeldThenReleasedAsContent() {
            expect(chunks("<thinking>a</thi", "s</thinking>"), """
                    0 thinking_start thinking {}
                    0 thinking_content "a"
                    1 thinking_content "</this"
                    1 thinking_end "a</this"
                    2 complete "" thinking=[thinking {} "a</this"] tool_calls=[]
                    """);
        }

        @Test
        void eventsAtEndOfStreamCarryTheNumberOfChunks() {
            expect(chunks("Hi", "", ""), """
                    0 message_start
                    0 message_content "Hi"
                    3 message_end "Hi"
                    3 complete "Hi" thinking=[] tool_calls=[]
                    """);
        }

        @Test
        void loneLessThanAtEndOfStreamIsText() {
            expect(chunks("a <"), """
                    0 message_start
                    0 message_content "a"
                    1 message_content " <"
                    1 message_end "a <"
                    1 complete "a <" thinking=[] tool_calls=[]
                    """);
        }

        @Test
        void completeMessageIsAllMessageDeltas() {
            List<StreamEvent> events = run(dq("One <thinking>t</thinking> two <tool>{'name': 'x'}</tool> three"));
            assertThat(complete(events).message()).isEqualTo("One two three");
        }
    }
}
