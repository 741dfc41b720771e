package dev.bellows.stream;

import static org.assertj.core.api.Assertions.assertThat;

import tools.jackson.databind.node.JsonNodeFactory;
import dev.bellows.event.StreamEvent;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * The early name of every dialect, for random tool names and argument values: fed one character
 * a chunk, {@code tool_call_name} comes with the character that completes the name (the index
 * is computed here from the dialect's rule in docs/dialects.md, independently of the sniffers),
 * exactly once per call, and the decoded call carries the same name and the argument; cut at
 * random, it comes in the chunk that holds that character. A name ended by a delimiter (GLM-4.7's
 * {@code <arg_key>}, DeepSeek V3.1's separator) is complete at the delimiter's first character;
 * Llama 3's bare call is one, and names its tool, once its name and its {@code "parameters"} (or
 * {@code "arguments"}) key were read.
 */
class DialectEarlyNameProperties {

    /** One call in a dialect's format, and where its name is complete. */
    private record Case(String dialect, String text, int completedAt) {
    }

    /** The forms checked: the dialects, plus the other forms some of them read. */
    private static final List<String> FORMS = List.of("hermes", "qwen3_coder", "llama3_json", "llama3_bare", "mistral",
            "deepseek_v3", "deepseek_v31", "kimi_k2", "glm45", "glm47", "minimax_m2", "harmony", "kimi_think");

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
        return Arbitraries.of(FORMS);
    }

    @Provide
    Arbitrary<List<Integer>> cuts() {
        return Arbitraries.integers().between(0, 100_000).list().ofMaxSize(20);
    }

    /** The dialect that reads a form. */
    private static String dialectOf(String form) {
        return switch (form) {
            case "llama3_bare" -> "llama3_json";
            case "deepseek_v31" -> "deepseek_v3";
            case "glm47" -> "glm45";
            default -> form;
        };
    }

    /**
     * The options for a form; Llama 3 with the tool offered in its catalog when {@code catalog}
     * (without a catalog every name counts).
     */
    private static StreamOptions options(String form, String name, boolean catalog) {
        StreamOptions.Builder builder = StreamOptions.builder().dialect(Dialect.named(dialectOf(form)));
        if (catalog) {
            builder.toolSchemas(ToolSchemas.of(Map.of(name, JsonNodeFactory.instance.objectNode(), "other-tool",
                    JsonNodeFactory.instance.objectNode())));
        }
        return builder.build();
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
                // a call once "parameters" is read: at its closing quote
                return new Case(dialect, text, text.indexOf("\": {", text.indexOf("\"parameters")));
            }
            case "llama3_bare" -> {
                text = before + "{ \"name\" : \"" + name + "\" ,\n \"arguments\": " + json(value) + "}";
                return new Case(dialect, text, text.indexOf("\": {", text.indexOf("\"arguments")));
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
            case "deepseek_v31" -> { // the name ends where the separator begins
                text = before + "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>" + name + "<｜tool▁sep｜>" + json(value)
                        + "<｜tool▁call▁end｜><｜tool▁calls▁end｜>";
                end = "<｜tool▁sep｜>";
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
            case "glm47" -> { // no line break: the name ends where <arg_key> begins
                text = before + "<tool_call>" + name + "<arg_key>v</arg_key><arg_value>" + value.replace("<", "")
                        + "</arg_value></tool_call>";
                end = "<arg_key>v";
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
            @ForAll("values") String value, @ForAll boolean textBefore, @ForAll boolean catalog) {
        Case c = build(dialect, name, value, textBefore ? "Let me call it. " : "");
        StreamOptions options = options(dialect, name, catalog);
        assertThat(DialectTesting.namesByChar(options, c.text()))
                .as("%s", c.text()).containsExactly(name + "@" + c.completedAt());
        List<String> calls = DialectTesting.calls(
                (dev.bellows.event.StreamEvent.Complete) DialectTesting.runAnyChunking(options, c.text()).getLast());
        assertThat(calls).as("%s", c.text()).hasSize(1);
        assertThat(calls.getFirst()).as("%s", c.text()).startsWith(name + " {\"v\":");
    }

    @Property(tries = 300)
    void theNameComesInTheChunkThatCompletesIt(@ForAll("dialects") String dialect, @ForAll("names") String name,
            @ForAll("values") String value, @ForAll boolean textBefore, @ForAll boolean catalog,
            @ForAll("cuts") List<Integer> cuts) {
        Case c = build(dialect, name, value, textBefore ? "Let me call it. " : "");
        List<StreamChunk> chunks = DialectTesting.cut(c.text(), cuts);
        int completing = DialectTesting.chunkHolding(chunks, c.completedAt());
        List<StreamEvent> events = StreamTesting.run(options(dialect, name, catalog), chunks);
        List<String> names = new ArrayList<>();
        int started = -1;
        int ended = -1;
        for (StreamEvent e : events) {
            if (e instanceof StreamEvent.ToolCallName n) {
                names.add(n.toolName() + "@" + n.chunk());
            } else if (e instanceof StreamEvent.ToolCallStart s) {
                started = s.chunk();
            } else if (e instanceof StreamEvent.ToolCallEnd end) {
                ended = end.chunk();
            }
        }
        assertThat(names).as("%s cut as %s", c.text(), chunks).containsExactly(name + "@" + completing);
        assertThat(started).as("the call starts no later than its name").isBetween(0, completing);
        assertThat(ended).as("the call ends after its name").isGreaterThanOrEqualTo(completing);
    }

    /**
     * GLM-4.7 writes no line break after the name: it is complete at the {@code <} of
     * {@code <arg_key>} (a name holds no {@code <}), in that character's chunk, although the scanner
     * holds that {@code <} back until it knows it does not start {@code </tool_call>}; likewise at
     * the {@code <} of {@code </tool_call>} for a call without arguments, and at the {@code <} of
     * DeepSeek V3.1's separator.
     */
    @Example
    void aNameEndedByADelimiterComesWithItsFirstCharacter() {
        String glm = "<tool_call>get_weather<arg_key>city</arg_key><arg_value>Paris</arg_value></tool_call>";
        assertThat(DialectTesting.namesByChar(DialectTesting.options("glm45"), glm))
                .containsExactly("get_weather@" + glm.indexOf("<arg_key>"));
        String noArguments = "<tool_call>get_time</tool_call>";
        assertThat(DialectTesting.namesByChar(DialectTesting.options("glm45"), noArguments))
                .containsExactly("get_time@" + noArguments.indexOf("</tool_call>"));
        String deepSeek = "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>get_weather<｜tool▁sep｜>{\"city\": \"Paris\"}"
                + "<｜tool▁call▁end｜><｜tool▁calls▁end｜>";
        assertThat(DialectTesting.namesByChar(DialectTesting.options("deepseek_v3"), deepSeek))
                .containsExactly("get_weather@" + deepSeek.indexOf("<｜tool▁sep｜>"));
    }
}
