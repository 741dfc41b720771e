package dev.bellows.bench.anthropic;

import dev.bellows.agent.AgentResult;
import dev.bellows.agent.DefaultAgent;
import dev.bellows.agent.Session;
import dev.bellows.agent.ToolMode;
import dev.bellows.anthropic.AnthropicProvider;
import dev.bellows.anthropic.ReferenceRequestBody;
import dev.bellows.anthropic.RequestBodyProbe;
import dev.bellows.provider.ChatRequest;
import dev.bellows.provider.ChatStream;
import dev.bellows.provider.Provider;
import dev.bellows.provider.ProviderException;
import dev.bellows.tool.Description;
import dev.bellows.tool.ToolRegistry;
import dev.bellows.tool.ToolResult;
import dev.bellows.tool.TypedTool;
import java.lang.management.ManagementFactory;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * What the Anthropic provider's request path costs, in one process:
 *
 * <ol>
 *   <li><b>body</b>: the request bodies a Bellows agent sends (captured from a run against
 *       {@link AnthropicMock}), written the old way ({@link ReferenceRequestBody}: a tree, a
 *       {@code String}, its UTF-8 bytes, a publisher over them, as the provider and the HTTP
 *       client did) and the new way (the provider's writer, cached parts, a publisher over the
 *       parts), interleaved round by round: bytes allocated and nanoseconds per body. The two
 *       are checked to be the same bytes first.</li>
 *   <li><b>agent</b>: a {@link DefaultAgent} over {@link AnthropicProvider} against the mock,
 *       in tag mode, native mode, and native mode with prompt caching, each task one tool call
 *       and a final answer (two model requests), every answer checked: bytes allocated per
 *       model request by every thread of the process except the mock's own serving threads,
 *       time per request, request bytes, new connections.</li>
 * </ol>
 * The agent part uses only the public API, so it also runs against an older build of the
 * provider put first on the class path (see BENCHMARKS.md, "Anthropic request path").
 *
 * <pre>
 * java -cp bellows-bench/target/benchmarks.jar dev.bellows.bench.anthropic.AnthropicRequestPath \
 *     [--part all|body|agent] [--rounds 5] [--warmup 3] [--bodies 20000] [--tasks 200]
 * </pre>
 */
public final class AnthropicRequestPath {

    static final String TASK = "What is 2 + 3? Use the add tool.";

    private static final com.sun.management.ThreadMXBean THREADS =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

    /** Keeps the measured results alive, so that nothing is optimised away. */
    private static long sink;

    private AnthropicRequestPath() {
    }

    @Description("Two integers to add")
    record AddArguments(@Description("the first") int a, @Description("the second") int b) { }

    public static void main(String[] args) throws Exception {
        Map<String, String> options = new LinkedHashMap<>(Map.of("--part", "all", "--rounds", "5", "--warmup", "3",
                "--bodies", "20000", "--tasks", "200"));
        for (int i = 0; i < args.length; i += 2) {
            if (!options.containsKey(args[i]) || i + 1 >= args.length) {
                throw new IllegalArgumentException("usage: [--part all|body|agent] [--rounds N] [--warmup N]"
                        + " [--bodies N] [--tasks N]; got " + String.join(" ", args));
            }
            options.put(args[i], args[i + 1]);
        }
        String part = options.get("--part");
        int rounds = Integer.parseInt(options.get("--rounds"));
        int warmup = Integer.parseInt(options.get("--warmup"));
        System.out.printf(Locale.ROOT, "JDK %s, %d processors%n%n", Runtime.version(),
                Runtime.getRuntime().availableProcessors());
        try (AnthropicMock mock = new AnthropicMock()) {
            if (part.equals("all") || part.equals("body")) {
                bodies(mock, rounds, warmup, Integer.parseInt(options.get("--bodies")));
            }
            if (part.equals("all") || part.equals("agent")) {
                agents(mock, rounds, warmup, Integer.parseInt(options.get("--tasks")));
            }
        }
        System.out.println("(sink " + (sink & 1) + ")");
    }

    // ---------------------------------------------------------------- bodies

    private interface BodyWriter {
        HttpRequest.BodyPublisher write(ChatRequest request) throws ProviderException;
    }

