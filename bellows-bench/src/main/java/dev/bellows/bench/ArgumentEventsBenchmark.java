package dev.bellows.bench;

import tools.jackson.core.JacksonException;
import tools.jackson.core.json.JsonFactory;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import dev.bellows.stream.StreamChunk;
import dev.bellows.stream.StreamOptions;
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
 * Argument values as they complete (stream contract 1.2): the cost stays linear, and the option
 * costs nothing when it is off. One tool call whose {@code arguments} object is 1 MiB or 8 MiB
 * ({@link Transcripts#bigToolCall(int)}: a {@code path} and a long escaped {@code content}),
 * in 4-char chunks shared as in {@link LinearityBenchmark}'s {@code shared} input, through the
 * full pipeline with {@code argument-events} off and on. Scores as there: {@code stream:chars}
 * is ns per char, {@code stream:chunks} ns per chunk.
 *
 * <p>{@link #nativeCall}: the same arguments object as a provider's native call streams it
 * (OpenAI {@code tool_calls} argument deltas, Anthropic {@code input_json_delta}): one
 * {@code ToolCallDelta} with the name, then one per 4-char piece, read by the agent's native
 * reader with the option off and on ({@code nativeCall:chars}, {@code nativeCall:chunks}).
 *
 * <p>Beside it, what a user would otherwise write (and what the Vercel AI SDK does): parse the
 * call's text so far again at every chunk and look for the members that completed. It is
 * quadratic, so it runs on 10 KiB and 100 KiB only ({@code reparse}); its {@code reparse:chars}
 * is comparable with {@code stream:chars}.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 2, jvmArgsAppend = {"-Xms4g", "-Xmx4g"})
public class ArgumentEventsBenchmark {

    /** The stream, pre-split once per trial (not measured). */
    @State(Scope.Benchmark)
    public static class Input {
        /** Chars of the {@code arguments} object: 1 MiB, 8 MiB. */
        @Param({"1048576", "8388608"})
        public int argumentChars;

        @Param({"false", "true"})
        public boolean argumentEvents;

        StreamChunk[] chunks;
        StreamOptions options;
        long chars;

        @Setup(Level.Trial)
        public void setUp() {
            options = StreamOptions.builder().argumentEvents(argumentEvents).build();
            chunks = Transcripts.split(Transcripts.bigToolCall(argumentChars), 4, true);
            Transcripts.Counts counts = Transcripts.count(chunks, options);
            if (counts.of("tool_call_end") != 1 || !counts.toolCallsTerminated()
                    || counts.of("tool_call_argument") != (argumentEvents ? 2 : 0)) {
                throw new IllegalStateException("benchmark input does not parse as one call with two arguments: " + counts);
            }
            chars = counts.chars();
            System.out.println("[per invocation, argumentChars=" + argumentChars + ", argumentEvents=" + argumentEvents
                    + "] " + counts);
        }
    }

    /** The arguments object alone, as native tool-call deltas, pre-split once per trial. */
    @State(Scope.Benchmark)
    public static class NativeInput {
        @Param({"1048576", "8388608"})
        public int argumentChars;

        @Param({"false", "true"})
        public boolean argumentEvents;

        StreamChunk[] frames;
        dev.bellows.agent.NativeReaderProbe reader;
        long chars;

        @Setup(Level.Trial)
        public void setUp() {
            String call = Transcripts.bigToolCall(argumentChars);
            String arguments = call.substring(Transcripts.BIG_CALL_PREFIX.length(),
                    call.length() - Transcripts.BIG_CALL_SUFFIX.length());
            StreamChunk[] pieces = Transcripts.split(arguments, 4, true);
            frames = new StreamChunk[pieces.length + 1];
            frames[0] = new StreamChunk.ToolCallDelta(0, "call_0", "write_file", "");
            for (int i = 0; i < pieces.length; i++) {
                frames[i + 1] = new StreamChunk.ToolCallDelta(0, null, null, ((StreamChunk.Text) pieces[i]).text());
            }
            chars = arguments.length();
            reader = new dev.bellows.agent.NativeReaderProbe(new dev.bellows.tool.ToolRegistry());
            int[] found = new int[1];
            Object reading = reader.read(frames, argumentEvents, event -> {
                if (event instanceof dev.bellows.event.StreamEvent.ToolCallArgument) {
                    found[0]++;
                }
            });
            if (found[0] != (argumentEvents ? 2 : 0) || !reading.toString().contains("toolName=write_file")) {
                throw new IllegalStateException("native input: " + found[0] + " arguments, " + reading);
            }
            System.out.println("[per invocation, argumentChars=" + argumentChars + ", argumentEvents=" + argumentEvents
                    + "] " + frames.length + " deltas, " + chars + " chars");
        }
    }

    /** The smaller inputs of the quadratic alternative. */
    @State(Scope.Benchmark)
    public static class SmallInput {
        @Param({"10240", "102400"})
        public int argumentChars;

        StreamChunk[] chunks;
        long chars;

        @Setup(Level.Trial)
        public void setUp() {
            chunks = Transcripts.split(Transcripts.bigToolCall(argumentChars), 4, true);
            for (StreamChunk chunk : chunks) {
                chars += ((StreamChunk.Text) chunk).text().length();
            }
            int found = reparse(chunks, new Blackhole(
                    "Today's password is swordfish. I understand instantiating Blackholes directly is dangerous."));
            if (found != 2) {
                throw new IllegalStateException("the re-parse found " + found + " arguments, not 2");
            }
        }
    }

    /** Chars and chunks processed in the iteration (JMH divides the time by each). */
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

    /** The same counters for the alternative, under their own names. */
    @State(Scope.Thread)
    @AuxCounters(AuxCounters.Type.OPERATIONS)
    public static class Reparsed {
        public long reparseChars;

        @Setup(Level.Iteration)
        public void reset() {
            reparseChars = 0;
        }
    }

    @Benchmark
    public Object stream(Input input, Processed processed, Blackhole bh) {
        Object complete = TranscriptBenchmark.process(input.chunks, input.options, bh);
        processed.chars += input.chars;
        processed.chunks += input.chunks.length;
        return complete;
    }

    @Benchmark
    public Object nativeCall(NativeInput input, Processed processed, Blackhole bh) {
        Object reading = input.reader.read(input.frames, input.argumentEvents, bh::consume);
        processed.chars += input.chars;
        processed.chunks += input.frames.length;
        return reading;
    }

    @Benchmark
    public int reparse(SmallInput input, Reparsed processed, Blackhole bh) {
        int found = reparse(input.chunks, bh);
        processed.reparseChars += input.chars;
        return found;
    }

    private static final JsonFactory JSON = new JsonFactory();

    /**
     * The alternative: the text after {@code <tool>} so far, parsed again whole at every chunk;
     * each member of {@code arguments} whose value completed since the last chunk is reported.
     * Returns how many were.
     */
    static int reparse(StreamChunk[] chunks, Blackhole bh) {
        StringBuilder text = new StringBuilder();
        int reported = 0;
        for (StreamChunk chunk : chunks) {
            text.append(((StreamChunk.Text) chunk).text());
            int start = text.indexOf("{");
            if (start < 0) {
                continue;
            }
            int complete = completedArguments(text.substring(start));
            while (reported < complete) {
                bh.consume(reported++);
            }
        }
        return reported;
    }

    /** How many members of the call's {@code arguments} object are complete in this prefix of the call. */
    private static int completedArguments(String prefix) {
        int complete = 0;
        try (JsonParser parser = JSON.createParser(prefix)) {
            int depth = 0;
            boolean inArguments = false;
            JsonToken token;
            while ((token = parser.nextToken()) != null) {
                switch (token) {
                    case START_OBJECT, START_ARRAY -> {
                        depth++;
                        if (depth == 2 && "arguments".equals(parser.currentName())) {
                            inArguments = true;
                        }
                    }
                    case END_OBJECT, END_ARRAY -> {
                        if (inArguments && depth == 3) {
                            complete++;
                        }
                        if (depth == 2) {
                            inArguments = false;
                        }
                        depth--;
                    }
                    case PROPERTY_NAME -> { }
                    default -> {
                        parser.getString(); // a string is read lazily: reading it throws if it is cut off
                        if (inArguments && depth == 2) {
                            complete++; // a scalar member: complete once its token is
                        }
                    }
                }
            }
        } catch (JacksonException endOfThePrefix) {
            // the prefix ends inside a value: what came before it counts
        }
        return complete;
    }
}
