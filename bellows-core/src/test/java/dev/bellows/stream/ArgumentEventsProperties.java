package dev.bellows.stream;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bellows.stream.internal.StrictJson;
import dev.bellows.stream.internal.SyntaxError;
import tools.jackson.databind.JsonNode;
import dev.bellows.event.StreamEvent;
import dev.bellows.event.StreamEvent.ToolCallArgument;
import dev.bellows.tool.ToolCall;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * {@code tool_call_argument} on streams whose argument ends are known by construction: random
 * arguments (every kind of JSON value, strings with escapes, quotes, brackets, non-ASCII and
 * surrogate pairs; XML text with references and CDATA; each dialect's named parameters) are
 * written out with random layout, the index of the character that completes each value is
 * recorded while writing, and the text is cut at random code-point positions and one code point a
 * chunk. Each argument must come exactly once, in order, in the chunk holding that character, with
 * the value the parse at the block's close gives it; every other event must be what it is without
 * the option.
 */
public class ArgumentEventsProperties {

    /** A written call: its text, and each argument's name, the text of its value and the index completing it. */
    private record Written(String text, List<Member> members) {
    }

    /** An argument written: its name, the text of its value, and the index of the character that completes it. */
    public record Member(String name, String valueText, int completedAt) {
    }

    @Provide
    Arbitrary<List<Integer>> cuts() {
        return Arbitraries.integers().between(0, 1_000_000).list().ofMaxSize(30);
    }

    @Property(tries = 300)
    void jsonFormMembersFireInTheChunkThatCompletesThem(@ForAll long seed, @ForAll("cuts") List<Integer> cuts) {
        Random random = new Random(seed);
        Writer w = new Writer(random);
        String tag = pick(random, "tool", "tool_call");
        w.text.append('<').append(tag).append('>').append(pick(random, "", "\n", "```json\n"));
        boolean fenced = w.text.toString().contains("```");
        w.space();
        w.text.append('{');
        boolean nameFirst = random.nextBoolean();
        if (nameFirst) {
            w.text.append("\"name\": \"write_file\",");
            w.space();
        }
        if (random.nextInt(4) == 0) {
            w.text.append("\"id\": ");
            w.value(2, false);
            w.text.append(',');
            w.space();
        }
        w.text.append(pick(random, "\"arguments\"", "\"args\"", "\"parameters\""));
        w.space();
        w.text.append(':');
        w.space();
        w.object(true);
        if (!nameFirst) {
            w.text.append(", \"name\": \"write_file\"");
        }
        w.space();
        w.text.append('}');
        w.text.append(fenced ? "\n```\n" : "");
        w.text.append(pick(random, "</" + tag + ">", "</" + tag + "> after", ""));
        checkFires(StreamOptions.defaults(), new Written(w.text.toString(), w.members), cuts);
    }

    @Property(tries = 200)
    void xmlFormTextChildrenFireWhenTheirCloseTagCompletes(@ForAll long seed, @ForAll("cuts") List<Integer> cuts) {
        Random random = new Random(seed);
        StringBuilder text = new StringBuilder("<tool>\n<tool_name>write_file</tool_name>\n<arguments>");
        List<Member> members = new ArrayList<>();
        List<String> names = new ArrayList<>(List.of("path", "content", "q", "x-y", "n.1"));
        java.util.Collections.shuffle(names, random);
        int children = random.nextInt(5);
        for (int i = 0; i < children; i++) {
            String name = names.get(i); // unique: repeated children make arrays, checked by the examples
            text.append(pick(random, "", "\n  ", " "));
            if (random.nextInt(6) == 0) { // a child with element children: no event
                text.append('<').append(name).append("><k>1</k></").append(name).append('>');
                continue;
            }
            text.append('<').append(name).append(random.nextBoolean() ? "" : " a=\"1\"").append('>');
            String value = xmlText(random);
            if (random.nextInt(3) == 0 && !value.contains("]]>")) {
                text.append(pick(random, "", " ", "\n")).append("<![CDATA[").append(value).append("]]>")
                        .append(pick(random, "", " ", "\n"));
            } else {
                text.append(value.replace("&", "&amp;").replace("<", "&lt;").replace(">", random.nextBoolean() ? "&gt;" : ">"));
            }
            text.append("</").append(name).append('>');
            members.add(new Member(name, null, text.length() - 1));
        }
        text.append("</arguments>\n</tool>");
        checkFires(StreamOptions.defaults(), new Written(text.toString(), members), cuts);
    }

    @Provide
    Arbitrary<String> namedParameterDialects() {
        return Arbitraries.of("qwen3_coder", "glm45", "minimax_m2");
    }

    @Property(tries = 300)
    void namedParametersFireWhenTheirCloseCompletes(@ForAll("namedParameterDialects") String dialect, @ForAll long seed,
            @ForAll("cuts") List<Integer> cuts) {
        Random random = new Random(seed);
        StringBuilder text = new StringBuilder();
        List<Member> members = new ArrayList<>();
        int count = random.nextInt(4);
        switch (dialect) {
            case "qwen3_coder" -> text.append("Let me write it.\n<tool_call>\n<function=write_file>\n");
            case "glm45" -> text.append("<tool_call>write_file").append(pick(random, "", "\n"));
            default -> text.append("<minimax:tool_call>\n<invoke name=\"write_file\">\n");
        }
        for (int i = 0; i < count; i++) {
            String name = "p" + i;
            String value = plainText(random);
            switch (dialect) {
                case "qwen3_coder" -> text.append("<parameter=").append(name).append(">\n").append(value).append("\n</parameter>\n");
                case "glm45" -> text.append("<arg_key>").append(name).append("</arg_key>").append(pick(random, "", "\n"))
                        .append("<arg_value>").append(value).append("</arg_value>").append(pick(random, "", "\n"));
                default -> text.append("<parameter name=\"").append(name).append("\">").append(value).append("</parameter>\n");
            }
            int closeEnd = text.lastIndexOf(">", text.length() - 1);
            members.add(new Member(name, null, closeEnd));
        }
        switch (dialect) {
            case "qwen3_coder" -> text.append("</function>\n</tool_call>");
            case "glm45" -> text.append("</tool_call>");
            default -> text.append("</invoke>\n</minimax:tool_call>");
        }
        checkFires(StreamOptions.builder().dialect(Dialect.named(dialect)).build(), new Written(text.toString(), members),
                cuts);
    }

    @Provide
    Arbitrary<String> jsonArgumentDialects() {
        return Arbitraries.of("kimi_k2", "deepseek_v3", "harmony", "mistral", "hermes", "llama3_json");
    }

    @Property(tries = 300)
    void dialectsWithJsonArgumentsFireWhereConstructed(@ForAll("jsonArgumentDialects") String dialect, @ForAll long seed,
            @ForAll("cuts") List<Integer> cuts) {
        Random random = new Random(seed);
        Writer w = new Writer(random);
        String after;
        switch (dialect) {
            case "kimi_k2" -> {
                w.text.append("<|tool_calls_section_begin|><|tool_call_begin|>functions.write_file:0<|tool_call_argument_begin|>");
                after = "<|tool_call_end|><|tool_calls_section_end|>";
            }
            case "deepseek_v3" -> {
                w.text.append(random.nextBoolean()
                        ? "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>write_file<｜tool▁sep｜>"
                        : "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>write_file\n```json\n");
                after = (w.text.toString().contains("```") ? "\n```" : "") + "<｜tool▁call▁end｜><｜tool▁calls▁end｜>";
            }
            case "harmony" -> {
                w.text.append("<|start|>assistant<|channel|>commentary to=functions.write_file <|constrain|>json<|message|>");
                after = "<|call|>";
            }
            case "mistral" -> {
                w.text.append("[TOOL_CALLS]write_file[ARGS]");
                after = "";
            }
            case "hermes" -> {
                w.text.append("<tool_call>\n{\"name\": \"write_file\", \"arguments\": ");
                after = "}\n</tool_call>";
            }
            default -> { // llama3_json: a bare call from its "parameters" key on, its arguments as they complete
                w.text.append("{\"name\": \"write_file\", \"parameters\": ");
                after = "}";
            }
        }
        w.object(true);
        w.text.append(after);
        checkFires(StreamOptions.builder().dialect(Dialect.named(dialect)).build(),
                new Written(w.text.toString(), w.members), cuts);
    }

    /**
     * The providers' native calls stream their arguments as text in pieces of any size (OpenAI's
     * argument deltas, Anthropic's input_json_delta): {@link ArgumentStream} reports each member
     * during the piece that completes it, with the value the whole object's parse gives it.
     */
    @Property(tries = 300)
    void argumentTextInPiecesOfAnySizeReportsEachMemberInThePieceThatCompletesIt(@ForAll long seed,
            @ForAll("cuts") List<Integer> cuts) throws SyntaxError {
        Random random = new Random(seed);
        Writer w = new Writer(random);
        w.space();
        w.object(true);
        String text = w.text.toString();
        List<ChunkingInvarianceProperties.Segment> stream =
                List.of(new ChunkingInvarianceProperties.Segment(ChunkingInvarianceProperties.Kind.MESSAGE, text));
        JsonNode whole = StrictJson.read(text);
        for (List<StreamChunk> pieces : List.of(List.of(StreamChunk.message(text)), ChunkingInvarianceProperties.cut(stream, cuts))) {
            List<String> reported = new ArrayList<>();
            Map<String, JsonNode> last = new LinkedHashMap<>();
            int[] piece = {0};
            ArgumentStream arguments = new ArgumentStream((name, value) -> {
                reported.add(name + "@" + piece[0]);
                last.put(name, value);
            });
            for (StreamChunk chunk : pieces) {
                arguments.feed(((StreamChunk.Text) chunk).text());
                piece[0]++;
            }
            List<String> expected = new ArrayList<>();
            for (Member m : w.members) {
                expected.add(m.name() + "@" + chunkOf(pieces, m.completedAt()));
            }
            assertThat(reported).as("%s", text).isEqualTo(expected);
            Map<String, JsonNode> parsed = new LinkedHashMap<>();
            whole.properties().forEach(e -> parsed.put(e.getKey(), e.getValue()));
            assertThat(last).as("%s", text).isEqualTo(parsed);
            assertThat(arguments.isDone()).isTrue();
        }
    }

    // ---- the check -----------------------------------------------------------------------

    private static void checkFires(StreamOptions options, Written written, List<Integer> cuts) {
        String text = written.text();
        List<ChunkingInvarianceProperties.Segment> stream =
                List.of(new ChunkingInvarianceProperties.Segment(ChunkingInvarianceProperties.Kind.MESSAGE, text));
        List<StreamChunk> onePerCodePoint = new ArrayList<>();
        text.codePoints().forEach(cp -> onePerCodePoint.add(StreamChunk.message(Character.toString(cp))));
        for (List<StreamChunk> chunks : List.of(List.of(StreamChunk.message(text)), ChunkingInvarianceProperties.cut(stream, cuts),
                onePerCodePoint)) {
            List<StreamEvent> events = StreamTesting.assertArgumentEventsOnlyAdd(options, chunks);
            List<String> expected = new ArrayList<>();
            for (Member m : written.members()) {
                expected.add(m.name() + "@" + chunkOf(chunks, m.completedAt()));
            }
            List<String> actual = new ArrayList<>();
            Map<String, JsonNode> last = new LinkedHashMap<>();
            for (StreamEvent e : events) {
                if (e instanceof ToolCallArgument a) {
                    actual.add(a.name() + "@" + a.chunk());
                    last.put(a.name(), a.value());
                }
            }
            assertThat(actual).as("%s", text).isEqualTo(expected);
            var decodedCall = StreamTesting.complete(events).toolCalls();
            assertThat(decodedCall).as("%s", text).hasSize(1);
            if (!(decodedCall.getFirst() instanceof ToolCall call)) {
                throw new AssertionError(("not a call: " + decodedCall.getFirst() + " from " + text).replace("]]>", "]]&gt;"));
            }
            assertThat(call.toolName()).isEqualTo("write_file");
            // each value is the one the parse gives (the last of a repeated key, as the parse keeps it)
            Map<String, JsonNode> decoded = new LinkedHashMap<>();
            call.arguments().properties().forEach(e -> decoded.put(e.getKey(), e.getValue()));
            if (!options.dialect().usesTags() || !text.contains("<arguments>")) {
                assertThat(last).as("%s", text).isEqualTo(decoded);
            } else {
                for (Map.Entry<String, JsonNode> e : last.entrySet()) { // repeated XML children make arrays
                    JsonNode parsed = decoded.get(e.getKey());
                    assertThat(parsed.isArray() ? parsed.get(parsed.size() - 1) : parsed).as("%s", text).isEqualTo(e.getValue());
                }
            }
        }
    }

    /** The index of the chunk holding UTF-16 index {@code at} of the text. */
    private static int chunkOf(List<StreamChunk> chunks, int at) {
        int start = 0;
        for (int i = 0; i < chunks.size(); i++) {
            int end = start + ((StreamChunk.Text) chunks.get(i)).text().length();
            if (at < end) {
                return i;
            }
            start = end;
        }
        throw new AssertionError("index " + at + " beyond the text");
    }

    // ---- writing -------------------------------------------------------------------------

    /**
     * Writes JSON with random layout, recording where each top-level member of the arguments
     * completes (also for the native path's properties, in dev.bellows.agent).
     */
    public static final class Writer {
        final Random random;
        public final StringBuilder text = new StringBuilder();
        public final List<Member> members = new ArrayList<>();

        public Writer(Random random) {
            this.random = random;
        }

        public void space() {
            text.append(pick(random, "", "", " ", "\n", "  ", "\t", "\r\n"));
        }

        /** An object; {@code record} when it is the arguments object, whose members are recorded. */
        public void object(boolean record) {
            text.append('{');
            int count = random.nextInt(record ? 5 : 3);
            for (int i = 0; i < count; i++) {
                if (i > 0) {
                    text.append(',');
                }
                space();
                String key = record && random.nextInt(5) == 0 && !members.isEmpty()
                        ? members.get(random.nextInt(members.size())).name() // a repeated key fires each time
                        : pick(random, "path", "content", "n", "o", "é", "a\"b", "x/y", "");
                string(key);
                space();
                text.append(':');
                space();
                int start = text.length();
                int completed = value(record ? 3 : 2, true);
                if (record) {
                    members.add(new Member(key, text.substring(start), completed));
                }
                space();
            }
            text.append('}');
        }

        /** Writes a value; returns the index of the character that completes it. */
        int value(int depth, boolean inObject) {
            int kind = random.nextInt(depth > 0 ? 6 : 4);
            switch (kind) {
                case 0 -> {
                    string(randomString());
                    return text.length() - 1;
                }
                case 1 -> {
                    text.append(pick(random, "0", "-0", "12", "-3.5", "1e10", "2.50E-3", "123456789012345678901234567890", "7.0"));
                    return text.length(); // the character after the number: ',' or '}' or whitespace follows
                }
                case 2 -> {
                    text.append(pick(random, "true", "false", "null"));
                    return text.length() - 1;
                }
                case 3 -> {
                    string(pick(random, "", "}", "]", ",", ":"));
                    return text.length() - 1;
                }
                case 4 -> {
                    object(false);
                    return text.length() - 1;
                }
                default -> {
                    text.append('[');
                    int count = random.nextInt(3);
                    for (int i = 0; i < count; i++) {
                        if (i > 0) {
                            text.append(',');
                        }
                        space();
                        value(depth - 1, false);
                        space();
                    }
                    text.append(']');
                    return text.length() - 1;
                }
            }
        }

        void string(String value) {
            text.append('"');
            for (int i = 0; i < value.length(); i++) {
                char c = value.charAt(i);
                switch (c) {
                    case '"' -> text.append("\\\"");
                    case '\\' -> text.append("\\\\");
                    case '/' -> text.append("\\/"); // never "</", which would close the block
                    case '\n' -> text.append("\\n");
                    case '\t' -> text.append("\\t");
                    default -> {
                        boolean pair = Character.isHighSurrogate(c) && i + 1 < value.length();
                        String unit = pair ? value.substring(i, i + 2) : String.valueOf(c);
                        if (c < 0x20 || (c > 0x7e && random.nextBoolean())) {
                            unit.chars().forEach(u -> text.append(String.format("\\u%04x", u))); // a pair as two escapes
                        } else {
                            text.append(unit);
                        }
                        if (pair) {
                            i++;
                        }
                    }
                }
            }
            text.append('"');
        }

        String randomString() {
            StringBuilder s = new StringBuilder();
            int length = random.nextInt(12);
            for (int i = 0; i < length; i++) {
                s.append(pick(random, "a", "b", " ", "\"", "\\", "<", ">", "/", "{", "}", "[", "]", ":", ",", "é", "😀", "\n",
                        "\t", "\u0001", "tool", "]]>"));
            }
            return s.toString();
        }
    }

    /** Text for an XML child: any characters, written with references or in CDATA. */
    private static String xmlText(Random random) {
        StringBuilder s = new StringBuilder();
        int length = random.nextInt(10);
        for (int i = 0; i < length; i++) {
            s.append(pick(random, "a", "b", " ", "\n", "&", "<", ">", "\"", "é", "😀", "tool", "</x>", "&amp;", "]"));
        }
        return s.toString();
    }

    /** Text for a named parameter: no markup, so no close delimiter can appear in it. */
    private static String plainText(Random random) {
        StringBuilder s = new StringBuilder();
        int length = 1 + random.nextInt(10);
        for (int i = 0; i < length; i++) {
            s.append(pick(random, "a", "b", " ", "\n", "\"", "é", "😀", "{", "}", ":", "x=1", "&amp;", "TrueX"));
        }
        return s.toString();
    }

    @SafeVarargs
    private static <T> T pick(Random random, T... options) {
        return options[random.nextInt(options.length)];
    }
}
