package dev.bellows.bench;

import dev.bellows.stream.Dialect;
import dev.bellows.stream.StreamChunk;
import dev.bellows.stream.StreamOptions;
import dev.bellows.tool.ToolCall;
import java.util.concurrent.TimeUnit;
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
 * The "Cost" rule for every dialect: one tool call in the dialect's own format whose
 * arguments are {@code argumentChars} long (the arguments of {@link Transcripts#bigToolCall},
 * as a JSON object, or as the text of a {@code content} parameter for the XML-style dialects),
 * streamed in 4-char chunks through the full pipeline with that dialect. The score
 * {@code stream:chars} (ns per char) at 1 MiB should be within 1.5x of 10 KiB.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 2, jvmArgsAppend = {"-Xms2g", "-Xmx2g"})
public class DialectLinearityBenchmark {

    @State(Scope.Benchmark)
    public static class Input {
        @Param({"bellows", "hermes", "qwen3_coder", "llama3_json", "mistral", "deepseek_v3", "kimi_k2", "glm45",
                "minimax_m2", "harmony", "kimi_think"})
        public String dialect;

        @Param({"10240", "1048576"})
        public int argumentChars;

        StreamChunk[] chunks;
        StreamOptions options;
        long chars;

        @Setup(Level.Trial)
        public void setUp() {
            options = StreamOptions.builder().dialect(Dialect.named(dialect)).build();
            chunks = Transcripts.split(bigCall(dialect, argumentChars), 4, true);
            Transcripts.Counts counts = Transcripts.count(chunks, options);
            if (counts.of("tool_call_end") != 1 || counts.of("tool_call_name") != 1 || !counts.toolCallsTerminated()
                    || !(counts.complete().toolCalls().getFirst() instanceof ToolCall call)
                    || !call.toolName().equals("write_file")) {
                throw new IllegalStateException(dialect + " input does not parse as one closed call: " + counts
                        + " " + counts.complete().toolCalls());
            }
            chars = counts.chars();
            System.out.println("[per invocation, " + dialect + ", argumentChars=" + argumentChars + "] " + counts);
        }
    }

    /** One {@code write_file} call in the dialect's format, after a short thinking block or message. */
    static String bigCall(String dialect, int argumentChars) {
        String big = Transcripts.bigToolCall(argumentChars);
        String args = big.substring(Transcripts.BIG_CALL_PREFIX.length(), big.length() - Transcripts.BIG_CALL_SUFFIX.length());
        return switch (dialect) {
            case "bellows" -> "Writing it. " + big;
            case "hermes" -> "<think>Write it.</think>\n<tool_call>\n{\"name\": \"write_file\", \"arguments\": " + args
                    + "}\n</tool_call>";
            case "qwen3_coder" -> "Writing it.\n<tool_call>\n<function=write_file>\n<parameter=path>\ndata/Big.java\n"
                    + "</parameter>\n<parameter=content>\n" + args + "\n</parameter>\n</function>\n</tool_call>";
            case "llama3_json" -> "<|python_tag|>{\"name\": \"write_file\", \"parameters\": " + args + "}";
            case "mistral" -> "[THINK]Write it.[/THINK][TOOL_CALLS]write_file[ARGS]" + args;
            case "deepseek_v3" -> "<think>Write it.</think><｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>"
                    + "write_file\n```json\n" + args + "\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>";
            case "kimi_k2" -> "Writing it.<|tool_calls_section_begin|><|tool_call_begin|>functions.write_file:0"
                    + "<|tool_call_argument_begin|>" + args + "<|tool_call_end|><|tool_calls_section_end|>";
            case "glm45" -> "<think>Write it.</think><tool_call>write_file\n<arg_key>path</arg_key>\n"
                    + "<arg_value>data/Big.java</arg_value>\n<arg_key>content</arg_key>\n<arg_value>" + args
                    + "</arg_value>\n</tool_call>";
            case "minimax_m2" -> "<think>Write it.</think><minimax:tool_call>\n<invoke name=\"write_file\">\n"
                    + "<parameter name=\"path\">data/Big.java</parameter>\n<parameter name=\"content\">" + args
                    + "</parameter>\n</invoke>\n</minimax:tool_call>";
            case "harmony" -> "<|channel|>analysis<|message|>Write it.<|end|><|start|>assistant to=functions.write_file"
                    + "<|channel|>commentary <|constrain|>json<|message|>" + args + "<|call|>";
            case "kimi_think" -> "◁think▷Write it.◁/think▷<|tool_calls_section_begin|><|tool_call_begin|>"
                    + "functions.write_file:0<|tool_call_argument_begin|>" + args + "<|tool_call_end|>"
                    + "<|tool_calls_section_end|>";
            default -> throw new IllegalArgumentException("no benchmark input for dialect " + dialect);
        };
    }

    @Benchmark
    public Object stream(Input input, LinearityBenchmark.Processed processed, Blackhole bh) {
        Object complete = TranscriptBenchmark.process(input.chunks, input.options, bh);
        processed.chars += input.chars;
        processed.chunks += input.chunks.length;
        return complete;
    }

    /** Prints the per-invocation counts of every configuration (no timing). */
    public static void main(String[] args) {
        for (String dialect : Dialect.names()) {
            Input input = new Input();
            input.dialect = dialect;
            input.argumentChars = 10240;
            input.setUp();
        }
    }
}
