package dev.bellows.stream;

import static dev.bellows.stream.StreamTesting.chunks;
import static dev.bellows.stream.StreamTesting.expect;
import static dev.bellows.stream.StreamTesting.mergeAcrossChunks;
import static dev.bellows.stream.StreamTesting.renderLines;
import static org.assertj.core.api.Assertions.assertThat;

import dev.bellows.event.StreamEvent;
import dev.bellows.event.StreamEvent.ToolCallArgument;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/**
 * The rules marked (1.2) in {@code stream-contract.md}, "Argument values as they complete": one
 * {@code tool_call_argument} per member of a tool block's arguments, in the chunk that completes
 * its value. Each test is one statement of that section, with its exact events; the timing tests
 * feed one character a chunk, so {@code name=value@i} means the event came with character {@code i}.
 */
class StreamContract12Test {

    private static final StreamOptions ON = StreamOptions.builder().argumentEvents(true).build();

    /** Every argument event of {@code text} fed one UTF-16 char a chunk, as {@code name=value@chunk}. */
    static List<String> argumentsByChar(StreamOptions options, String text) {
        List<StreamChunk> chunks = new ArrayList<>();
        for (int i = 0; i < text.length(); i++) {
            chunks.add(StreamChunk.message(String.valueOf(text.charAt(i))));
        }
        List<String> out = new ArrayList<>();
        for (StreamEvent e : StreamTesting.run(options, chunks)) {
            if (e instanceof ToolCallArgument a) {
                out.add(a.name() + "=" + a.value() + "@" + a.chunk());
            }
        }
        return out;
    }

    /** The argument events of {@code text} in one chunk, as {@code name=value}. */
    static List<String> arguments(StreamOptions options, String text) {
        List<String> out = new ArrayList<>();
        for (StreamEvent e : StreamTesting.run(options, List.of(StreamChunk.message(text)))) {
            if (e instanceof ToolCallArgument a) {
                out.add(a.name() + "=" + a.value());
            }
        }
        return out;
    }

    private static int at(String text, String marker) {
        int i = text.indexOf(marker);
        assertThat(i).as("%s in %s", marker, text).isGreaterThanOrEqualTo(0);
        return i;
    }

    @Nested
    @DisplayName("a write_file call's path is known while its content still streams")
    class TheWriteFileExample {

        @Test
        void pathThenContentEachInTheChunkThatCompletesIt() {
            String text = "<tool>{\"name\": \"write_file\", \"arguments\": {\"path\": \"a.txt\", \"content\": \"line 1\\nline 2\"}}</tool>";
            assertThat(argumentsByChar(ON, text)).containsExactly(
                    "path=\"a.txt\"@" + at(text, "\", \"content"),
                    "content=\"line 1\\nline 2\"@" + at(text, "\"}}</tool>"));
        }

        @Test
        void theEventsInOrder() {
            expect(ON, chunks("<tool>{\"name\": \"write_file\", \"arguments\": {\"path\": \"a.txt\", \"content\": \"",
                    "x".repeat(10), "y\"}}", "</tool>"), """
                    0 tool_call_start tool {}
                    0 tool_call_name write_file
                    0 tool_call_argument path "a.txt"
                    0 tool_call_content "{"name": "write_file", "arguments": {"path": "a.txt", "content": ""
                    1 tool_call_content "xxxxxxxxxx"
                    2 tool_call_argument content "xxxxxxxxxxy"
                    2 tool_call_content "y"}}"
                    3 tool_call_end {"server_name":"local","tool_name":"write_file","arguments":{"path":"a.txt","content":"xxxxxxxxxxy"}}
                    4 complete "" thinking=[] tool_calls=[{"server_name":"local","tool_name":"write_file","arguments":{"path":"a.txt","content":"xxxxxxxxxxy"}}]
                    """);
        }

        @Test
        void withoutTheOptionNothingChanges() {
            List<StreamChunk> stream = chunks("Writing. <tool>{\"name\": \"write_file\", \"arguments\": {\"path\": \"a", "\"}}",
                    "</tool> done");
            List<StreamEvent> off = StreamTesting.run(StreamOptions.defaults(), stream);
            List<StreamEvent> on = StreamTesting.run(ON, stream);
            assertThat(renderLines(off)).isEqualTo(renderLines(on.stream()
                    .filter(e -> !(e instanceof ToolCallArgument)).toList()));
            assertThat(on).filteredOn(e -> e instanceof ToolCallArgument).hasSize(1);
            assertThat(off).noneMatch(e -> e instanceof ToolCallArgument);
        }
    }

    @Nested
    @DisplayName("JSON form")
    class JsonForm {

