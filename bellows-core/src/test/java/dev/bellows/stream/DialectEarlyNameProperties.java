package dev.bellows.stream;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * The early name of every dialect, for random tool names and argument values: fed one character
 * a chunk, {@code tool_call_name} comes with the character that completes the name (the index
 * is computed here from the dialect's rule in docs/dialects.md, independently of the sniffers),
 * exactly once per call, and the decoded call carries the same name and the argument.
 */
class DialectEarlyNameProperties {

    /** One call in a dialect's format, and where its name is complete. */
    private record Case(String dialect, String text, int completedAt) {
    }

    @Provide
    Arbitrary<String> names() {
        return Arbitraries.strings().withCharRange('a', 'z').withChars('_').ofMinLength(1).ofMaxLength(12);
    }

    @Provide
    Arbitrary<String> values() {
        return Arbitraries.strings().withCharRange('a', 'z').withChars(' ', '<', '>', '{', '}', '[', ']', ':', ';')
                .ofMaxLength(20);
    }

    @Provide
    Arbitrary<String> dialects() {
        return Arbitraries.of("hermes", "qwen3_coder", "llama3_json", "mistral", "deepseek_v3", "kimi_k2", "glm45",
                "minimax_m2", "harmony", "kimi_think");
    }

    private static String json(String value) {
        return "{\"v\": \"" + value + "\"}";
    }

    private static Case build(String dialect, String name, String value, String before) {
        String text;
        String end; // the text that ends the name; the name is complete at its first character
        switch (dialect) {
            case "hermes" -> {
                text = before + "<tool_call>\n{\"name\": \"" + name + "\", \"arguments\": " + json(value) + "}\n</tool_call>";
                end = "\", \"arguments\"";
            }
            case "llama3_json" -> {
                text = before + "<|python_tag|>{\"name\": \"" + name + "\", \"parameters\": " + json(value) + "}";
                // a bare call is known to be one only when its object is complete
                return new Case(dialect, text, text.length() - 1);
            }
            case "qwen3_coder" -> {
                text = before + "<tool_call>\n<function=" + name + ">\n<parameter=v>\n" + value.replace("<", "")
                        + "\n</parameter>\n</function>\n</tool_call>";
                end = ">\n<parameter=v>";
            }
            case "mistral" -> {
                text = before + "[TOOL_CALLS]" + name + "[ARGS]" + json(value);
                end = "[ARGS]";
            }
            case "deepseek_v3" -> {
                text = before + "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>" + name + "\n```json\n"
                        + json(value) + "\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>";
                end = "\n```json";
            }
            case "kimi_k2", "kimi_think" -> {
                text = before + "<|tool_calls_section_begin|><|tool_call_begin|>functions." + name
                        + ":0<|tool_call_argument_begin|>" + json(value) + "<|tool_call_end|><|tool_calls_section_end|>";
                end = ":0<|tool_call_argument_begin|>";
            }
            case "glm45" -> {
                text = before + "<tool_call>" + name + "\n<arg_key>v</arg_key>\n<arg_value>" + value.replace("<", "")
                        + "</arg_value>\n</tool_call>";
                end = "\n<arg_key>v";
            }
            case "minimax_m2" -> {
                text = before + "<minimax:tool_call>\n<invoke name=\"" + name + "\">\n<parameter name=\"v\">"
                        + value.replace("<", "") + "</parameter>\n</invoke>\n</minimax:tool_call>";
                end = "\">\n<parameter";
            }
            case "harmony" -> {
                text = before + "<|start|>assistant to=functions." + name + "<|channel|>commentary <|constrain|>json"
                        + "<|message|>" + json(value) + "<|call|>";
                // Known where the recipient's name ends: at the '<' of <|channel|>.
                return new Case(dialect, text, text.indexOf("<|channel|>"));
            }
            default -> throw new IllegalArgumentException(dialect);
        }
        // JSON and MiniMax: the closing quote; the others: the first character after the name.
        return new Case(dialect, text, text.indexOf(end, before.length()));
    }

    @Property(tries = 300)
    void theNameComesWithTheCharacterThatCompletesIt(@ForAll("dialects") String dialect, @ForAll("names") String name,
            @ForAll("values") String value, @ForAll boolean textBefore) {
        Case c = build(dialect, name, value, textBefore ? "Let me call it. " : "");
        StreamOptions options = DialectTesting.options(dialect);
        assertThat(DialectTesting.namesByChar(options, c.text()))
                .as("%s", c.text()).containsExactly(name + "@" + c.completedAt());
        List<String> calls = DialectTesting.calls(
                (dev.bellows.event.StreamEvent.Complete) DialectTesting.runAnyChunking(options, c.text()).getLast());
        assertThat(calls).as("%s", c.text()).hasSize(1);
        assertThat(calls.getFirst()).as("%s", c.text()).startsWith(name + " {\"v\":");
    }
}
