package dev.bellows.stream.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bellows.format.ActionFormat;
import dev.bellows.stream.Dialect;
import dev.bellows.tool.DecodedToolCall;
import dev.bellows.tool.ToolCallError;
import java.util.Map;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * The decoders' generic fallback messages ({@link DecoderFallback}) are for bugs only: no
 * generated input, arbitrary or built from the fragments the decoders look for, reaches one.
 * Every answer is either a call or an error that says what is wrong with the text.
 */
class DecoderFallbackProperties {

    @Property(tries = 1500)
    void theToolCallDecoderNeverFallsBack(@ForAll("soup") String content) {
        assertNoFallback(ToolCallDecoder.decode(content));
        assertNoFallback(ToolCallDecoder.decode(content + "}"));
    }

    @Property(tries = 1000)
    void noDialectFallsBack(@ForAll("soup") String content, @ForAll("dialects") String dialect) {
        DecodedToolCall decoded = DialectSpec.of(Dialect.named(dialect)).body().decode(content, Map.of(), ParameterSchemas.NONE);
        if (decoded != null) {
            assertNoFallback(decoded);
        }
    }

    @Property(tries = 1000)
    void theActionDecoderNeverFallsBack(@ForAll("soup") String content) {
        for (ActionFormat format : ActionFormat.values()) {
            try {
                ActionDecoder.decode(content, format).forEach(DecoderFallbackProperties::assertNoFallback);
            } catch (ActionDecoder.ActionException e) {
                assertThat(e.getMessage()).doesNotStartWith(DecoderFallback.TOOL_CALL).doesNotContain(DecoderFallback.JSON);
            }
        }
    }

    @Property(tries = 1500)
    void theJsonReaderNeverFallsBack(@ForAll("soup") String content) {
        try {
            StrictJson.read(content);
        } catch (SyntaxError e) {
            assertThat(e.getMessage()).doesNotContain(DecoderFallback.JSON);
        }
    }

    private static void assertNoFallback(DecodedToolCall decoded) {
        if (decoded instanceof ToolCallError error) {
            assertThat(error.error()).doesNotStartWith(DecoderFallback.TOOL_CALL).doesNotContain(DecoderFallback.JSON);
        }
    }

    @Provide
    Arbitrary<String> dialects() {
        return Arbitraries.of(Dialect.names());
    }

    /** Fragments of the JSON, XML, YAML and dialect forms glued at random, and arbitrary strings. */
    @Provide
    Arbitrary<String> soup() {
        Arbitrary<String> token = Arbitraries.oneOf(
                Arbitraries.of("<", ">", "</", "/>", "tool_name", "arguments", "<tool_name>", "</tool_name>",
                        "<arguments>", "</arguments>", "<parameter=", "</parameter>", "<function=", "</function>",
                        "<arg_key>", "</arg_key>", "<arg_value>", "</arg_value>", "[TOOL_CALLS]", "<|tool_call_begin|>",
                        "<|tool_call_argument_begin|>", "<｜tool▁sep｜>", "functions.", ":0", "name", "{", "}", "[",
                        "]", "\"", ":", ",", "\"tool_name\"", "\"arguments\"", "\"name\"", "null", "1e400", "1e999999999999",
                        "-0.5", "&#x", ";", "<![CDATA[", "]]>", "```", "```json", "\n", " ", "- ", "key: ", "|", "\\",
                        "\\u00", "\uD83D", "\u0000", "é"),
                Arbitraries.strings().ofMaxLength(4));
        return Arbitraries.oneOf(token.list().ofMaxSize(40).map(tokens -> String.join("", tokens)),
                Arbitraries.strings().ofMaxLength(60));
    }

}