    private static void bodies(AnthropicMock mock, int rounds, int warmup, int bodies) throws Exception {
        Map<String, ChatRequest> requests = new LinkedHashMap<>();
        for (ToolMode mode : List.of(ToolMode.TAGS, ToolMode.NATIVE)) {
            List<ChatRequest> sent = capture(mock, mode);
            String name = mode.name().toLowerCase(Locale.ROOT);
            requests.put(name + ", 1st request", sent.get(0));
            requests.put(name + ", 2nd request", sent.get(1));
        }
        RequestBodyProbe probe = new RequestBodyProbe(false);
        Map<String, BodyWriter> writers = new LinkedHashMap<>();
        writers.put("before (tree, String)", request -> HttpRequest.BodyPublishers.ofByteArray(
                ReferenceRequestBody.body(request, AnthropicProvider.DEFAULT_MAX_TOKENS, null)
                        .getBytes(StandardCharsets.UTF_8)));
        writers.put("after (bytes, cached parts)", probe::publisher);
        for (Map.Entry<String, ChatRequest> request : requests.entrySet()) {
            byte[] before = ReferenceRequestBody.body(request.getValue(), AnthropicProvider.DEFAULT_MAX_TOKENS, null)
                    .getBytes(StandardCharsets.UTF_8);
            if (!Arrays.equals(before, probe.bytes(request.getValue()))) {
                throw new IllegalStateException("the bodies differ for " + request.getKey());
            }
        }
        Map<String, double[][]> results = new LinkedHashMap<>();   // key -> [round] -> {bytes, ns} per body
        for (int round = 0; round < warmup + rounds; round++) {
            for (Map.Entry<String, ChatRequest> request : requests.entrySet()) {
                for (Map.Entry<String, BodyWriter> writer : writers.entrySet()) {
                    long allocated = THREADS.getCurrentThreadAllocatedBytes();
                    long start = System.nanoTime();
                    long lengths = 0;
                    for (int i = 0; i < bodies; i++) {
                        lengths += writer.getValue().write(request.getValue()).contentLength();
                    }
                    long nanos = System.nanoTime() - start;
                    long bytes = THREADS.getCurrentThreadAllocatedBytes() - allocated;
                    sink += lengths;
                    if (round >= warmup) {
                        results.computeIfAbsent(request.getKey() + "|" + writer.getKey(), key -> new double[rounds][])
                                [round - warmup] = new double[] {(double) bytes / bodies, (double) nanos / bodies};
                    }
                }
            }
            System.err.printf(Locale.ROOT, "bodies: round %d/%d done%n", round + 1, warmup + rounds);
        }
        System.out.printf(Locale.ROOT, "Request bodies (%d per measurement, %d rounds after %d warm-up rounds; "
                + "median of the rounds)%n%n", bodies, rounds, warmup);
        System.out.println("| request | body bytes | writer | allocated B/body | ns/body |");
        System.out.println("|---|---|---|---|---|");
        for (Map.Entry<String, ChatRequest> request : requests.entrySet()) {
            int length = probe.bytes(request.getValue()).length;
            for (String writer : writers.keySet()) {
                double[][] measured = results.get(request.getKey() + "|" + writer);
                System.out.printf(Locale.ROOT, "| %s | %,d | %s | %,.0f | %,.0f |%n", request.getKey(), length, writer,
                        median(measured, 0), median(measured, 1));
            }
        }
        System.out.println();
    }

    /** The requests an agent sends for one task in the mode, as the provider received them. */
    private static List<ChatRequest> capture(AnthropicMock mock, ToolMode mode) throws Exception {
        List<ChatRequest> sent = new CopyOnWriteArrayList<>();
        try (AnthropicProvider anthropic = AnthropicProvider.builder().baseUrl(mock.baseUrl()).build()) {
            Provider recording = new Provider() {
                @Override
                public String name() {
                    return anthropic.name();
                }

                @Override
                public ChatStream stream(ChatRequest request) throws ProviderException {
                    sent.add(request);
                    return anthropic.stream(request);
                }
            };
            check(agent(recording, mode).run(TASK, new Session()).await(), mode.name());
        }
        if (sent.size() != 2) {
            throw new IllegalStateException("expected 2 model requests, the agent sent " + sent.size());
        }
        return sent;
    }

    private static double median(double[][] rounds, int column) {
        double[] values = Arrays.stream(rounds).mapToDouble(row -> row[column]).sorted().toArray();
        return values[values.length / 2];
    }

