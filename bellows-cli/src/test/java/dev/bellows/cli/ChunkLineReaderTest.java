package dev.bellows.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.bellows.stream.StreamChunk;
import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class ChunkLineReaderTest {

    private static ChunkLineReader reader(String input) {
        return new ChunkLineReader(new ByteArrayInputStream(input.getBytes(StandardCharsets.UTF_8)));
    }

    private static List<StreamChunk> readAll(ChunkLineReader reader) throws Exception {
        List<StreamChunk> chunks = new ArrayList<>();
        for (StreamChunk chunk; (chunk = reader.nextChunk()) != null; ) {
            chunks.add(chunk);
        }
        return chunks;
    }

    @Test
    void typeIsOptionalAndUnknownFieldsAreIgnored() throws Exception {
        assertThat(readAll(reader("{\"content\": \"a < b\"}\n"
                + "{\"type\": \"thinking\", \"content\": \"hmm\", \"id\": 7}\n"
                + "{\"type\": \"message\", \"content\": \"\"}\n")))
                .containsExactly(StreamChunk.message("a < b"), StreamChunk.thinking("hmm"), StreamChunk.message(""));
    }

    @Test
    void crlfLinesALastLineWithoutLfAndAByteOrderMarkAreFine() throws Exception {
        assertThat(readAll(reader("\uFEFF{\"content\": \"a\"}\r\n\r\n{\"content\": \"b\\r\\n\"}")))
                .containsExactly(StreamChunk.message("a"), StreamChunk.message("b\r\n"));
    }

    @Test
    void onlyAnLfEndsALine() throws Exception {
        // A CR between JSON tokens is whitespace; it does not start a new line.
        assertThat(readAll(reader("{\"content\":\r\"a\"}\n"))).containsExactly(StreamChunk.message("a"));
    }

    @Test
    void nonAsciiTextAcrossTheReadBufferSurvives() throws Exception {
        String text = "é€😀".repeat(30_000); // well over one 64 KiB read, characters cut at every boundary
        assertThat(readAll(reader("{\"content\": \"" + text + "\"}\n{\"content\": \"end\"}\n")))
                .containsExactly(StreamChunk.message(text), StreamChunk.message("end"));
    }

    @Test
    void aLongStringIsNotLimited() throws Exception {
        String text = "x".repeat(25_000_000); // over Jackson's default 20 M character limit
        assertThat(((StreamChunk.Text) reader("{\"content\": \"" + text + "\"}").nextChunk()).text()).hasSize(25_000_000);
    }

    @Test
    void aBadByteIsAnErrorOfItsOwnLineAfterTheGoodOnes() throws Exception {
        byte[] good = "{\"content\": \"a\"}\n\n".getBytes(StandardCharsets.UTF_8);
        byte[] input = new byte[good.length + 3];
        System.arraycopy(good, 0, input, 0, good.length);
        input[good.length] = '"';
        input[good.length + 1] = (byte) 0xC3; // a lead byte with no continuation
        input[good.length + 2] = '"';
        ChunkLineReader reader = new ChunkLineReader(new ByteArrayInputStream(input));
        assertThat(reader.nextChunk()).isEqualTo(StreamChunk.message("a"));
        assertThatThrownBy(reader::nextChunk)
                .isInstanceOfSatisfying(ChunkLineReader.BadLineException.class, e -> {
                    assertThat(e.line()).isEqualTo(3);
                    assertThat(e.getMessage()).isEqualTo("not valid UTF-8");
                });
    }

    @Test
    void aLineIsHandedOnAsSoonAsItsLfArrives() throws Exception {
        // A stream that would block (here: fail) if asked for more than the first line.
        byte[] first = "{\"content\": \"a\"}\n".getBytes(StandardCharsets.UTF_8);
        InputStream oneLineThenStuck = new InputStream() {
            private boolean served;

            @Override
            public int read() {
                throw new AssertionError("read byte by byte");
            }

            @Override
            public int read(byte[] b, int off, int len) {
                if (served) {
                    throw new AssertionError("read past the first line before it was handed on");
                }
                served = true;
                System.arraycopy(first, 0, b, off, first.length);
                return first.length;
            }
        };
        assertThat(new ChunkLineReader(oneLineThenStuck).nextChunk()).isEqualTo(StreamChunk.message("a"));
    }

    @Test
    void batchLinesAreWholeStreams() throws Exception {
        ChunkLineReader reader = reader("{\"chunks\": [{\"type\": \"thinking\", \"content\": \"t\"}, {\"content\": \"m\"}]}\n"
                + "  \n{\"chunks\": []}\n");
        assertThat(reader.nextStream()).containsExactly(StreamChunk.thinking("t"), StreamChunk.message("m"));
        assertThat(reader.nextStream()).isEmpty();
        assertThat(reader.nextStream()).isNull();
    }

    @Test
    void theExampleStreamIsValidInput() throws Exception {
        Path example = Path.of("..", "examples", "stream.jsonl");
        List<StreamChunk> chunks;
        try (InputStream in = Files.newInputStream(example)) {
            chunks = readAll(new ChunkLineReader(in));
        }
        assertThat(chunks).hasSize(10);
        assertThat(chunks.subList(0, 2)).allMatch(StreamChunk.Reasoning.class::isInstance);
        assertThat(chunks.subList(2, 10)).allMatch(StreamChunk.Text.class::isInstance);
    }
}
