package dev.bellows.stream;

import static org.assertj.core.api.Assertions.assertThat;

import tools.jackson.databind.node.JsonNodeFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;

/**
 * Chunking invariance for every dialect: random texts made of the dialect's delimiters, their
 * prefixes, body fragments, whitespace and other text, cut at random code-point boundaries and
 * one code point a chunk, give the same events as in one chunk, with and without
 * {@code thinking-open} and {@code tool-ends-thinking}. Every run also checks the
 * well-formedness rules of {@link StreamTesting#run}.
 */
class DialectChunkingProperties {

    private static final Map<String, List<String>> FRAGMENTS = Map.ofEntries(
            Map.entry("hermes", List.of("<think>", "</think>", "<tool_call>", "</tool_call>", "<tool_", "</think",
                    "{\"name\": \"f\", \"arguments\": {\"a\": \"</tool_call>\"}}", "{\"name\": \"g\"}")),
            Map.entry("qwen3_coder", List.of("<think>", "</think>", "<tool_call>", "</tool_call>", "<function=f>",
                    "</function>", "<parameter=a>", "</parameter>", "<function=", "\n1\n", "<param", "</func")),
            Map.entry("llama3_json", List.of("<|python_tag|>", "<|python", "{\"name\": \"f\", \"parameters\": {}}",
                    "{\"name\": \"g\", \"parameters\": {\"q\": \"}\"}}", ";", "; ", "{", "}", "\"", "{ \"na", "\"name\"",
                    "me\": \"h\"}", "{\"name\": \"f\"}", "{\"parameters\": {}}", "{bad}", ":", "1",
                    "{\"name\": \"f\", \"arguments\": ", "{\"name\": \"h\", \"parameters\": {\"a\": 1 x", ",}")),
            Map.entry("mistral", List.of("[TOOL_CALLS]", "[TOOL_", "[THINK]", "[/THINK]", "[ARGS]", "[CALL_ID]",
                    "[", "]", ",", "add", "{\"a\": 1}", "{\"name\": \"f\", \"arguments\": {}}", "\"]\"", "not json", "x-1.y")),
            Map.entry("deepseek_v3", List.of("<think>", "</think>", "<｜tool▁calls▁begin｜>", "<｜tool▁calls▁end｜>",
                    "<｜tool▁call▁begin｜>", "<｜tool▁call▁end｜>", "<｜tool▁sep｜>", "function", "f\n```json\n",
                    "{\"a\": 1}", "\n```", "<｜tool▁", "foo<｜tool▁sep｜>{\"x\":1}")),
            Map.entry("kimi_k2", List.of("<think>", "</think>", "<|tool_calls_section_begin|>",
                    "<|tool_calls_section_end|>", "<|tool_call_begin|>", "<|tool_call_end|>",
                    "<|tool_call_argument_begin|>", "functions.f:0", "{\"a\": 1}", "<|tool_call", "<|", " noise ", "0 ")),
            Map.entry("glm45", List.of("<think>", "</think>", "<tool_call>", "</tool_call>", "f\n", "<arg_key>",
                    "</arg_key>", "<arg_value>", "</arg_value>", "<arg_")),
            Map.entry("minimax_m2", List.of("<think>", "</think>", "<minimax:tool_call>", "</minimax:tool_call>",
                    "<invoke name=\"f\">", "</invoke>", "<parameter name=\"a\">", "</parameter>", "<invoke", "<minimax")),
            Map.entry("harmony", List.of("<|start|>", "assistant", "<|channel|>", "analysis", "final", "commentary",
                    " to=functions.f", " <|constrain|>json", "<|message|>", "<|end|>", "<|call|>", "<|return|>",
                    "{\"a\": 1}", "<|", "to=functions.g ", " to=assistant", "to=", "<|channel|> analysis")),
            Map.entry("kimi_think", List.of("◁think▷", "◁/think▷", "◁think", "◁", "▷", "<|tool_call_begin|>",
                    "<|tool_calls_section_begin|>", "functions.f:0<|tool_call_argument_begin|>{}<|tool_call_end|>")));

    private static final String[] COMMON = {" ", "\n", "  ", "\t", "a", "bc", "é", "😀", "<", ">", "{", "\"", "<b>",
            "<tool>", "</tool>", "<thinking>", "</thinking>"};

    private Arbitrary<String> texts(String dialect) {
        Arbitrary<String> fragment = Arbitraries.frequencyOf(
                Tuple.of(6, Arbitraries.of(FRAGMENTS.get(dialect))),
                Tuple.of(4, Arbitraries.of(COMMON)),
                Tuple.of(2, Arbitraries.strings().withCharRange('a', 'z').ofMinLength(1).ofMaxLength(4)));
        return fragment.list().ofMaxSize(25).map(parts -> String.join("", parts));
    }

    @Provide
    Arbitrary<List<Integer>> cuts() {
        return Arbitraries.integers().between(0, 100_000).list().ofMaxSize(20);
    }

    @Provide Arbitrary<String> hermes() { return texts("hermes"); }
    @Provide Arbitrary<String> qwen3Coder() { return texts("qwen3_coder"); }
    @Provide Arbitrary<String> llama3Json() { return texts("llama3_json"); }
    @Provide Arbitrary<String> mistral() { return texts("mistral"); }
    @Provide Arbitrary<String> deepseekV3() { return texts("deepseek_v3"); }
    @Provide Arbitrary<String> kimiK2() { return texts("kimi_k2"); }
    @Provide Arbitrary<String> glm45() { return texts("glm45"); }
    @Provide Arbitrary<String> minimaxM2() { return texts("minimax_m2"); }
    @Provide Arbitrary<String> harmony() { return texts("harmony"); }
    @Provide Arbitrary<String> kimiThink() { return texts("kimi_think"); }

