package dev.bellows.bench;

import dev.bellows.stream.StreamChunk;
import dev.bellows.stream.StreamOptions;
import dev.bellows.stream.StreamProcessor;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;

/**
 * The full stream pipeline (tag scanning, whitespace rules, events, early tool name, tool
 * call decoding, the {@code complete} aggregate) on a realistic mixed transcript of
 * {@link Transcripts#MIXED_CHARS} chars ({@link Transcripts#mixed()}).
 *
 * <p>One invocation processes the whole transcript: a new {@link StreamProcessor}, every
 * chunk accepted, {@code finish()}. The listener hands every event to a {@link Blackhole},
 * so building events is measured and nothing is eliminated as dead code. Splitting the
 * transcript into chunks happens in {@code @Setup} and is not measured.
 *
 * <ul>
 *   <li>{@link #perChar}: score = ns per char ({@code @OperationsPerInvocation} =
 *       {@link Transcripts#MIXED_CHARS}), for chunk sizes 1, 4, 16, 256. With {@code -prof gc},
 *       {@code gc.alloc.rate.norm} is bytes per char.</li>
 *   <li>{@link #perChunk4}: the same work with 4-char chunks, score = ns per chunk
 *       ({@code @OperationsPerInvocation} = 8192 chunks); {@code gc.alloc.rate.norm} is bytes
 *       per chunk. Target: under 100 ns.</li>
 * </ul>
 * Events per invocation are printed by the trial setup and by {@code Transcripts.main}.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 2, jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
public class TranscriptBenchmark {

    /** Chunks of 4 chars in the mixed transcript (it is a multiple of 4 long). */
    public static final int CHUNKS_OF_4 = Transcripts.MIXED_CHARS / 4;

    /** The transcript cut into chunks of {@link #chunkSize} chars. */
    @State(Scope.Benchmark)
    public static class Input {
        @Param({"1", "4", "16", "256"})
        public int chunkSize;

        StreamChunk[] chunks;

        @Setup(Level.Trial)
        public void setUp() {
            chunks = prepare(chunkSize);
        }
    }

    /** The transcript cut into 4-char chunks, for the per-chunk score. */
    @State(Scope.Benchmark)
    public static class Input4 {
        StreamChunk[] chunks;

        @Setup(Level.Trial)
        public void setUp() {
            chunks = prepare(4);
            if (chunks.length != CHUNKS_OF_4) {
                throw new IllegalStateException(chunks.length + " chunks, expected " + CHUNKS_OF_4);
            }
        }
    }

    static StreamChunk[] prepare(int chunkSize) {
        Transcripts.Transcript transcript = Transcripts.mixed();
        StreamChunk[] chunks = Transcripts.split(transcript.text(), chunkSize, false);
        Transcripts.Counts counts = Transcripts.count(chunks);
        Transcripts.check(transcript, counts);
        System.out.println("[per invocation, chunkSize=" + chunkSize + "] " + counts);
        return chunks;
    }

    @Benchmark
    @OperationsPerInvocation(Transcripts.MIXED_CHARS)
    public Object perChar(Input input, Blackhole bh) {
        return process(input.chunks, bh);
    }

    @Benchmark
    @OperationsPerInvocation(CHUNKS_OF_4)
    public Object perChunk4(Input4 input, Blackhole bh) {
        return process(input.chunks, bh);
    }

    static Object process(StreamChunk[] chunks, Blackhole bh) {
        return process(chunks, StreamOptions.defaults(), bh);
    }

    static Object process(StreamChunk[] chunks, StreamOptions options, Blackhole bh) {
        StreamProcessor processor = new StreamProcessor(options, bh::consume);
        for (StreamChunk chunk : chunks) {
            processor.accept(chunk);
        }
        return processor.finish(); // returned, so JMH consumes it too
    }
}
