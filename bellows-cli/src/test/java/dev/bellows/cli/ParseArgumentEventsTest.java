package dev.bellows.cli;

import static org.assertj.core.api.Assertions.assertThat;

import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@code bellows parse --argument-events} against each statement of the stream contract's
 * "Argument values as they complete" (1.2), through the command: the text goes in one code point a
 * line (a chunk each), so {@code name=value@i} says the event came with code point {@code i}; and
 * without the option the output is the same but for these events.
 */
class ParseArgumentEventsTest {

    /** The text one code point a JSON line, each a chunk. */
    private static String oneCodePointALine(String text) {
        StringBuilder lines = new StringBuilder();
        text.codePoints().forEach(cp -> {
            try {
                lines.append("{\"content\": ").append(Cli.MAPPER.writeValueAsString(Character.toString(cp))).append("}\n");
            } catch (JacksonException e) {
                throw new IllegalStateException(e);
            }
        });
        return lines.toString();
    }

    /** {@code bellows parse --argument-events [extra]} on the text one code point a chunk; its argument events as {@code name=value@chunk}. */
    private static List<String> arguments(String text, String... extra) {
        List<String> args = new ArrayList<>(List.of("parse", "--argument-events"));
        args.addAll(List.of(extra));
        String input = oneCodePointALine(text);
        Cli.Run on = Cli.run(input, args.toArray(String[]::new));
        assertThat(on.status()).as(on.err()).isZero();
        assertThat(on.err()).isEmpty();
        // without the option: the same events, but for the argument events
        args.remove("--argument-events");
        Cli.Run off = Cli.run(input, args.toArray(String[]::new));
        assertThat(on.outJson()).filteredOn(e -> !e.get("type").asString().equals("tool_call_argument"))
                .as("the other events are the same without the option").containsExactlyElementsOf(off.outJson());
        List<String> out = new ArrayList<>();
        for (JsonNode e : on.outJson()) {
            if (e.get("type").asString().equals("tool_call_argument")) {
                assertThat(e.properties()).hasSize(4); // type, chunk, name, value
                out.add(e.get("name").asString() + "=" + e.get("value") + "@" + e.get("chunk").asInt());
            }
        }
        return out;
    }

    /** The code-point index where {@code marker} starts in {@code text}, plus {@code plus}. */
    private static int at(String text, String marker, int plus) {
        int i = text.indexOf(marker);
        assertThat(i).as("%s in %s", marker, text).isGreaterThanOrEqualTo(0);
        return text.codePointCount(0, i) + plus;
    }

    private static String json(String arguments) {
        return "<tool>{\"name\": \"f\", \"arguments\": " + arguments + "}</tool>";
    }

    @Test
    void aWriteFilesPathIsKnownWhileItsContentStillStreams() {
        String content = "line\\n".repeat(200);
        String text = "<tool>{\"name\": \"write_file\", \"arguments\": {\"path\": \"a.txt\", \"content\": \"" + content + "\"}}</tool>";
        assertThat(arguments(text)).containsExactly(
                "path=\"a.txt\"@" + at(text, "\", \"content", 0),
                "content=\"" + content + "\"@" + at(text, "\"}}</tool>", 0));
    }

    @Test
    void jsonFormTheFirstTopLevelKeyAmongArgumentsArgsParametersWhenItIsAnObject() {
        assertThat(arguments("<tool>{\"tool\": \"f\", \"args\": {\"a\": 1}}</tool>")).hasSize(1).allMatch(s -> s.startsWith("a=1@"));
        assertThat(arguments("<tool>{\"name\": \"f\", \"parameters\": {\"a\": 1}}</tool>")).hasSize(1);
        assertThat(arguments("<tool>{\"name\": \"f\", \"args\": {\"a\": 1}, \"arguments\": {\"b\": 2}}</tool>"))
                .hasSize(1).allMatch(s -> s.startsWith("a=1@"));
        // a string holding JSON, or anything else: no events for this block
        assertThat(arguments(json("\"{\\\"a\\\": 1}\""))).isEmpty();
        assertThat(arguments(json("null"))).isEmpty();
        assertThat(arguments(json("[1]"))).isEmpty();
        // keys nested deeper never count
        assertThat(arguments("<tool>{\"name\": \"f\", \"x\": {\"arguments\": {\"a\": 1}}}</tool>")).isEmpty();
    }

    @Test
    void eachMemberFiresItsDecodedKeyAndJsonValue() {
        String text = json("{\"p\\u00e4th\": {\"deep\": [1, \"x\"]}}");
        assertThat(arguments(text)).containsExactly("päth={\"deep\":[1,\"x\"]}@" + at(text, "}}}</tool>", 0));
    }

