package dev.bellows.stream;

import static dev.bellows.stream.StreamTesting.complete;
import static dev.bellows.stream.StreamTesting.mergeAcrossChunks;
import static dev.bellows.stream.StreamTesting.renderLines;
import static org.assertj.core.api.Assertions.assertThat;

import dev.bellows.event.StreamEvent;
import dev.bellows.event.StreamEvent.Complete;
import dev.bellows.event.ThinkingBlock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;

/**
 * "The output must not depend on where chunks were cut, except for the chunk index on each
 * event." Random texts made of tag-like fragments are cut at random code-point boundaries
 * (never inside a surrogate pair: providers deliver whole code points), including one code
 * point a chunk, and must give the same events, once all deltas of each block are merged and
 * chunk indices dropped, as the same text in one chunk.
 *
 * <p>Every run also checks the rules that hold for any stream ({@link StreamTesting#run}):
 * well-formed blocks, no empty deltas, at most one {@code tool_call_name} per tool block and
 * inside it, the deltas of each block concatenated equal its {@code *_end} content,
 * {@code complete.message} equals all message deltas concatenated, chunk indices match the chunk
 * during which each event was emitted, and the listener API agrees with {@code parse}.
 */
class ChunkingInvarianceProperties {

    /** The two chunk types that carry text: model text and provider reasoning. */
    enum Kind {
        MESSAGE, THINKING;

        StreamChunk chunk(String text) {
            return this == MESSAGE ? StreamChunk.message(text) : StreamChunk.thinking(text);
        }

        String wireName() {
            return this == MESSAGE ? "message" : "thinking";
        }
    }

    /** A run of text of one chunk type; segment boundaries are always chunk boundaries. */
    record Segment(Kind type, String text) {

        @Override
        public String toString() {
            return type.wireName() + ":" + StreamTesting.quote(text);
        }
    }

    private static final String[] TAG_FRAGMENTS = {
            "<thinking>", "</thinking>", "<think a=\"1\">", "</think>", "<THINK>", "</Think>", "<thinking/>",
            "<tool>", "</tool>", "<tool_call>", "</tool_call>", "<tool />", "<Tool>",
            "<", "</", ">", "/>", "\"", "'", "=", "\\", "{", "}",
            "{\"tool_name\": \"x\", \"arguments\": {\"a\": \"<b>\"}}", "{\"name\": \"y\"}", "\"name\": ",
            "<tool_name>t</tool_name>", "<tool_name>", "</tool_name>", "<arguments>", "</arguments>",
            "\"arguments\": {", "{\"name\": \"w\", \"arguments\": {\"p\": \"a\", \"n\": 12, \"o\": {\"k\": [true]}}}",
            "<arguments><path>a &amp; b</path><c><![CDATA[<x>]]></c></arguments>", "<path>", "</path>", "12", "null",
            "<![CDATA[", "]]>", "```json\n", "\n```",
            "thinking", "think", "tool", "<b>", "a < b",
    };

    private static final String[] WHITESPACE = {" ", "  ", "\n", "\t", "\r\n", " \n "};

    private static final String[] UNICODE = {"é", "😀", "日本", "\u00a0", "\u2003", "\u000b"};

    /** Fragments whose every '<' is followed, inside the fragment, by a character no tag allows there. */
    private static final String[] PLAIN_FRAGMENTS = {
            "<b>", "</b>", "<toolbox>", "<thinker>", "<think-tank>", "<thinking2>", "</thinking>", "</tool>",
            "</think >", "a < b", "x<10", "</div>", "<>", "< tool>", "<<b>", "<!-- c -->", "<3", "<=",
            ">", "/>", "\"", "'", "=", "{\"name\": \"x\"}", "]]>", "```",
    };

    // ------------------------------------------------------------------ generators

    private static Arbitrary<String> letters() {
        return Arbitraries.strings().withCharRange('a', 'z').ofMinLength(1).ofMaxLength(4);
    }

    @Provide
    Arbitrary<String> texts() {
        Arbitrary<String> fragment = Arbitraries.frequencyOf(
                Tuple.of(6, Arbitraries.of(TAG_FRAGMENTS)),
                Tuple.of(3, Arbitraries.of(WHITESPACE)),
                Tuple.of(3, letters()),
                Tuple.of(1, Arbitraries.of(UNICODE)));
        return fragment.list().ofMaxSize(30).map(parts -> String.join("", parts));
    }