        @Test
        void theArgumentsAreTheFirstTopLevelKeyAmongArgumentsArgsParameters() {
            assertThat(arguments(ON, "<tool>{\"tool\": \"f\", \"args\": {\"a\": 1}}</tool>")).containsExactly("a=1");
            assertThat(arguments(ON, "<tool>{\"name\": \"f\", \"parameters\": {\"a\": 1}}</tool>")).containsExactly("a=1");
            // only the first: a second arguments key (an error at the close) reports nothing more
            assertThat(arguments(ON, "<tool>{\"name\": \"f\", \"args\": {\"a\": 1}, \"arguments\": {\"b\": 2}}</tool>"))
                    .containsExactly("a=1");
            // keys nested deeper never count
            assertThat(arguments(ON, "<tool>{\"name\": \"f\", \"x\": {\"arguments\": {\"a\": 1}}}</tool>")).isEmpty();
        }

        @Test
        void aStringHoldingJsonOrAnythingElseIsNoEventsForTheBlock() {
            assertThat(arguments(ON, "<tool>{\"name\": \"f\", \"arguments\": \"{\\\"a\\\": 1}\"}</tool>")).isEmpty();
            assertThat(arguments(ON, "<tool>{\"name\": \"f\", \"arguments\": null}</tool>")).isEmpty();
            assertThat(arguments(ON, "<tool>{\"name\": \"f\", \"arguments\": [1]}</tool>")).isEmpty();
            // the first arguments key decides, even when a later one holds an object
            assertThat(arguments(ON, "<tool>{\"name\": \"f\", \"arguments\": \"\", \"args\": {\"a\": 1}}</tool>")).isEmpty();
        }

        @Test
        void eachMemberFiresNameAndJsonValueWithTheKeyDecoded() {
            StreamEvent.ToolCallArgument event = (StreamEvent.ToolCallArgument) StreamTesting.run(ON,
                            chunks("<tool>{\"name\": \"f\", \"arguments\": {\"p\\u00e4th\": {\"deep\": [1, \"x\"]}}}</tool>"))
                    .stream().filter(e -> e instanceof ToolCallArgument).findFirst().orElseThrow();
            assertThat(event.name()).isEqualTo("päth");
            assertThat(event.value().toString()).isEqualTo("{\"deep\":[1,\"x\"]}");
            assertThat(dev.bellows.event.EventJson.toJson(event).toString())
                    .isEqualTo("{\"type\":\"tool_call_argument\",\"chunk\":0,\"name\":\"päth\",\"value\":{\"deep\":[1,\"x\"]}}");
        }

        @Test
        void aStringAtItsClosingQuote() {
            String text = "<tool>{\"name\": \"f\", \"arguments\": {\"s\": \"a\\\"b\\u00e9\"}}</tool>";
            assertThat(argumentsByChar(ON, text)).containsExactly("s=\"a\\\"bé\"@" + at(text, "\"}}"));
        }

        @Test
        void anObjectOrArrayAtItsClosingBracket() {
            String text = "<tool>{\"name\": \"f\", \"arguments\": {\"o\": {\"k\": [1, {}]}, \"a\": [\"}\", []]}}</tool>";
            assertThat(argumentsByChar(ON, text)).containsExactly(
                    "o={\"k\":[1,{}]}@" + at(text, "}, \"a\""),
                    "a=[\"}\",[]]@" + at(text, "]}}</tool>"));
        }

        @Test
        void trueFalseNullAtTheirLastLetter() {
            String text = "<tool>{\"name\": \"f\", \"arguments\": {\"t\": true, \"f\": false, \"n\": null}}</tool>";
            assertThat(argumentsByChar(ON, text)).containsExactly(
                    "t=true@" + (at(text, "true") + 3),
                    "f=false@" + (at(text, "false") + 4),
                    "n=null@" + (at(text, "null") + 3));
        }

        @Test
        void aNumberAtTheFirstCharacterAfterItThatIsNotPartOfIt() {
            String text = "<tool>{\"name\": \"f\", \"arguments\": {\"i\": -12, \"x\": 3.25e+2 , \"z\": 0}}</tool>";
            assertThat(argumentsByChar(ON, text)).containsExactly(
                    "i=-12@" + at(text, ", \"x\""),
                    "x=325@" + at(text, " , \"z\""),
                    "z=0@" + at(text, "}}</tool>"));
            // numbers keep the value the parse gives them: exact decimals, big integers
            String exact = "<tool>{\"name\": \"f\", \"arguments\": {\"d\": 0.10, \"e\": 3.25e+2, \"b\": 123456789012345678901234}}</tool>";
            assertThat(arguments(ON, exact)).containsExactly("d=0.10", "e=325", "b=123456789012345678901234");
            var decoded = StreamTesting.onlyToolCall(StreamTesting.run(exact)).arguments();
            for (StreamEvent e : StreamTesting.run(ON, List.of(StreamChunk.message(exact)))) {
                if (e instanceof ToolCallArgument a) {
                    assertThat(a.value()).as(a.name()).isEqualTo(decoded.get(a.name()));
                }
            }
        }

