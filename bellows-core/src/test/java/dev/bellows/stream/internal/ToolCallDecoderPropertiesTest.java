package dev.bellows.stream.internal;

import dev.bellows.json.internal.Jackson;
import static org.assertj.core.api.Assertions.assertThat;

import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.node.ObjectNode;
import dev.bellows.tool.DecodedToolCall;
import dev.bellows.tool.ToolCall;
import dev.bellows.tool.ToolCallError;
import java.util.Map;
import java.util.function.Supplier;
import java.util.stream.Stream;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.AlphaChars;
import net.jqwik.api.constraints.StringLength;
import org.junit.jupiter.api.Named;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** The decoder never throws, agrees between its two forms, and stays linear. */
class ToolCallDecoderPropertiesTest {

    private static final ObjectMapper JSON = Jackson.JSON;

    @Property(tries = 2000)
    void arbitraryStringsNeverThrow(@ForAll String content) {
        assertDecodes(content);
    }

    @Property(tries = 3000)
    void tokenSoupNeverThrows(@ForAll("soup") String content) {
        assertDecodes(content);
    }

    @Property(tries = 500)
    void fencedTokenSoupNeverThrows(@ForAll("soup") String content) {
        assertDecodes("```json\n" + content + "\n```");
    }

    private static void assertDecodes(String content) {
        DecodedToolCall decoded = ToolCallDecoder.decode(content);
        assertThat(decoded).isNotNull();
        if (decoded instanceof ToolCallError error) {
            assertThat(error.content()).isEqualTo(content);
            assertThat(error.error()).isNotBlank().doesNotContain("Exception", "com.fasterxml", "tools.jackson");
        }
    }

    /** Fragments of both forms glued at random, to reach the decoders' deeper paths. */
    @Provide
    Arbitrary<String> soup() {
        Arbitrary<String> token = Arbitraries.oneOf(
                Arbitraries.of("<", ">", "</", "/>", "tool_name", "server_name", "arguments", "q", "<tool_name>",
                        "</tool_name>", "<arguments>", "</arguments>", "<q>", "</q>", "{", "}", "[", "]", "\"",
                        ":", ",", "name", "\"tool_name\"", "\"arguments\"", "\"args\"", "null", "NaN", "1e400",
                        "-0.5", "&", "&#", "&#x", ";", "&amp;", "&#xD800;", "&#0;", "<![CDATA[", "]]>", "<!--",
                        "-->", "```", "\n", "\r", " ", "\t", "=", "'", "\\", "\\u00", "<?", "<!", "x", "é",
                        "\uD83D", "\uDE00", "\u0000"),
                Arbitraries.strings().ofMaxLength(3));
        return token.list().ofMaxSize(40).map(tokens -> String.join("", tokens));
    }

    @Property(tries = 300)
    void jsonAndXmlFormsAgree(@ForAll @AlphaChars @StringLength(min = 1, max = 12) String name,
                              @ForAll("argumentMaps") Map<String, String> arguments) {
        ObjectNode expected = JSON.createObjectNode();
        arguments.forEach(expected::put);

        StringBuilder xml = new StringBuilder("<tool_name>").append(name).append("</tool_name>\n<arguments>");
        arguments.forEach((key, value) -> xml.append("<").append(key).append(">")
                .append(value.replace("&", "&amp;").replace("<", "&lt;"))
                .append("</").append(key).append(">"));
        xml.append("</arguments>");
        String json = JSON.createObjectNode().put("tool_name", name).set("arguments", expected).toString();

        ToolCall expectedCall = new ToolCall("local", name, expected);
        assertThat(ToolCallDecoder.decode(xml.toString())).isEqualTo(expectedCall);
        assertThat(ToolCallDecoder.decode(json)).isEqualTo(expectedCall);
        assertThat(ToolCallDecoder.decode("```json\n" + json + "\n```")).isEqualTo(expectedCall);
    }