    @Provide
    Arbitrary<String> plainTexts() {
        Arbitrary<String> fragment = Arbitraries.frequencyOf(
                Tuple.of(4, Arbitraries.of(PLAIN_FRAGMENTS)),
                Tuple.of(3, Arbitraries.of(WHITESPACE)),
                Tuple.of(3, letters()),
                Tuple.of(1, Arbitraries.of(UNICODE)));
        return fragment.list().ofMaxSize(30).map(parts -> String.join("", parts));
    }

    /** Message segments, with thinking-typed segments sometimes interleaved. */
    @Provide
    Arbitrary<List<Segment>> streams() {
        Arbitrary<Kind> type = Arbitraries.frequency(
                Tuple.of(3, Kind.MESSAGE),
                Tuple.of(1, Kind.THINKING));
        return Combinators.combine(type, texts()).as(Segment::new).list().ofMinSize(1).ofMaxSize(5);
    }

    /** Seeds for cut positions; each is taken modulo the number of code points + 1. */
    @Provide
    Arbitrary<List<Integer>> cuts() {
        return Arbitraries.integers().between(0, 100_000).list().ofMaxSize(25);
    }

    // ------------------------------------------------------------------ properties

    @Property(tries = 500)
    void cuttingMessageTextAnywhereGivesTheSameEvents(@ForAll("texts") String text,
            @ForAll("cuts") List<Integer> cuts, @ForAll boolean thinkingOpen, @ForAll boolean toolEndsThinking) {
        StreamOptions options = StreamOptions.builder().thinkingOpen(thinkingOpen).toolEndsThinking(toolEndsThinking)
                .build();
        List<Segment> stream = List.of(new Segment(Kind.MESSAGE, text));
        assertChunkingInvariant(options, stream, cuts);
    }

    @Property(tries = 400)
    void cuttingStreamsWithProviderThinkingAnywhereGivesTheSameEvents(@ForAll("streams") List<Segment> stream,
            @ForAll("cuts") List<Integer> cuts) {
        assertChunkingInvariant(StreamOptions.defaults(), stream, cuts);
    }

    @Property(tries = 300)
    void emptyChunksOfEitherTypeChangeNothing(@ForAll("streams") List<Segment> stream,
            @ForAll("cuts") List<Integer> cuts, @ForAll("cuts") List<Integer> emptyAt) {
        StreamOptions options = StreamOptions.defaults();
        String expected = normalised(options, wholeSegments(stream));
        List<StreamChunk> chunks = new ArrayList<>(cut(stream, cuts));
        for (int i = 0; i < emptyAt.size(); i++) {
            int at = Math.floorMod(emptyAt.get(i), chunks.size() + 1);
            chunks.add(at, i % 2 == 0 ? StreamChunk.message("") : StreamChunk.thinking(""));
        }
        assertThat(normalised(options, chunks)).as("chunks: %s", describe(chunks)).isEqualTo(expected);
    }

    @Property(tries = 500)
    void textWithoutTagsPassesThroughWithOnlyItsOuterWhitespaceDropped(@ForAll("plainTexts") String text,
            @ForAll("cuts") List<Integer> cuts) {
        List<Segment> stream = List.of(new Segment(Kind.MESSAGE, text));
        for (List<StreamChunk> chunks : List.of(wholeSegments(stream), cut(stream, cuts), onePerCodePoint(stream))) {
            List<StreamEvent> events = StreamTesting.run(StreamOptions.defaults(), chunks);
            Complete complete = complete(events);
            String expected = stripContractWhitespace(text);
            assertThat(complete.message()).as("chunks: %s", describe(chunks)).isEqualTo(expected);
            assertThat(complete.thinking()).isEmpty();
            assertThat(complete.toolCalls()).isEmpty();
            // At most one message block: message_start, deltas, message_end; then complete.
            if (expected.isEmpty()) {
                assertThat(events).hasSize(1);
            } else {
                assertThat(events.getFirst()).isInstanceOf(StreamEvent.MessageStart.class);
                assertThat(events.subList(1, events.size() - 2))
                        .allMatch(e -> e instanceof StreamEvent.MessageContent);
                assertThat(events.get(events.size() - 2)).isInstanceOf(StreamEvent.MessageEnd.class);
            }
        }
    }

