package dev.bellows.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/** Chunk-boundary invariance: however the bytes are split, the events are the same. */
class SseParserSplitProperties {

    @Property(tries = 500)
    void anySplitGivesTheSameEventsAsOneFeed(@ForAll("streams") byte[] stream, @ForAll("cuts") List<Integer> cutSeeds) {
        List<SseEvent> whole = SseParserTest.parse(stream);

        Set<Integer> cuts = new TreeSet<>();
        for (int seed : cutSeeds) {
            cuts.add(stream.length == 0 ? 0 : Math.floorMod(seed, stream.length + 1));
        }
        List<SseEvent> split = new ArrayList<>();
        SseParser parser = new SseParser(split::add);
        int from = 0;
        for (int cut : cuts) {
            parser.feed(stream, from, cut - from);
            from = cut;
        }
        parser.feed(stream, from, stream.length - from);
        parser.finish();

        assertThat(split).isEqualTo(whole);
    }

    @Property(tries = 1000)
    void parsingOnBytesAgreesWithDecodingEachLine(@ForAll("streams") byte[] stream,
                                                  @ForAll("cuts") List<Integer> cutSeeds) {
        // The reference decodes every line to text and splits it there (the parser before it
        // worked on bytes); the parser under test gets the bytes cut anywhere, also inside
        // UTF-8 sequences and between CR and LF.
        List<SseEvent> expected = new ArrayList<>();
        LineSseParser reference = new LineSseParser(expected::add);
        reference.feed(stream, 0, stream.length);
        reference.finish();

        List<SseEvent> actual = new ArrayList<>();
        SseParser parser = new SseParser(actual::add);
        int from = 0;
        for (int cut : new TreeSet<>(cutSeeds.stream()
                .map(seed -> Math.floorMod(seed, stream.length + 1)).toList())) {
            parser.feed(stream, from, cut - from);
            from = cut;
        }
        parser.feed(stream, from, stream.length - from);
        parser.finish();

        assertThat(actual).isEqualTo(expected);
        assertThat(parser.lastEventId()).isEqualTo(reference.lastEventId());
        assertThat(parser.retryMillis()).isEqualTo(reference.retryMillis());
    }

    @Property(tries = 200)
    void everySplitPointOfOneStreamGivesTheSameEvents(@ForAll("streams") byte[] stream) {
        List<SseEvent> whole = SseParserTest.parse(stream);
        for (int cut = 0; cut <= stream.length; cut++) {
            List<SseEvent> split = new ArrayList<>();
            SseParser parser = new SseParser(split::add);
            parser.feed(stream, 0, cut);
            parser.feed(stream, cut, stream.length - cut);
            parser.finish();
            assertThat(split).as("cut at %d", cut).isEqualTo(whole);
        }
    }

    @Property(tries = 200)
    void byteByByteGivesTheSameEventsAsOneFeed(@ForAll("streams") byte[] stream) {
        List<SseEvent> split = new ArrayList<>();
        SseParser parser = new SseParser(split::add);
        for (int i = 0; i < stream.length; i++) {
            parser.feed(stream, i, 1);
        }
        parser.finish();
        assertThat(split).isEqualTo(SseParserTest.parse(stream));
    }

    @Property(tries = 300)
    void dataLinesComeBackJoinedWithNewlines(@ForAll("dataLines") List<String> lines, @ForAll("lineEnds") String end) {
        StringBuilder stream = new StringBuilder();
        for (String line : lines) {
            stream.append("data: ").append(line).append(end);
        }
        stream.append(end);
        assertThat(SseParserTest.parse(stream.toString()))
                .containsExactly(new SseEvent("message", String.join("\n", lines), null));
    }

    @Provide
    Arbitrary<List<Integer>> cuts() {
        return Arbitraries.integers().between(0, Integer.MAX_VALUE).list().ofMaxSize(12);
    }

    @Provide
    Arbitrary<String> lineEnds() {
        return Arbitraries.of("\n", "\r", "\r\n");
    }

    @Provide
    Arbitrary<List<String>> dataLines() {
        return text().list().ofMinSize(1).ofMaxSize(5);
    }

    /** Text without line ends: ASCII, accents, CJK, emoji (4-byte UTF-8), colons and spaces. */
    private static Arbitrary<String> text() {
        return Arbitraries.oneOf(
                        Arbitraries.strings().withChars("ab :{}\"x"),
                        Arbitraries.of("é", "€", "中", "😀", "\u0000", " ", ":", "7", "42", "\uFEFF"))
                .list().ofMaxSize(8).map(parts -> String.join("", parts));
    }

    @Provide
    Arbitrary<byte[]> streams() {
        Arbitrary<String> field = Arbitraries.of("data", "data", "data", "event", "id", "retry", ":", "", "unknown",
                "dat", "datas", "Data", "ide", "retry", "event");
        Arbitrary<String> separator = Arbitraries.of(": ", ":", "", ":  ");
        Arbitrary<String> end = lineEnds();
        Arbitrary<byte[]> line = Combinators.combine(field, separator, text(), end)
                .as((f, s, t, e) -> (f + s + t + e).getBytes(StandardCharsets.UTF_8));
        Arbitrary<byte[]> garbage = Arbitraries.of(
                new byte[] {(byte) 0xFF}, new byte[] {(byte) 0xE2, (byte) 0x82}, new byte[] {(byte) 0xF0, (byte) 0x9F},
                new byte[] {(byte) 0xC3}, new byte[] {(byte) 0xE2, (byte) 0x82, ':'}, new byte[] {(byte) 0xED, (byte) 0xA0, (byte) 0x80},
                new byte[] {(byte) 0xC0, (byte) 0xAF}, new byte[] {(byte) 0xF4, (byte) 0x90, (byte) 0x80, (byte) 0x80});
        Arbitrary<byte[]> piece = Arbitraries.frequencyOf(
                net.jqwik.api.Tuple.of(10, line), net.jqwik.api.Tuple.of(1, garbage),
                net.jqwik.api.Tuple.of(3, end.map(e -> e.getBytes(StandardCharsets.UTF_8))));
        return Combinators.combine(Arbitraries.of(true, false), piece.list().ofMaxSize(20)).as((bom, pieces) -> {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            if (bom) {
                out.writeBytes(new byte[] {(byte) 0xEF, (byte) 0xBB, (byte) 0xBF});
            }
            pieces.forEach(out::writeBytes);
            return out.toByteArray();
        });
    }
}