        @Test
        void aValueThatIsNotValidJsonFiresNothing() {
            // and, the structure being lost, nothing after it either: the parse at the close decides
            for (String bad : List.of("tru", "NaN", "01", "1.", "-", "\"a\tb\"", "\"\\x\"", "[1,]", "{\"k\" 1}", "'s'")) {
                String text = "<tool>{\"name\": \"f\", \"arguments\": {\"ok\": 1, \"bad\": " + bad + ", \"after\": 2}}</tool>";
                assertThat(arguments(ON, text)).as(bad).containsExactly("ok=1");
            }
        }

        @Test
        void membersFireInDocumentOrderARepeatedKeyEachTime() {
            assertThat(arguments(ON, "<tool>{\"name\": \"f\", \"arguments\": {\"b\": 1, \"a\": 2, \"b\": 3}}</tool>"))
                    .containsExactly("b=1", "a=2", "b=3");
        }

        @Test
        void theNameMayComeAfterTheArgumentsAndAFenceMayComeFirst() {
            assertThat(arguments(ON, "<tool>\n```json\n{\"arguments\": {\"q\": \"cats\"}, \"name\": \"search\"}\n```\n</tool>"))
                    .containsExactly("q=\"cats\"");
        }

        @Test
        void anUnclosedBlockFiresWhatCompletedBeforeTheStreamEnded() {
            assertThat(arguments(ON, "<tool>{\"name\": \"f\", \"arguments\": {\"a\": \"x\", \"n\": 1"))
                    .containsExactly("a=\"x\"");
        }
    }

    @Nested
    @DisplayName("XML form")
    class XmlForm {

        @Test
        void eachTextChildOfArgumentsFiresWhenItsCloseTagCompletes() {
            String text = "<tool><tool_name>write_file</tool_name><arguments><path>a.txt</path>"
                    + "<content>x &lt; y</content></arguments></tool>";
            assertThat(argumentsByChar(ON, text)).containsExactly(
                    "path=\"a.txt\"@" + (at(text, "</path>") + "</path>".length() - 1),
                    "content=\"x < y\"@" + (at(text, "</content>") + "</content>".length() - 1));
        }

        @Test
        void theValueIsTheTextAsTheParseGivesIt() {
            String text = "<tool><tool_name>f</tool_name><arguments>\n  <a> padded </a>\n  <b><![CDATA[</tool> <x>]]></b>"
                    + "<c> <![CDATA[only]]> </c><d>a<![CDATA[b]]>&#233;<!-- c --></d><e/><f x=\"1\">v</f></arguments></tool>";
            assertThat(arguments(ON, text)).containsExactly("a=\" padded \"", "b=\"</tool> <x>\"", "c=\"only\"",
                    "d=\"abé\"", "e=\"\"", "f=\"v\"");
            assertThat(StreamTesting.onlyToolCall(StreamTesting.run(text)).arguments().toString())
                    .isEqualTo("{\"a\":\" padded \",\"b\":\"</tool> <x>\",\"c\":\"only\",\"d\":\"abé\",\"e\":\"\",\"f\":\"v\"}");
        }

        @Test
        void childrenWithElementChildrenFireNothingAndRepeatedChildrenFireEachTime() {
            assertThat(arguments(ON, "<tool><tool_name>f</tool_name><arguments><o><k>1</k></o><t>1</t><t>2</t>"
                    + "</arguments></tool>")).containsExactly("t=\"1\"", "t=\"2\"");
        }

        @Test
        void argumentsAsJsonTextAreNotChildElements() {
            assertThat(arguments(ON, "<tool><tool_name>f</tool_name><arguments>{\"a\": 1}</arguments></tool>")).isEmpty();
        }
    }

    @Nested
    @DisplayName("cost and the option")
    class CostAndOption {

        @Test
        void theOptionIsOffByDefaultAndTheAgentStyleCopyTurnsItOn() {
            assertThat(StreamOptions.defaults().argumentEvents()).isFalse();
            assertThat(StreamOptions.defaults().withArgumentEvents(true).argumentEvents()).isTrue();
            assertThat(ON.withArgumentEvents(true)).isSameAs(ON);
        }

        @Test
        void aLongArgumentOneCharacterAChunkFiresOnceAtItsEnd() {
            String content = "<b>\\\"x\\\"</b>\\n".repeat(2000);
            String text = "<tool>{\"name\": \"write_file\", \"arguments\": {\"path\": \"p\", \"content\": \"" + content + "\"}}</tool>";
            List<String> events = argumentsByChar(ON, text);
            assertThat(events).hasSize(2);
            assertThat(events.get(1)).endsWith("@" + at(text, "\"}}</tool>"));
            assertThat(renderLines(mergeAcrossChunks(StreamTesting.run(ON, List.of(StreamChunk.message(text))))))
                    .contains("tool_call_argument content");
        }
    }
}