    @Property(tries = 300)
    void providerThinkingIsOneBlockOfTheTrimmedText(@ForAll("texts") String text, @ForAll("cuts") List<Integer> cuts) {
        String expected = stripContractWhitespace(text);
        if (expected.isEmpty()) {
            return; // a whitespace-only thinking chunk: whether it opens a block is not specified
        }
        List<Segment> stream = List.of(new Segment(Kind.THINKING, text));
        for (List<StreamChunk> chunks : List.of(cut(stream, cuts), onePerCodePoint(stream))) {
            Complete complete = complete(StreamTesting.run(StreamOptions.defaults(), chunks));
            assertThat(complete.thinking()).as("chunks: %s", describe(chunks))
                    .containsExactly(new ThinkingBlock("thinking", expected, Map.of()));
            assertThat(complete.message()).isEmpty();
            assertThat(complete.toolCalls()).isEmpty();
        }
    }

    // ------------------------------------------------------------------ helpers

    /**
     * The same events whatever the cuts, with and without {@code argument-events}; and the option
     * only adds its own events (the others, chunk indices included, are the same with it).
     */
    private static void assertChunkingInvariant(StreamOptions options, List<Segment> stream, List<Integer> cuts) {
        List<StreamChunk> randomCut = cut(stream, cuts);
        List<StreamChunk> tiny = onePerCodePoint(stream);
        for (boolean arguments : new boolean[] {false, true}) {
            StreamOptions chosen = options.withArgumentEvents(arguments);
            String expected = normalised(chosen, wholeSegments(stream));
            assertThat(normalised(chosen, randomCut)).as("chunks: %s", describe(randomCut)).isEqualTo(expected);
            assertThat(normalised(chosen, tiny)).as("one code point a chunk: %s", stream).isEqualTo(expected);
        }
        StreamTesting.assertArgumentEventsOnlyAdd(options, randomCut);
        StreamTesting.assertArgumentEventsOnlyAdd(options, tiny);
    }

    private static String normalised(StreamOptions options, List<StreamChunk> chunks) {
        return renderLines(mergeAcrossChunks(StreamTesting.run(options, chunks)));
    }

    private static List<StreamChunk> wholeSegments(List<Segment> stream) {
        return stream.stream().map(s -> s.type().chunk(s.text())).toList();
    }

    private static List<StreamChunk> onePerCodePoint(List<Segment> stream) {
        int total = stream.stream().mapToInt(s -> s.text().codePointCount(0, s.text().length())).sum();
        return cut(stream, IntStream.rangeClosed(0, total).boxed().toList());
    }

    /**
     * Cuts each segment at the given positions (code-point offsets into the whole stream, taken
     * modulo its length + 1); segment boundaries stay chunk boundaries.
     */
    static List<StreamChunk> cut(List<Segment> stream, List<Integer> seeds) {
        int total = stream.stream().mapToInt(s -> s.text().codePointCount(0, s.text().length())).sum();
        TreeSet<Integer> positions = new TreeSet<>();
        for (int seed : seeds) {
            positions.add(Math.floorMod(seed, total + 1));
        }
        List<StreamChunk> out = new ArrayList<>();
        int offset = 0;
        for (Segment segment : stream) {
            int[] codePoints = segment.text().codePoints().toArray();
            int start = 0;
            var inside = codePoints.length < 2 ? new TreeSet<Integer>()
                    : positions.subSet(offset + 1, offset + codePoints.length);
            for (int position : inside) {
                int local = position - offset;
                out.add(segment.type().chunk(new String(codePoints, start, local - start)));
                start = local;
            }
            out.add(segment.type().chunk(new String(codePoints, start, codePoints.length - start)));
            offset += codePoints.length;
        }
        return out;
    }

    /** Strips the contract's whitespace (space, tab, CR, LF) only; other Unicode spaces stay. */
    static String stripContractWhitespace(String s) {
        int begin = 0;
        int end = s.length();
        while (begin < end && " \t\r\n".indexOf(s.charAt(begin)) >= 0) {
            begin++;
        }
        while (end > begin && " \t\r\n".indexOf(s.charAt(end - 1)) >= 0) {
            end--;
        }
        return s.substring(begin, end);
    }

    private static String describe(List<StreamChunk> chunks) {
        return chunks.stream()
                .map(c -> c instanceof StreamChunk.Reasoning r ? "think:" + StreamTesting.quote(r.text())
                        : StreamTesting.quote(((StreamChunk.Text) c).text()))
                .collect(Collectors.joining(" | ", "[", "]"));
    }
}
