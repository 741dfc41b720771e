package dev.bellows.stream.internal;

import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;
import dev.bellows.json.internal.FrozenJson;
import java.util.List;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import tools.jackson.databind.JsonNode;
import static org.assertj.core.api.Assertions.assertThat;

import dev.bellows.tool.DecodedToolCall;
import dev.bellows.tool.ToolCall;
import dev.bellows.tool.ToolCallError;
import java.math.BigDecimal;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class ToolCallDecoderTest {

    static ToolCall call(String content) {
        DecodedToolCall decoded = ToolCallDecoder.decode(content);
        assertThat(decoded).as("decode(%s)", content).isInstanceOf(ToolCall.class);
        return (ToolCall) decoded;
    }

    static ToolCallError error(String content) {
        DecodedToolCall decoded = ToolCallDecoder.decode(content);
        assertThat(decoded).as("decode(%s)", content).isInstanceOf(ToolCallError.class);
        ToolCallError error = (ToolCallError) decoded;
        assertThat(error.content()).isEqualTo(content);
        assertThat(error.error())
                .as("no Java details leak into the model's message")
                .doesNotContain("Exception", "com.fasterxml", "tools.jackson", "java.", "Feature", "jackson", "\tat ");
        return error;
    }

    static String args(String content) {
        return call(content).arguments().toString();
    }

    @Test
    void decodedArgumentsAreFrozenInEveryForm() {
        for (String content : List.of("{\"name\": \"a\", \"arguments\": {\"p\": [1, {\"q\": 2}]}}",
                "{\"name\": \"a\", \"arguments\": \"{\\\"p\\\": [1, {\\\"q\\\": 2}]}\"}",
                "<tool_name>a</tool_name><arguments><p>1</p><p>2</p></arguments>",
                "{\"name\": \"a\"}")) {
            JsonNode arguments = call(content).arguments();
            assertThat(FrozenJson.isFrozen(arguments)).as(content).isTrue();
            assertThatThrownBy(() -> ((ObjectNode) arguments).put("x", 1)).as(content)
                    .isInstanceOf(UnsupportedOperationException.class);
            if (arguments.has("p")) {
                assertThatThrownBy(() -> ((ArrayNode) arguments.get("p")).add(3)).as(content)
                        .isInstanceOf(UnsupportedOperationException.class);
            }
        }
    }

    @Nested
    class General {

        @ParameterizedTest
        @ValueSource(strings = {"", " ", "\n\t\r "})
        void emptyContentIsAnError(String content) {
            assertThat(error(content).error()).startsWith("tool call is empty");
        }

        @Test
        void nullIsTreatedAsEmpty() {
            DecodedToolCall decoded = ToolCallDecoder.decode(null);
            assertThat(decoded).isEqualTo(new ToolCallError("", ((ToolCallError) decoded).error()));
            assertThat(((ToolCallError) decoded).error()).startsWith("tool call is empty");
        }

        @ParameterizedTest
        @ValueSource(strings = {"search(q=\"x\")", "tool_name: search", "\"search\"", "42", "null"})
        void contentThatIsNeitherJsonNorXmlIsAnError(String content) {
            assertThat(error(content).error())
                    .startsWith("tool call must be a JSON object or XML elements")
                    .contains("{\"tool_name\": \"...\", \"arguments\": {...}}")
                    .contains("<tool_name>...</tool_name><arguments>...</arguments>");
        }

        @Test
        void topLevelArrayIsAnError() {
            assertThat(error("[{\"tool_name\": \"a\"}]").error()).contains("not an array");
        }

        @Test
        void surroundingWhitespaceIsToleratedAndContentKeptAsPassed() {
            assertThat(call("  \n{\"tool_name\": \"a\"}\n ").toolName()).isEqualTo("a");
            assertThat(error("  nope  ").content()).isEqualTo("  nope  ");
        }
    }

    @Nested
    class Fences {

        @Test
        void jsonFenceWithLanguageIsRemoved() {
            ToolCall call = call("```json\n{\"tool_name\": \"search\", \"arguments\": {\"q\": \"x\"}}\n```");
            assertThat(call.toolName()).isEqualTo("search");
            assertThat(call.arguments().toString()).isEqualTo("{\"q\":\"x\"}");
        }

        @Test
        void xmlFenceIsRemoved() {
            assertThat(call("```xml\n<tool_name>search</tool_name>\n```").toolName()).isEqualTo("search");
        }

        @Test
        void bareFenceAndCrLfLineEnds() {
            assertThat(call("```\r\n{\"tool_name\": \"a\"}\r\n```").toolName()).isEqualTo("a");
        }

        @Test
        void closingFenceIsOptional() {
            assertThat(call("```json\n{\"tool_name\": \"a\"}").toolName()).isEqualTo("a");
        }

        @Test
        void closingFenceMayFollowOnTheSameLine() {
            assertThat(call("```json\n{\"tool_name\": \"a\"}```").toolName()).isEqualTo("a");
        }

        @Test
        void fenceOnOneLineLeavesNothing() {
            assertThat(error("```json {\"tool_name\": \"a\"} ```").error()).contains("Markdown fence");
            assertThat(error("```json").error()).contains("Markdown fence");
            assertThat(error("```\n```").error()).contains("Markdown fence");
        }

        @Test
        void closingBackticksWithoutOpeningFenceAreNotRemoved() {
            assertThat(error("{\"tool_name\": \"a\"}\n```").error()).contains("after the end of the JSON value");
        }

        @Test
        void errorKeepsTheFencedContentAndPositionsCountTheFenceLine() {
            String content = "```json\n{\"tool_name\": \"a\",}\n```";
            ToolCallError error = error(content);
            assertThat(error.content()).isEqualTo(content);
            assertThat(error.error()).contains("line 2, column 19");
        }
    }

    @Nested
    class JsonNames {

        @ParameterizedTest
        @ValueSource(strings = {"tool_name", "name", "tool"})
        void eachNameKeyIsAccepted(String key) {
            ToolCall call = call("{\"" + key + "\": \"search\"}");
            assertThat(call).isEqualTo(new ToolCall("local", "search", StrictJson.emptyObject()));
        }

        @Test
        void twoNameKeysAreAnError() {
            assertThat(error("{\"name\": \"a\", \"tool_name\": \"b\"}").error())
                    .isEqualTo("tool call has both \"name\" and \"tool_name\": use exactly one");
        }

        @Test
        void threeNameKeysAreAnError() {
            assertThat(error("{\"tool\": \"a\", \"tool_name\": \"b\", \"name\": \"c\"}").error())
                    .isEqualTo("tool call has \"tool\", \"tool_name\" and \"name\": use exactly one");
        }

        @Test
        void repeatedKeyKeepsItsLastValue() {
            assertThat(call("{\"name\": \"a\", \"name\": \"b\"}").toolName()).isEqualTo("b");
            assertThat(call("{\"tool_name\": \"\", \"tool_name\": \"x\"}").toolName()).isEqualTo("x");
            assertThat(error("{\"tool_name\": \"x\", \"tool_name\": \"\"}").error()).contains("non-empty string");
        }

        @Test
        void missingNameIsAnError() {
            assertThat(error("{\"arguments\": {}}").error())
                    .startsWith("tool call JSON has no tool name")
                    .contains("\"tool_name\"");
            error("{}");
        }

        @ParameterizedTest
        @ValueSource(strings = {"\"\"", "null", "42", "[\"a\"]", "{\"a\": 1}", "true"})
        void nameMustBeANonEmptyString(String value) {
            assertThat(error("{\"tool_name\": " + value + "}").error())
                    .startsWith("\"tool_name\" must be a non-empty string");
        }

        @Test
        void nameIsTakenAsWrittenWithoutTrimming() {
            // The contract trims names in the XML form only; the early tool-name event of
            // the JSON form also carries the string as written.
            assertThat(call("{\"name\": \" search \"}").toolName()).isEqualTo(" search ");
        }

        @Test
        void nameEscapesAreDecoded() {
            assertThat(call("{\"name\": \"caf\\u00e9 \\\"x\\\"\"}").toolName()).isEqualTo("café \"x\"");
        }

        @Test
        void unknownKeysAreIgnored() {
            assertThat(call("{\"id\": \"call_1\", \"type\": \"function\", \"name\": \"a\"}").toolName()).isEqualTo("a");
        }
    }

    @Nested
    class JsonServerName {

        @Test
        void defaultsToLocal() {
            assertThat(call("{\"name\": \"a\"}").serverName()).isEqualTo(ToolCall.LOCAL_SERVER);
        }

        @Test
        void explicitServerName() {
            assertThat(call("{\"server_name\": \"github\", \"name\": \"a\"}").serverName()).isEqualTo("github");
        }

        @ParameterizedTest
        @ValueSource(strings = {"\"\"", "null", "1", "{}"})
        void presentServerNameMustBeANonEmptyString(String value) {
            assertThat(error("{\"server_name\": " + value + ", \"name\": \"a\"}").error())
                    .startsWith("\"server_name\" must be a non-empty string")
                    .contains("leave it out for local tools");
        }
    }

    @Nested
    class JsonArguments {

        @ParameterizedTest
        @ValueSource(strings = {"arguments", "args", "parameters"})
        void eachArgumentsKeyIsAccepted(String key) {
            assertThat(args("{\"name\": \"a\", \"" + key + "\": {\"q\": \"x\", \"n\": [1, {\"b\": true}]}}"))
                    .isEqualTo("{\"q\":\"x\",\"n\":[1,{\"b\":true}]}");
        }

        @Test
        void twoArgumentsKeysAreAnError() {
            assertThat(error("{\"name\": \"a\", \"args\": {}, \"arguments\": {}}").error())
                    .isEqualTo("tool call has both \"args\" and \"arguments\": use exactly one");
        }

        @Test
        void repeatedArgumentsKeyKeepsItsLastValue() {
            assertThat(args("{\"name\": \"a\", \"args\": {\"x\": 1}, \"args\": {\"y\": 2}}")).isEqualTo("{\"y\":2}");
        }

        @Test
        void stringHoldingAnObjectIsParsed() {
            assertThat(args("{\"name\": \"a\", \"arguments\": \"{\\\"q\\\": \\\"x\\\"}\"}")).isEqualTo("{\"q\":\"x\"}");
            assertThat(args("{\"name\": \"a\", \"arguments\": \" \\n{} \"}")).isEqualTo("{}");
        }

        @ParameterizedTest
        @ValueSource(strings = {"null", "\"\"", "\"  \"", "\" \\n\\t \""})
        void nullAndBlankStringMeanNoArguments(String value) {
            assertThat(args("{\"name\": \"a\", \"arguments\": " + value + "}")).isEqualTo("{}");
        }

        @Test
        void absentMeansNoArguments() {
            assertThat(args("{\"name\": \"a\"}")).isEqualTo("{}");
        }

        @ParameterizedTest
        @CsvSource(delimiter = '|', value = {
                "[1, 2]|an array",
                "42|a number",
                "true|a boolean"})
        void nonObjectArgumentsAreAnError(String value, String described) {
            assertThat(error("{\"name\": \"a\", \"arguments\": " + value + "}").error())
                    .isEqualTo("\"arguments\" must be a JSON object, not " + described
                            + "; write \"arguments\": {\"name\": value, ...}");
        }

        @ParameterizedTest
        @CsvSource(delimiter = '|', value = {
                "\"[1]\"|an array",
                "\"\\\"x\\\"\"|a string",
                "\"7\"|a number"})
        void stringHoldingANonObjectIsAnError(String value, String described) {
            assertThat(error("{\"name\": \"a\", \"args\": " + value + "}").error())
                    .startsWith("\"args\" is a string holding " + described + ", not a JSON object");
        }

        @Test
        void stringHoldingInvalidJsonIsAnError() {
            assertThat(error("{\"name\": \"a\", \"arguments\": \"{q: 1}\"}").error())
                    .startsWith("\"arguments\" is a string that does not hold valid JSON (at line 1, column 2 of the string:")
                    .contains("expected a key in double quotes");
            assertThat(error("{\"name\": \"a\", \"arguments\": \"{} x\"}").error())
                    .contains("after the end of the JSON value");
        }

        @Test
        void numbersKeepTheirExactValue() {
            JsonNode arguments = call("{\"name\": \"a\", \"arguments\": "
                    + "{\"price\": 1.10, \"huge\": 1e400, \"long\": 123456789012345678901234567890, \"i\": 7}}").arguments();
            assertThat(arguments.get("price").decimalValue()).isEqualTo(new BigDecimal("1.10"));
            assertThat(arguments.get("huge").decimalValue()).isEqualTo(new BigDecimal("1e400"));
            assertThat(arguments.get("long").bigIntegerValue().toString()).isEqualTo("123456789012345678901234567890");
            assertThat(arguments.get("i").isInt()).isTrue();
        }
    }

    @Nested
    class JsonStrictness {

        @Test
        void trailingCommaInObject() {
            assertThat(error("{\"tool_name\": \"x\",}").error()).isEqualTo(
                    "tool call JSON is invalid at line 1, column 19: expected a key in double quotes but found '}': "
                            + "remove the trailing comma; write one JSON object like "
                            + "{\"tool_name\": \"...\", \"arguments\": {...}}");
        }

        @Test
        void trailingCommaInArray() {
            assertThat(error("{\"name\": \"a\", \"arguments\": {\"l\": [1, 2,]}}").error())
                    .contains("line 1, column 40")
                    .contains("remove the trailing comma");
        }

        @ParameterizedTest
        @ValueSource(strings = {"NaN", "Infinity", "-Infinity"})
        void nonNumericNumbersAreAnError(String token) {
            assertThat(error("{\"name\": \"a\", \"arguments\": {\"x\": " + token + "}}").error())
                    .contains("'" + token + "' is not allowed in JSON");
        }

        @ParameterizedTest
        @ValueSource(strings = {"x", "}", "{\"name\": \"b\"}", "// note", ","})
        void textAfterTheObjectIsAnError(String garbage) {
            assertThat(error("{\"name\": \"a\"} " + garbage).error())
                    .startsWith("tool call JSON is invalid at line 1, column 15: unexpected ")
                    .contains("after the end of the JSON value");
        }

        @Test
        void commentsAreAnError() {
            assertThat(error("{\"name\": \"a\" /* why */}").error()).contains("comments are not allowed in JSON");
        }

        @Test
        void singleQuotesAndUnquotedKeysAreAnError() {
            assertThat(error("{'name': 'a'}").error()).contains("expected a key in double quotes but found '''");
            assertThat(error("{name: \"a\"}").error()).contains("expected a key in double quotes but found 'n'");
        }

        @Test
        void unterminatedObjectAndString() {
            assertThat(error("{\"name\": \"a\"").error()).contains("a closing '}' or ']' is missing");
            assertThat(error("{\"name\": \"a").error()).contains("a closing '\"' is missing");
        }

        @Test
        void rawControlCharacterInString() {
            assertThat(error("{\"name\": \"a\nb\"}").error()).contains("must be escaped");
        }

        @Test
        void unknownWordAndLeadingZero() {
            assertThat(error("{\"name\": \"a\", \"args\": {\"b\": True}}").error()).contains("unknown word 'True'");
            assertThat(error("{\"name\": \"a\", \"args\": {\"b\": 01}}").error()).contains("invalid number");
        }

        @Test
        void missingColonAndComma() {
            assertThat(error("{\"name\" \"a\"}").error()).contains("expected ':' after the key but found '\"'");
            assertThat(error("{\"name\": \"a\" \"args\": {}}").error()).contains("expected ',' or '}' but found '\"'");
        }

        @Test
        void numbersJacksonCannotHoldAreAnErrorNotACrash() {
            assertThat(error("{\"name\": \"a\", \"args\": {\"x\": 1e999999999999}}").error())
                    .contains("at line 1, column 29: a number is too large to read");
            assertThat(error("{\"name\": \"a\", \"args\": {\"x\": " + "9".repeat(2000) + "}}").error())
                    .contains("a number has too many digits");
        }

        @Test
        void invisibleCharactersAreNamed() {
            assertThat(error("{\"name\": \"a\"\u00A0}").error())
                    .contains("expected ',' or '}' but found the space character U+00A0");
            assertThat(error("{\"name\": \"a\" \u0007}").error())
                    .contains("column 14: unexpected the control character U+0007: only spaces");
        }

        @Test
        void positionsCountLines() {
            assertThat(error("{\n  \"name\": \"a\",\n}").error()).contains("at line 3, column 1:");
        }

        @Test
        void tooDeepNestingIsAnErrorNotACrash() {
            String deep = "{\"name\": \"a\", \"args\": {\"x\": " + "[".repeat(5000) + "]".repeat(5000) + "}}";
            assertThat(error(deep).error()).contains("nested too deeply");
        }
    }

    @Nested
    class Xml {

        @Test
        void simpleCall() {
            ToolCall call = call("<tool_name>search</tool_name>\n<arguments>\n  <q>bellows</q>\n  <limit>5</limit>\n</arguments>");
            assertThat(call.serverName()).isEqualTo("local");
            assertThat(call.toolName()).isEqualTo("search");
            assertThat(call.arguments().toString()).isEqualTo("{\"q\":\"bellows\",\"limit\":\"5\"}");
        }

        @Test
        void serverNameIsTrimmedAndDefaultsToLocal() {
            assertThat(call("<server_name> github </server_name><tool_name>a</tool_name>").serverName())
                    .isEqualTo("github");
            assertThat(call("<server_name> \n </server_name><tool_name>a</tool_name>").serverName()).isEqualTo("local");
            assertThat(call("<server_name/><tool_name>a</tool_name>").serverName()).isEqualTo("local");
            assertThat(call("<tool_name>a</tool_name>").serverName()).isEqualTo("local");
        }

        @Test
        void toolNameIsTrimmedAndRequired() {
            assertThat(call("<tool_name>\n  search \n</tool_name>").toolName()).isEqualTo("search");
            assertThat(error("<tool_name>  </tool_name>").error()).startsWith("<tool_name> is empty");
            assertThat(error("<arguments/>").error())
                    .isEqualTo("tool call is missing <tool_name>; write <tool_name>...</tool_name><arguments>...</arguments>");
        }

        @Test
        void toolNameMustNotHoldElements() {
            assertThat(error("<tool_name>a<b>c</b></tool_name>").error())
                    .startsWith("<tool_name> must hold only text, but holds <b>");
        }

        @Test
        void predefinedEntitiesAreDecoded() {
            assertThat(args("<tool_name>a</tool_name><arguments><s>&lt;b&gt; &amp; &quot;q&quot; &apos;</s></arguments>"))
                    .isEqualTo("{\"s\":\"<b> & \\\"q\\\" '\"}");
            assertThat(call("<tool_name>a&amp;b</tool_name>").toolName()).isEqualTo("a&b");
        }

        @ParameterizedTest
        @CsvSource(delimiter = '|', value = {
                "&#233;|é",
                "&#xE9;|é",
                "&#xe9;|é",
                "&#x1F600;|\uD83D\uDE00",
                "&#128512;|\uD83D\uDE00",
                "&#0065;|A",
                "&#x10FFFF;|\uDBFF\uDFFF",
                "&#xFFFE;|\uFFFE"})
        void numericReferencesToScalarValuesAreDecoded(String written, String decoded) {
            assertThat(text(written)).isEqualTo(decoded);
        }

        @Test
        void controlCharactersOtherThanNulAreScalarValuesToo() {
            assertThat(text("&#1;&#x1F;&#9;")).isEqualTo("\u0001\u001F\t");
        }

        @ParameterizedTest
        @ValueSource(strings = {"&#0;", "&#x0;", "&#xD800;", "&#55296;", "&#xDFFF;", "&#x110000;", "&#1114112;",
                "&#99999999999999999999;", "&#X41;", "&#;", "&#x;", "&#65", "&#x41 ;", "&#a;", "&nbsp;", "&amp",
                "& x", "&", "&copy;", "&#١;"})
        void otherReferencesStayAsWritten(String written) {
            assertThat(text(written)).isEqualTo(written);
            assertThat(text("a" + written + "b")).isEqualTo("a" + written + "b");
        }

        @Test
        void referencesNextToLiteralAmpersands() {
            assertThat(text("&&amp;&#&#65;&x")).isEqualTo("&&&#A&x");
        }

        private String text(String written) {
            return call("<tool_name>t</tool_name><arguments><v>" + written + "</v></arguments>")
                    .arguments().get("v").stringValue(null);
        }

        @Test
        void cdataInToolName() {
            assertThat(call("<tool_name><![CDATA[ search ]]></tool_name>").toolName()).isEqualTo("search");
            assertThat(call("<tool_name>se<![CDATA[ar]]>ch</tool_name>").toolName()).isEqualTo("search");
        }

        @Test
        void cdataInArgumentIsLiteral() {
            assertThat(text("<![CDATA[a < b && c &amp; </v></arguments>]]>")).isEqualTo("a < b && c &amp; </v></arguments>");
        }

        @Test
        void argumentThatIsOneCdataOnceTrimmedGetsTheSectionsContent() {
            assertThat(text("\n  <![CDATA[\n code \n]]>\n")).isEqualTo("\n code \n");
        }

        @Test
        void cdataMixedWithTextIsUnwrappedInPlace() {
            assertThat(text(" x<![CDATA[<y>]]>z ")).isEqualTo(" x<y>z ");
            assertThat(text("<![CDATA[a]]><![CDATA[b]]>")).isEqualTo("ab");
            assertThat(text(" <![CDATA[a]]> <![CDATA[b]]> ")).isEqualTo(" a b ");
        }

        @Test
        void argumentTextIsExactAndUntrimmed() {
            assertThat(text("\n  two  spaces\t\n")).isEqualTo("\n  two  spaces\t\n");
            assertThat(text("")).isEqualTo("");
        }

        @Test
        void emptyAndSelfClosingChildrenAreEmptyStrings() {
            assertThat(args("<tool_name>a</tool_name><arguments><x/><y></y><z a=\"1\" /></arguments>"))
                    .isEqualTo("{\"x\":\"\",\"y\":\"\",\"z\":\"\"}");
        }

        @ParameterizedTest
        @ValueSource(strings = {"<arguments></arguments>", "<arguments> \n\t </arguments>", "<arguments/>",
                "<arguments />", "<arguments kind=\"json\"/>", ""})
        void emptyOrMissingArgumentsMeanNoArguments(String arguments) {
            assertThat(args("<tool_name>a</tool_name>" + arguments)).isEqualTo("{}");
        }

        @Test
        void argumentsAsJsonText() {
            assertThat(args("<tool_name>a</tool_name><arguments>\n{\"q\": \"x\", \"n\": [1]}\n</arguments>"))
                    .isEqualTo("{\"q\":\"x\",\"n\":[1]}");
            assertThat(args("<tool_name>a</tool_name><arguments>{&quot;q&quot;: &quot;a&amp;b&quot;}</arguments>"))
                    .isEqualTo("{\"q\":\"a&b\"}");
            assertThat(args("<tool_name>a</tool_name><arguments><![CDATA[{\"html\": \"</arguments>\"}]]></arguments>"))
                    .isEqualTo("{\"html\":\"</arguments>\"}");
        }

        @Test
        void argumentsJsonTextMustBeAnObject() {
            assertThat(error("<tool_name>a</tool_name><arguments>[1, 2]</arguments>").error())
                    .startsWith("<arguments> holds an array as JSON, not an object");
            assertThat(error("<tool_name>a</tool_name><arguments>just words</arguments>").error())
                    .startsWith("<arguments> holds text that is not a valid JSON object (at line 1, column 5 of that text:")
                    .contains("unknown word 'just'");
            assertThat(error("<tool_name>a</tool_name><arguments>{\"a\": 1,}</arguments>").error())
                    .contains("remove the trailing comma");
        }

        @Test
        void nestedObjects() {
            assertThat(args("<tool_name>a</tool_name><arguments><filter>\n  <status>open</status>\n"
                    + "  <owner><login>me</login></owner>\n</filter><q>x</q></arguments>"))
                    .isEqualTo("{\"filter\":{\"status\":\"open\",\"owner\":{\"login\":\"me\"}},\"q\":\"x\"}");
        }

        @Test
        void repeatedChildGivesAnArrayInOrderAtItsFirstPlace() {
            assertThat(args("<tool_name>a</tool_name><arguments><tag>x</tag><q>1</q><tag>y</tag><tag>z</tag></arguments>"))
                    .isEqualTo("{\"tag\":[\"x\",\"y\",\"z\"],\"q\":\"1\"}");
        }

        @Test
        void repeatedNestedChildrenGiveArraysOfObjects() {
            assertThat(args("<tool_name>a</tool_name><arguments><item><n>1</n></item><item><n>2</n><n>3</n></item>"
                    + "<item>text</item></arguments>"))
                    .isEqualTo("{\"item\":[{\"n\":\"1\"},{\"n\":[\"2\",\"3\"]},\"text\"]}");
        }

        @Test
        void repeatedTopLevelChildKeepsItsLastOccurrence() {
            ToolCall call = call("<tool_name>first</tool_name><arguments><a>1</a></arguments>"
                    + "<server_name>s1</server_name><tool_name>second</tool_name><arguments><b>2</b></arguments>"
                    + "<server_name>s2</server_name>");
            assertThat(call).isEqualTo(new ToolCall("s2", "second", StrictJson.emptyObject().put("b", "2")));
        }

        @Test
        void unknownChildrenAreIgnored() {
            ToolCall call = call("<thought>I should search</thought><tool_name>a</tool_name><id>7</id><arguments/>");
            assertThat(call.toolName()).isEqualTo("a");
            assertThat(call.arguments().isEmpty()).isTrue();
        }

        @Test
        void elementNamesAreCaseSensitive() {
            assertThat(error("<Tool_Name>a</Tool_Name>").error()).startsWith("tool call is missing <tool_name>");
            assertThat(args("<tool_name>a</tool_name><Arguments><q>x</q></Arguments>")).isEqualTo("{}");
            assertThat(args("<tool_name>a</tool_name><arguments><Q>x</Q><q>y</q></arguments>"))
                    .isEqualTo("{\"Q\":\"x\",\"q\":\"y\"}");
            assertThat(error("<tool_name>a</Tool_name>").error())
                    .contains("</Tool_name> does not match the open <tool_name>");
        }

        @Test
        void attributesAreIgnored() {
            ToolCall call = call("<tool_name id=\"1\" lang='en' bare>a</tool_name>"
                    + "<arguments type=\"object\"><q kind=\"text\">x</q></arguments>");
            assertThat(call.toolName()).isEqualTo("a");
            assertThat(call.arguments().toString()).isEqualTo("{\"q\":\"x\"}");
        }

        @Test
        void commentsAtTopLevelAreAnError() {
            assertThat(error("<!-- call --><tool_name>a</tool_name>").error())
                    .isEqualTo("tool call XML is invalid at line 1, column 1: comments are not allowed between the "
                            + "elements of a tool call: remove the <!-- -->");
            error("<tool_name>a</tool_name>\n<!-- done -->");
        }

        @Test
        void commentsInsideElementsAreSkipped() {
            assertThat(args("<tool_name>a<!-- x --></tool_name><arguments><!-- note --><q>x<!-- y -->z</q></arguments>"))
                    .isEqualTo("{\"q\":\"xz\"}");
        }

        @ParameterizedTest
        @ValueSource(strings = {
                "<tool_name>a</tool_name> then <arguments/>",
                "<tool_name>a</tool_name>\ndone",
                "<tool_name>a</tool_name>&amp;",
                "<tool_name>a</tool_name><![CDATA[x]]>",
                "<tool_name>a</tool_name> < 5"})
        void strayTextAtTopLevelIsAnError(String content) {
            assertThat(error(content).error())
                    .startsWith("tool call XML is invalid at line ")
                    .contains("text outside of the elements: ");
        }

        @Test
        void strayTextIsQuotedAndPositioned() {
            assertThat(error("<tool_name>a</tool_name>\n  oops\n<arguments/>").error())
                    .startsWith("tool call XML is invalid at line 2, column 3: text outside of the elements: \"oops\";");
        }

        @Test
        void unclosedElementIsAnError() {
            assertThat(error("<tool_name>a</tool_name>\n<arguments><q>x</q>").error())
                    .isEqualTo("tool call XML is invalid at line 2, column 1: <arguments> is opened here but never "
                            + "closed: add </arguments>");
            assertThat(error("<tool_name>a").error()).contains("<tool_name> is opened here but never closed");
            assertThat(error("<tool_name>a</tool_name><arguments><q>x</arguments>").error())
                    .contains("</arguments> does not match the open <q>");
        }

        @Test
        void mismatchedCloseTagIsAnError() {
            assertThat(error("<tool_name>a</tool>").error())
                    .isEqualTo("tool call XML is invalid at line 1, column 13: </tool> does not match the open "
                            + "<tool_name>: close <tool_name> with </tool_name> first (names are case-sensitive)");
        }

        @Test
        void closeTagWithoutOpenTagIsAnError() {
            assertThat(error("<tool_name>a</tool_name></arguments>").error())
                    .contains("</arguments> closes nothing");
        }

        @Test
        void unfinishedTagsAreAnError() {
            assertThat(error("<tool_name>a</tool_name><arguments a=\"1\"").error())
                    .contains("the tag <arguments is not closed with '>'");
            assertThat(error("<tool_name>a</tool_name><arguments").error())
                    .contains("the tag <arguments is not closed with '>'");
            assertThat(error("<tool_name>a</tool_name").error()).contains("the closing tag </tool_name is not closed");
            assertThat(error("<tool_name>a</tool_name><arguments><q>x</q></arguments").error())
                    .contains("the closing tag </arguments is not closed");
            assertThat(error("<tool_name\">a</tool_name>").error()).contains("unexpected '\"' in the tag <tool_name");
            assertThat(error("<tool_name>a</tool_name><arguments><q><![CDATA[x</q></arguments>").error())
                    .contains("<![CDATA[ section is never closed");
            assertThat(error("<tool_name>a<!-- x</tool_name>").error()).contains("comment is never closed");
        }

        @Test
        void declarationsAndProcessingInstructionsAreAnError() {
            assertThat(error("<?xml version=\"1.0\"?><tool_name>a</tool_name>").error()).contains("unsupported markup");
            assertThat(error("<!DOCTYPE x><tool_name>a</tool_name>").error()).contains("unsupported markup");
        }

        @Test
        void lessThanThatCannotStartMarkupIsText() {
            assertThat(text("x < 5 && y <= 6 </ 7 <>")).isEqualTo("x < 5 && y <= 6 </ 7 <>");
        }

        @Test
        void mixedContentIsAnError() {
            // Decided: text that is not whitespace next to child elements is an error at
            // any level (see XmlArguments): the model usually meant markup as a string.
            assertThat(error("<tool_name>a</tool_name>\n<arguments><body>Hello <b>world</b></body></arguments>").error())
                    .isEqualTo("<body> (at line 2, column 12) mixes text with child elements: give it either only "
                            + "child elements, one per field, or only text; wrap text that contains markup in "
                            + "<![CDATA[...]]>");
            assertThat(error("<tool_name>a</tool_name><arguments>q=<q>x</q></arguments>").error())
                    .startsWith("<arguments> (at line 1, column 25) mixes text with child elements");
            assertThat(error("<tool_name>a</tool_name><arguments><q>x</q><![CDATA[y]]></arguments>").error())
                    .contains("mixes text with child elements");
        }

        @Test
        void whitespaceAndCommentsBetweenChildrenAreNotMixedContent() {
            assertThat(args("<tool_name>a</tool_name><arguments>\n\t<q>x</q> <!-- c --> <![CDATA[ ]]>\n</arguments>"))
                    .isEqualTo("{\"q\":\"x\"}");
        }

        @Test
        void nonAsciiElementNames() {
            assertThat(args("<tool_name>a</tool_name><arguments><ville>Paris</ville><città>Roma</città></arguments>"))
                    .isEqualTo("{\"ville\":\"Paris\",\"città\":\"Roma\"}");
        }

        @Test
        void nestingIsLimited() {
            int ok = XmlElementReader.MAX_DEPTH - 1;
            String fine = "<tool_name>a</tool_name><arguments>" + "<x>".repeat(ok - 1) + "v" + "</x>".repeat(ok - 1)
                    + "</arguments>";
            assertThat(call(fine).arguments().get("x")).isNotNull();
            String deep = "<tool_name>a</tool_name><arguments>" + "<x>".repeat(100_000) + "</arguments>";
            assertThat(error(deep).error()).contains("nested more than 256 levels deep");
        }

        @Test
        void errorCarriesTheContentAsPassed() {
            String content = "```xml\n<tool_name>a\n```";
            ToolCallError error = error(content);
            assertThat(error.content()).isEqualTo(content);
            assertThat(error.error()).contains("at line 2, column 1");
        }
    }
}
