package dev.bellows.bench;

import dev.bellows.stream.StreamChunk;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.AuxCounters;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;

/**
 * The "Cost" rule of docs/stream-format.md: one tool call whose JSON {@code arguments} object
 * is 10 KiB, 1 MiB or 10 MiB ({@link Transcripts#bigToolCall(int)}), streamed in 4-char
 * chunks through the full pipeline, must cost the same per char whatever its size
 * (target: the largest within 1.5x of the smallest).
 *
 * <p>One invocation = a new processor, every chunk, {@code finish()} (which decodes the
 * whole call). The primary score is ns per invocation; the secondary scores
 * {@code stream:chars} and {@code stream:chunks} are the same time divided by the chars and
 * chunks processed, i.e. ns per char and ns per chunk, directly comparable across sizes.
 *
 * <p>{@code input}: {@code distinct} gives every chunk its own {@link StreamChunk} and
 * String (2.6M objects for 10 MiB, ~190 MB, read from memory on every pass while the 10 KiB
 * input sits in cache); {@code shared} makes chunks with the same text one instance, so the
 * input is cache-resident at every size and only the processor's own scaling is left. A
 * real stream's chunks arrive fresh in cache, so {@code shared} is the fairer check of the
 * target and {@code distinct} the pessimistic bound; the gap between the two at 10 MiB is
 * the cost of reading the pre-built input.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 2, jvmArgsAppend = {"-Xms4g", "-Xmx4g"})
public class LinearityBenchmark {

    /** The stream, pre-split once per trial (not measured). */
    @State(Scope.Benchmark)
    public static class Input {
        /** Chars of the {@code arguments} object: 10 KiB, 1 MiB, 10 MiB. */
        @Param({"10240", "1048576", "10485760"})
        public int argumentChars;

        @Param({"distinct", "shared"})
        public String input;

        StreamChunk[] chunks;
        long chars;

        @Setup(Level.Trial)
        public void setUp() {
            if (!input.equals("distinct") && !input.equals("shared")) {
                throw new IllegalArgumentException("input must be distinct or shared, not " + input);
            }
            String stream = Transcripts.bigToolCall(argumentChars);
            chunks = Transcripts.split(stream, 4, input.equals("shared"));
            Transcripts.Counts counts = Transcripts.count(chunks);
            if (counts.of("tool_call_end") != 1 || !counts.toolCallsTerminated()
                    || counts.complete().message().length() != 0) {
                throw new IllegalStateException("benchmark input does not parse as one closed tool call: " + counts);
            }
            chars = counts.chars();
            System.out.println("[per invocation, argumentChars=" + argumentChars + "] " + counts);
        }
    }

    /**
     * Chars and chunks processed in the iteration; JMH reports the iteration time divided by
     * each as the secondary scores {@code stream:chars} and {@code stream:chunks}.
     */
    @State(Scope.Thread)
    @AuxCounters(AuxCounters.Type.OPERATIONS)
    public static class Processed {
        public long chars;
        public long chunks;

        @Setup(Level.Iteration)
        public void reset() {
            chars = 0;
            chunks = 0;
        }
    }

    @Benchmark
    public Object stream(Input input, Processed processed, Blackhole bh) {
        Object complete = TranscriptBenchmark.process(input.chunks, bh);
        processed.chars += input.chars;
        processed.chunks += input.chunks.length;
        return complete;
    }
}