    @Provide
    Arbitrary<Map<String, String>> argumentMaps() {
        Arbitrary<String> keys = Arbitraries.strings().withCharRange('a', 'z').ofMinLength(1).ofMaxLength(8);
        Arbitrary<String> values = Arbitraries.strings().all().ofMaxLength(20)
                .filter(v -> v.codePoints().allMatch(c -> c != 0 && c != '\r' && !Character.isSurrogate((char) c))
                        && !v.contains("]]>"));
        return Arbitraries.maps(keys, values).ofMaxSize(5);
    }

    // Linear cost: each input is millions of characters, built to punish rescanning,
    // backtracking or quadratic string building. A linear decoder needs well under a
    // second for each; a quadratic one needs minutes (this caught an unbounded indexOf).
    static Stream<Arguments> hugeInputs() {
        int n = 500_000;
        String xml = "<tool_name>a</tool_name><arguments>";
        return Stream.of(
                huge("many numeric-reference starts", () -> xml + "<v>" + "&#1".repeat(n) + "</v></arguments>"),
                huge("out-of-range references", () -> xml + "<v>" + "&#x10FFFF0".repeat(n) + "</v></arguments>"),
                huge("literal < and &", () -> xml + "<v>" + "< &".repeat(n) + "</v></arguments>"),
                huge("many children, one name", () -> xml + "<k>v</k>".repeat(n) + "</arguments>"),
                huge("many children, two names", () -> xml + "<k>v</k><j><x/></j>".repeat(n / 2) + "</arguments>"),
                huge("many short text runs", () -> xml + "<k>a<!-- c -->b<![CDATA[c]]>d</k>".repeat(n) + "</arguments>"),
                huge("near-CDATA ends", () -> xml + "<v>" + "]]".repeat(n) + "</v></arguments>"),
                huge("unclosed CDATA", () -> xml + "<v><![CDATA[" + "]]".repeat(n) + "</v></arguments>"),
                huge("unclosed comment", () -> xml + "<v><!--" + "--".repeat(n) + "</v></arguments>"),
                huge("deep unclosed nesting", () -> xml + "<x>".repeat(n)),
                huge("stray text after spaces", () -> "<tool_name>a</tool_name>" + " ".repeat(n) + "x"),
                huge("endless tag", () -> "<a " + "x".repeat(n)),
                huge("backtick fence", () -> "```" + "`".repeat(n) + "\n" + "`".repeat(n)),
                huge("long JSON string", () -> "{\"name\": \"a\", \"args\": {\"v\": \"" + "x".repeat(5 * n) + "\"}}"),
                huge("deep JSON nesting", () -> "{\"name\": \"a\", \"args\": " + "{\"k\": ".repeat(n) + "1"
                        + "}".repeat(n) + "}"),
                huge("many escapes in an arguments string", () -> "{\"name\": \"a\", \"args\": \"" + "\\\"".repeat(n)
                        + "\"}"),
                huge("JSON then far-away garbage", () -> "{\"name\": \"a\"}" + " ".repeat(n) + "x"),
                huge("many JSON keys", () -> "{" + "\"k\": 1, ".repeat(n) + "\"name\": \"a\"}"));
    }

    private static Arguments huge(String label, Supplier<String> content) {
        return Arguments.of(Named.of(label, content));
    }

    @ParameterizedTest
    @MethodSource("hugeInputs")
    void hugeInputsDecode(Supplier<String> input) {
        // No time limit here (unit tests never assert on wall-clock time): a quadratic
        // decoder makes this test crawl visibly; the linear cost is measured in bellows-bench.
        DecodedToolCall decoded = ToolCallDecoder.decode(input.get());
        assertThat(decoded).isNotNull();
    }

    @Test
    void hugeArgumentValueIsKeptWhole() {
        String value = "y".repeat(25_000_000);
        ToolCall call = (ToolCall) ToolCallDecoder.decode("{\"name\": \"a\", \"args\": {\"v\": \"" + value + "\"}}");
        assertThat(call.arguments().get("v").stringValue(null)).hasSize(value.length());
    }
}
