package dev.bellows.mcp;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A 50 MB MCP result costs bounded memory: it is cut as it arrives (each text to 2,000,000
 * characters) and then to the result limit the model reads, whose note says how much of what
 * the server sent was left out. The child JVM has a 64 MiB heap:
 * reading the line whole (100 MB of characters) ran out of memory there.
 */
class BoundedResultTest {

    /** A guard against a hung child, not a measure of speed. */
    private static final long GIVE_UP_SECONDS = 180;

    @Test
    void a_50_mb_result_is_read_in_a_64_mib_heap_and_reaches_the_model_cut_with_a_note(@TempDir Path dir)
            throws Exception {
        Path out = dir.resolve("out.txt");
        Path err = dir.resolve("err.txt");
        Process child = new ProcessBuilder(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx64m",
                "-cp", System.getProperty("java.class.path"), BigResultProbe.class.getName()))
                .redirectOutput(out.toFile()).redirectError(err.toFile()).start();
        boolean ended = child.waitFor(GIVE_UP_SECONDS, TimeUnit.SECONDS);
        if (!ended) {
            child.descendants().forEach(ProcessHandle::destroyForcibly);
            child.destroyForcibly().waitFor();
        }
        String output = Files.readString(out, StandardCharsets.UTF_8);
        String errors = Files.readString(err, StandardCharsets.UTF_8);
        assertThat(ended).as(output + errors).isTrue();
        assertThat(child.exitValue()).as(output + errors).isZero();
        // The note counts what the server sent, not the 2,000,000 characters kept as it arrived:
        // 67 pieces of 16,384 lines of 47 characters ("...xyz" and a newline), then "end of it".
        long sent = 67L * 16_384 * 47 + "end of it".length();
        assertThat(output).contains("starts log line 0123456789 abcdefghijklmnopqrst")
                .contains("note [this result was cut: ").contains(String.format(" of its %,d characters", sent))
                .contains("to keep it within 25,000 tokens").doesNotContain("as they arrived");
        long length = Long.parseLong(output.lines().filter(l -> l.startsWith("length ")).findFirst().orElseThrow()
                .substring(7));
        assertThat(length).as("about 25,000 tokens of text and the note").isBetween(50_000L, 150_000L);
    }
}