    // ---------------------------------------------------------------- agents

    private record Contestant(String name, AnthropicProvider provider, DefaultAgent agent) {
    }

    private static final class Tally {
        final List<Long> durations = new ArrayList<>();
        long allocated;
        long requests;
        long requestBytes;
        long connections;
    }

    private static void agents(AnthropicMock mock, int rounds, int warmup, int tasks) throws Exception {
        List<Contestant> contestants = new ArrayList<>();
        for (String name : List.of("tags", "native", "native, prompt caching")) {
            AnthropicProvider.Builder builder = AnthropicProvider.builder().baseUrl(mock.baseUrl());
            if (name.endsWith("caching")) {
                try {
                    builder.promptCaching(true);
                } catch (NoSuchMethodError olderBuild) {
                    System.out.println("(this build of the provider has no prompt caching: " + name + " left out)");
                    continue;
                }
            }
            AnthropicProvider provider = builder.build();
            contestants.add(new Contestant(name, provider,
                    agent(provider, name.startsWith("tags") ? ToolMode.TAGS : ToolMode.NATIVE)));
        }
        Map<Contestant, Tally> tallies = new LinkedHashMap<>();
        contestants.forEach(contestant -> tallies.put(contestant, new Tally()));
        for (int round = 0; round < warmup + rounds; round++) {
            for (int turn = 0; turn < contestants.size(); turn++) {
                Contestant contestant = contestants.get((round + turn) % contestants.size());
                Tally tally = round < warmup ? new Tally() : tallies.get(contestant);
                long allocated = THREADS.getTotalThreadAllocatedBytes();
                long mockAllocated = mock.ownAllocation.get();
                long requests = mock.requests.get();
                long requestBytes = mock.requestBodyBytes.get();
                long connections = mock.connections.get();
                for (int task = 0; task < tasks; task++) {
                    long start = System.nanoTime();
                    check(contestant.agent().run(TASK, new Session()).await(), contestant.name());
                    tally.durations.add(System.nanoTime() - start);
                }
                tally.allocated += THREADS.getTotalThreadAllocatedBytes() - allocated
                        - (mock.ownAllocation.get() - mockAllocated);
                tally.requests += mock.requests.get() - requests;
                tally.requestBytes += mock.requestBodyBytes.get() - requestBytes;
                tally.connections += mock.connections.get() - connections;
            }
            System.err.printf(Locale.ROOT, "agents: round %d/%d done%n", round + 1, warmup + rounds);
        }
        System.out.printf(Locale.ROOT, "DefaultAgent over AnthropicProvider (%d tasks per contestant in %d rounds"
                + " after %d warm-up rounds; 2 model requests per task)%n%n", tasks * rounds, rounds, warmup);
        System.out.println("| contestant | alloc KiB/request | request bytes | task p50 µs | task p99 µs "
                + "| new connections |");
        System.out.println("|---|---|---|---|---|---|");
        for (Map.Entry<Contestant, Tally> entry : tallies.entrySet()) {
            Tally tally = entry.getValue();
            long[] sorted = tally.durations.stream().mapToLong(Long::longValue).sorted().toArray();
            System.out.printf(Locale.ROOT, "| %s | %.1f | %,d | %,.0f | %,.0f | %d |%n", entry.getKey().name(),
                    tally.allocated / 1024.0 / tally.requests, tally.requestBytes / tally.requests,
                    sorted[sorted.length / 2] / 1000.0, sorted[(int) Math.ceil(0.99 * sorted.length) - 1] / 1000.0,
                    tally.connections);
            entry.getKey().provider().close();
        }
        System.out.println();
    }

    private static DefaultAgent agent(Provider provider, ToolMode mode) {
        return DefaultAgent.builder()
                .provider(provider)
                .model("mock")
                .toolMode(mode)
                .toolRegistry(new ToolRegistry().register(TypedTool.of("add", "Adds two integers", AddArguments.class,
                        (context, arguments) -> ToolResult.of("sum=" + (arguments.a() + arguments.b())))))
                .build();
    }

    private static void check(AgentResult result, String who) {
        if (!result.reason().successful() || !AnthropicMock.FINAL_ANSWER.equals(result.result())) {
            throw new IllegalStateException(who + ": the run ended " + result.reason() + ": " + result.result());
        }
    }
}