    @Test
    void aStringAtItsClosingQuoteAnObjectOrArrayAtItsClosingBracket() {
        String text = json("{\"s\": \"a\\\"b\\u00e9\", \"o\": {\"k\": [1, {}]}, \"a\": [\"}\", []]}");
        assertThat(arguments(text)).containsExactly(
                "s=\"a\\\"bé\"@" + at(text, "\", \"o\"", 0),
                "o={\"k\":[1,{}]}@" + at(text, "}, \"a\"", 0),
                "a=[\"}\",[]]@" + at(text, "]}}</tool>", 0));
    }

    @Test
    void trueFalseNullAtTheirLastLetter() {
        String text = json("{\"t\": true, \"f\": false, \"n\": null}");
        assertThat(arguments(text)).containsExactly(
                "t=true@" + at(text, "true", 3), "f=false@" + at(text, "false", 4), "n=null@" + at(text, "null", 3));
    }

    @Test
    void aNumberAtTheFirstCharacterAfterItThatIsNotPartOfIt() {
        String text = json("{\"i\": -12, \"x\": 3.25e+2 , \"z\": 0}");
        assertThat(arguments(text)).containsExactly(
                "i=-12@" + at(text, ", \"x\"", 0), "x=325@" + at(text, " , \"z\"", 0), "z=0@" + at(text, "}}</tool>", 0));
    }

    @Test
    void aValueThatIsNotValidJsonFiresNothing() {
        for (String bad : List.of("tru", "NaN", "01", "[1,]", "'s'")) {
            assertThat(arguments(json("{\"ok\": 1, \"bad\": " + bad + ", \"after\": 2}"))).as(bad)
                    .hasSize(1).allMatch(s -> s.startsWith("ok=1@"));
        }
    }

    @Test
    void membersFireInDocumentOrderARepeatedKeyEachTime() {
        assertThat(arguments(json("{\"b\": 1, \"a\": 2, \"b\": 3}"))).extracting(s -> s.substring(0, s.indexOf('@')))
                .containsExactly("b=1", "a=2", "b=3");
    }

    @Test
    void xmlFormEachTextChildFiresWhenItsCloseTagCompletesWithTheParsesText() {
        String text = "<tool><tool_name>write_file</tool_name><arguments><path>a.txt</path>"
                + "<content>x &lt; y<![CDATA[ <z> ]]></content><o><k>1</k></o></arguments></tool>";
        assertThat(arguments(text)).containsExactly(
                "path=\"a.txt\"@" + at(text, "</path>", "</path>".length() - 1),
                "content=\"x < y <z> \"@" + at(text, "</content>", "</content>".length() - 1));
    }

    @Test
    void dialectsWhoseArgumentsAreNamedElementsFirePerParameter() {
        String qwen = "<tool_call>\n<function=write_file>\n<parameter=path>\na.txt\n</parameter>\n"
                + "<parameter=content>\nx\n</parameter>\n</function>\n</tool_call>";
        assertThat(arguments(qwen, "--dialect", "qwen3_coder")).containsExactly(
                "path=\"a.txt\"@" + at(qwen, "</parameter>\n<parameter=content>", "</parameter>".length() - 1),
                "content=\"x\"@" + at(qwen, "</parameter>\n</function>", "</parameter>".length() - 1));
        String glm = "<tool_call>get_weather<arg_key>city</arg_key><arg_value>Paris</arg_value></tool_call>";
        assertThat(arguments(glm, "--dialect", "glm45"))
                .containsExactly("city=\"Paris\"@" + at(glm, "</arg_value>", "</arg_value>".length() - 1));
        String minimax = "<minimax:tool_call>\n<invoke name=\"search\">\n<parameter name=\"query\">cats</parameter>\n"
                + "</invoke>\n</minimax:tool_call>";
        assertThat(arguments(minimax, "--dialect", "minimax_m2"))
                .containsExactly("query=\"cats\"@" + at(minimax, "</parameter>", "</parameter>".length() - 1));
    }

    @Test
    void withBatchEachStreamGetsItsOwnEvents() {
        Cli.Run batch = Cli.run("{\"chunks\": [{\"content\": \"<tool>{\\\"name\\\": \\\"f\\\", \\\"arguments\\\": {\\\"q\\\": \\\"ca\"},"
                + " {\"content\": \"ts\\\"}}</tool>\"}]}\n", "parse", "--batch", "--argument-events");
        assertThat(batch.status()).as(batch.err()).isZero();
        assertThat(batch.outJson()).hasSize(1);
        assertThat(batch.outJson().getFirst()).contains(
                Cli.json("{\"type\":\"tool_call_argument\",\"chunk\":1,\"name\":\"q\",\"value\":\"cats\"}"));
    }
}
