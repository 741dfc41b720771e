package dev.bellows.bench;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import dev.bellows.event.StreamEvent;
import dev.bellows.stream.StreamChunk;
import dev.bellows.stream.StreamOptions;
import dev.bellows.stream.StreamProcessor;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The stream parser against the Vercel AI SDK's {@code extractReasoningMiddleware}, on the
 * same text and the same chunkings, in one command ({@code bellows-bench/vercel/compare.sh}).
 *
 * <p>Both sides get the mixed transcript ({@link Transcripts#mixed()}), written to a file for
 * the node side, cut into chunks of 1, 4 and 64 chars, fed lazily: each chunk's string is cut
 * from the text only when the parser is ready for it, as chunks arrive from a network. Bellows
 * runs its whole pipeline (thinking, tool calls decoded, early names, events to a listener
 * that counts them); the middleware only separates reasoning from text, so Bellows does more
 * work per chunk. Each side warms up for 2 s and then runs for {@code seconds}; the figure is
 * nanoseconds per chunk. The node side also times its stream machinery alone (no
 * middleware), so the report shows how much of its time is the middleware's own.
 *
 * <pre>
 * java -cp benchmarks.jar dev.bellows.bench.ParserComparison NODE SCRIPT [SECONDS]
 * </pre>
 */
public final class ParserComparison {

    private static final int[] CHUNK_SIZES = {1, 4, 64};

    private ParserComparison() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length < 2) {
            throw new IllegalArgumentException("usage: ParserComparison NODE SCRIPT [SECONDS]");
        }
        String node = args[0];
        String script = args[1];
        int seconds = args.length > 2 ? Integer.parseInt(args[2]) : 5;
        String text = Transcripts.mixed().text();
        Path transcript = Files.createTempFile("bellows-transcript", ".txt");
        try {
            Files.writeString(transcript, text, StandardCharsets.UTF_8);
            List<Double> bellows = new ArrayList<>();
            for (int size : CHUNK_SIZES) {
                bellows.add(bellowsNanosPerChunk(text, size, seconds));
            }
            JsonNode vercel = runNode(node, script, transcript, seconds);
            System.out.printf(Locale.ROOT, "%d chars of the mixed transcript; JDK %s, node %s%n%n",
                    text.length(), Runtime.version(), vercel.path("node").asString());
            System.out.println("| chunk chars | Bellows ns/chunk | AI SDK middleware ns/chunk "
                    + "| AI SDK stream alone ns/chunk | middleware / Bellows | (middleware - stream alone) / Bellows |");
            System.out.println("|---|---|---|---|---|---|");
            for (int i = 0; i < CHUNK_SIZES.length; i++) {
                JsonNode result = vercel.path("results").path(String.valueOf(CHUNK_SIZES[i]));
                double middleware = result.path("middleware").path("nsPerChunk").asDouble();
                double streamOnly = result.path("streamOnly").path("nsPerChunk").asDouble();
                System.out.printf(Locale.ROOT, "| %d | %.1f | %.1f | %.1f | %.1fx | %.1fx |%n", CHUNK_SIZES[i],
                        bellows.get(i), middleware, streamOnly, middleware / bellows.get(i),
                        (middleware - streamOnly) / bellows.get(i));
            }
        } finally {
            Files.deleteIfExists(transcript);
        }
    }

    private static double bellowsNanosPerChunk(String text, int size, int seconds) {
        int chunks = (text.length() + size - 1) / size;
        int[] events = new int[1];
        long warmEnd = System.nanoTime() + 2_000_000_000L;
        while (System.nanoTime() < warmEnd) {
            parseOnce(text, size, events);
        }
        long runs = 0;
        long start = System.nanoTime();
        long deadline = start + seconds * 1_000_000_000L;
        StreamEvent.Complete complete = null;
        while (System.nanoTime() < deadline) {
            complete = parseOnce(text, size, events);
            runs++;
        }
        long nanos = System.nanoTime() - start;
        if (complete.thinking().isEmpty() || complete.toolCalls().isEmpty() || events[0] == 0) {
            throw new IllegalStateException("Bellows found no thinking or tool call: nothing was parsed");
        }
        return (double) nanos / (runs * chunks);
    }

    /** One whole stream, every chunk cut from the text only when the processor takes it. */
    private static StreamEvent.Complete parseOnce(String text, int size, int[] events) {
        StreamProcessor processor = new StreamProcessor(StreamOptions.defaults(), event -> events[0]++);
        for (int start = 0; start < text.length(); start += size) {
            processor.accept(StreamChunk.message(text.substring(start, Math.min(text.length(), start + size))));
        }
        return processor.finish();
    }

    private static JsonNode runNode(String node, String script, Path transcript, int seconds)
            throws IOException, InterruptedException {
        StringBuilder sizes = new StringBuilder();
        for (int size : CHUNK_SIZES) {
            sizes.append(sizes.isEmpty() ? "" : ",").append(size);
        }
        Process process = new ProcessBuilder(node, script, transcript.toString(), sizes.toString(),
                String.valueOf(seconds)).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (process.waitFor() != 0) {
            throw new IllegalStateException("the node side failed (exit " + process.exitValue() + ")");
        }
        return JsonMapper.shared().readTree(output);
    }
}
