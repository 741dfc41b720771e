package dev.bellows.bench;

import dev.bellows.agent.AgentResult;
import dev.bellows.agent.DefaultAgent;
import dev.bellows.agent.Session;
import dev.bellows.agent.ToolMode;
import dev.bellows.http.SseEvent;
import dev.bellows.provider.ChatRequest;
import dev.bellows.provider.ChatStream;
import dev.bellows.provider.Provider;
import dev.bellows.provider.ProviderException;
import dev.bellows.provider.Role;
import dev.bellows.stream.StreamChunk;
import dev.bellows.tool.Description;
import dev.bellows.tool.ToolRegistry;
import dev.bellows.tool.ToolResult;
import dev.bellows.tool.TypedTool;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
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
 * The native tool-calling path from received SSE events to the agent, without the network:
 * the answers of {@link NativeAnswers} (a {@code write_file} call streamed in about 330
 * argument pieces after reasoning and text; then a {@code task_completion} call), in the
 * OpenAI-compatible and the Anthropic form.
 *
 * <ul>
 *   <li>{@link #decode}: the provider's stream decoder alone: every event of the first answer
 *       to the stream's chunks, each handed to a {@link Blackhole}. Score: ns per answer;
 *       {@code gc.alloc.rate.norm}: bytes per answer.</li>
 *   <li>{@link #agent}: a whole native-mode run of a {@link DefaultAgent} over a provider
 *       that decodes those events ({@code runBlocking} in a new {@link Session}): two model
 *       answers read by the native reader (events, tool-call deltas, the decoded calls),
 *       {@code write_file} run, the run ended by {@code task_completion}. Score: ns per run;
 *       bytes per run.</li>
 * </ul>
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
@State(Scope.Benchmark)
public class NativeAnswerBenchmark {

    @Description("A file to write")
    public record WriteArguments(@Description("where") String path, @Description("what") String content) { }

    @Param({"openai", "anthropic"})
    public String format;

    private List<SseEvent> writeFile;
    private List<SseEvent> completion;
    private Function<List<SseEvent>, ChatStream> decoder;
    private DefaultAgent agent;

    @Setup(Level.Trial)
    public void setUp() throws Exception {
        writeFile = NativeAnswers.writeFile(format);
        completion = NativeAnswers.completion(format);
        decoder = format.equals("openai") ? dev.bellows.openai.ChatStreamProbe::over
                : dev.bellows.anthropic.ChatStreamProbe::over;
        agent = DefaultAgent.builder()
                .provider(new Replay())
                .model("replay")
                .toolMode(ToolMode.NATIVE)
                .toolRegistry(new ToolRegistry().register(TypedTool.of("write_file", "Writes a file",
                        WriteArguments.class, (context, arguments) -> ToolResult.of(
                                "wrote " + arguments.content().length() + " chars to " + arguments.path()))))
                .build();
        AgentResult result = agent();
        if (!result.reason().successful() || !result.result().equals("written")) {
            throw new IllegalStateException("the run ended " + result.reason() + ": " + result.result());
        }
        int chunks = 0;
        try (ChatStream stream = decoder.apply(writeFile)) {
            while (stream.next() != null) {
                chunks++;
            }
        }
        System.out.printf("[%s] %d events, %d chunks in the first answer; %d events in the second%n",
                format, writeFile.size(), chunks, completion.size());
    }

    @Benchmark
    public void decode(Blackhole blackhole) throws ProviderException {
        try (ChatStream stream = decoder.apply(writeFile)) {
            for (StreamChunk chunk; (chunk = stream.next()) != null; ) {
                blackhole.consume(chunk);
            }
            blackhole.consume(stream.usage());
        }
    }

    @Benchmark
    public AgentResult agent() throws Exception {
        return agent.runBlocking("Write src/main/java/Main.java.", new Session());
    }

    /** Answers the first request of a run with the write_file call, the next (after its result) with task_completion. */
    private final class Replay implements Provider {
        @Override
        public String name() {
            return "replay";
        }

        @Override
        public ChatStream stream(ChatRequest request) {
            boolean afterTool = request.messages().getLast().role() == Role.TOOL;
            return decoder.apply(afterTool ? completion : writeFile);
        }
    }
}