    @Property(tries = 200)
    void hermesIsChunkingInvariant(@ForAll("hermes") String text, @ForAll("cuts") List<Integer> cuts,
            @ForAll boolean open, @ForAll boolean toolEnds) {
        check("hermes", text, cuts, open, toolEnds);
    }

    @Property(tries = 200)
    void qwen3CoderIsChunkingInvariant(@ForAll("qwen3Coder") String text, @ForAll("cuts") List<Integer> cuts,
            @ForAll boolean open, @ForAll boolean toolEnds) {
        check("qwen3_coder", text, cuts, open, toolEnds);
    }

    @Property(tries = 200)
    void llama3JsonIsChunkingInvariant(@ForAll("llama3Json") String text, @ForAll("cuts") List<Integer> cuts) {
        check("llama3_json", text, cuts, false, false);
        // with a catalog, objects naming "f" are calls from their arguments key on, the others held until complete
        check(StreamOptions.builder().dialect(Dialect.named("llama3_json"))
                .toolSchemas(ToolSchemas.of(Map.of("f", JsonNodeFactory.instance.objectNode()))).build(),
                "llama3_json", text, cuts);
    }

    @Property(tries = 200)
    void mistralIsChunkingInvariant(@ForAll("mistral") String text, @ForAll("cuts") List<Integer> cuts,
            @ForAll boolean open, @ForAll boolean toolEnds) {
        check("mistral", text, cuts, open, toolEnds);
    }

    @Property(tries = 200)
    void deepseekV3IsChunkingInvariant(@ForAll("deepseekV3") String text, @ForAll("cuts") List<Integer> cuts,
            @ForAll boolean open, @ForAll boolean toolEnds) {
        check("deepseek_v3", text, cuts, open, toolEnds);
    }

    @Property(tries = 200)
    void kimiK2IsChunkingInvariant(@ForAll("kimiK2") String text, @ForAll("cuts") List<Integer> cuts,
            @ForAll boolean open, @ForAll boolean toolEnds) {
        check("kimi_k2", text, cuts, open, toolEnds);
    }

    @Property(tries = 200)
    void glm45IsChunkingInvariant(@ForAll("glm45") String text, @ForAll("cuts") List<Integer> cuts,
            @ForAll boolean open, @ForAll boolean toolEnds) {
        check("glm45", text, cuts, open, toolEnds);
    }

    @Property(tries = 200)
    void minimaxM2IsChunkingInvariant(@ForAll("minimaxM2") String text, @ForAll("cuts") List<Integer> cuts,
            @ForAll boolean open, @ForAll boolean toolEnds) {
        check("minimax_m2", text, cuts, open, toolEnds);
    }

    @Property(tries = 200)
    void harmonyIsChunkingInvariant(@ForAll("harmony") String text, @ForAll("cuts") List<Integer> cuts,
            @ForAll boolean open) {
        check("harmony", text, cuts, open, false);
    }

    @Property(tries = 200)
    void kimiThinkIsChunkingInvariant(@ForAll("kimiThink") String text, @ForAll("cuts") List<Integer> cuts,
            @ForAll boolean open, @ForAll boolean toolEnds) {
        check("kimi_think", text, cuts, open, toolEnds);
    }

    private static void check(String dialect, String text, List<Integer> cuts, boolean open, boolean toolEnds) {
        for (boolean bellowsToo : new boolean[] {false, true}) {
            check(StreamOptions.builder().dialect(Dialect.named(dialect)).thinkingOpen(open).toolEndsThinking(toolEnds)
                    .bellowsTagsToo(bellowsToo).build(), dialect, text, cuts);
        }
    }

    /** Chunking invariance with and without {@code argument-events}, which only adds its own events. */
    private static void check(StreamOptions options, String dialect, String text, List<Integer> cuts) {
        List<ChunkingInvarianceProperties.Segment> stream =
                List.of(new ChunkingInvarianceProperties.Segment(ChunkingInvarianceProperties.Kind.MESSAGE, text));
        List<StreamChunk> randomCut = ChunkingInvarianceProperties.cut(stream, cuts);
        List<StreamChunk> tiny = new ArrayList<>();
        text.codePoints().forEach(cp -> tiny.add(StreamChunk.message(Character.toString(cp))));
        for (boolean arguments : new boolean[] {false, true}) {
            StreamOptions chosen = options.withArgumentEvents(arguments);
            String expected = normalised(chosen, List.of(StreamChunk.message(text)));
            assertThat(normalised(chosen, randomCut)).as("%s cut as %s", dialect, randomCut).isEqualTo(expected);
            assertThat(normalised(chosen, tiny)).as("%s one code point a chunk", dialect).isEqualTo(expected);
        }
        StreamTesting.assertArgumentEventsOnlyAdd(options, randomCut);
    }

    private static String normalised(StreamOptions options, List<StreamChunk> chunks) {
        return StreamTesting.renderLines(StreamTesting.mergeAcrossChunks(StreamTesting.run(options, chunks)));
    }
}
