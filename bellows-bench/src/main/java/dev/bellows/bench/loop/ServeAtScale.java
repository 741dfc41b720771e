package dev.bellows.bench.loop;

import dev.bellows.agent.AgentRun;
import dev.bellows.agent.DefaultAgent;
import dev.bellows.agent.Session;
import dev.bellows.event.AgentEvent;
import dev.bellows.event.StreamEvent;
import dev.bellows.openai.OpenAiProvider;
import dev.bellows.server.AgentServer;
import dev.bellows.server.jetty.JettyAgentServer;
import dev.bellows.tool.ToolRegistry;
import dev.bellows.tool.ToolResult;
import dev.bellows.tool.TypedTool;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/**
 * What {@code bellows serve} adds to a run (BENCHMARKS.md, "The agent server"): N AG-UI clients
 * at once, each running one three-step task (two tool calls, then the answer) over HTTP
 * against the agent server on Jetty, beside the same agent called in-process by N virtual
 * threads, in the same JVM and the same run, against one {@link LeanMock} in a process of its
 * own. Reported per N: runs per second of each batch, the latency to the first event of the
 * model's answer (in-process the first {@code tool_call_name}; over HTTP the first
 * {@code TOOL_CALL_START}, the AG-UI event it becomes) p50 and p99, and what HTTP adds; then
 * the CPU this JVM spent per run (agent, server and clients; the mock is elsewhere), which a
 * loaded machine disturbs far less than times; then the heap per open stream: N runs all
 * waiting inside a slow answer, heap after a full collection minus before, over N,
 * in-process and over HTTP.
 *
 * <p>The clients are raw sockets with small buffers (one pre-opened connection each, as a
 * browser keeps one), so that what they hold stays out of the server's figures.
 *
 * <pre>
 * java -Xmx2g -cp bellows-bench/target/benchmarks.jar dev.bellows.bench.loop.ServeAtScale \
 *     [--clients 1,64,1000] [--pause-ms 50] [--memory-clients 1000]
 * </pre>
 */
public final class ServeAtScale {

    private static final String TASK = "Add 2 and 3.";

    private ServeAtScale() {
    }

    public static void main(String[] args) throws Exception {
        int[] sizes = {1, 64, 1000};
        long pause = 50;
        int memoryClients = 1000;
        for (int i = 0; i + 1 < args.length; i += 2) {
            switch (args[i]) {
                case "--clients" -> sizes = Arrays.stream(args[i + 1].split(",")).mapToInt(Integer::parseInt).toArray();
                case "--pause-ms" -> pause = Long.parseLong(args[i + 1]);
                case "--memory-clients" -> memoryClients = Integer.parseInt(args[i + 1]);
                default -> throw new IllegalArgumentException("unknown option " + args[i]);
            }
        }
        int most = Math.max(Arrays.stream(sizes).max().orElse(1), memoryClients);
        System.out.println("| clients | in-process runs/s | HTTP runs/s | first event in-process p50 / p99 ms"
                + " | first event HTTP p50 / p99 ms | added p50 / p99 ms | CPU µs per run in-process / HTTP | added CPU µs per run |");
        System.out.println("|---|---|---|---|---|---|---|---|");
        try (MockProcess mock = new MockProcess(2, 3, pause, "1g", null)) {
            Setup setup = new Setup(mock.baseUrl(), most);
            try (setup) {
                warmUp(setup);
                for (int n : sizes) {
                    Batch local = inProcess(setup, n, null);
                    Batch http = overHttp(setup, n, null);
                    System.out.printf(Locale.ROOT, "| %,d | %.0f | %.0f | %.1f / %.1f | %.1f / %.1f | %.1f / %.1f | %,.0f / %,.0f | %,.0f |%n", n,
                            local.runsPerSecond(), http.runsPerSecond(), local.p(50), local.p(99), http.p(50), http.p(99),
                            http.p(50) - local.p(50), http.p(99) - local.p(99), local.cpuMicrosPerRun(),
                            http.cpuMicrosPerRun(), http.cpuMicrosPerRun() - local.cpuMicrosPerRun());
                }
            }
        }
        // Memory: a mock whose answers pause long enough for every run to be waiting inside one.
        try (MockProcess slow = new MockProcess(2, 3, 3_000, "1g", null); Setup setup = new Setup(slow.baseUrl(), memoryClients)) {
            double local = heapPerRun(setup, memoryClients, false);
            double http = heapPerRun(setup, memoryClients, true);
            System.out.printf(Locale.ROOT, "%nheap per waiting run, %,d at once: in-process %.1f KiB, over HTTP %.1f KiB"
                    + " (the server adds %.1f KiB per open stream)%n", memoryClients, local, http, http - local);
        }
    }

    /** The agent, its server, and the clients' executor. */
    private static final class Setup implements AutoCloseable {
        final DefaultAgent agent;
        final JettyAgentServer http;
        final ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor();
        int next;

        Setup(String baseUrl, int maxRuns) throws IOException {
            agent = DefaultAgent.builder()
                    .provider(OpenAiProvider.builder().baseUrl(baseUrl).build())
                    .model("mock")
                    .toolRegistry(new ToolRegistry().register(TypedTool.of("add", "Adds two integers",
                            BellowsAgent.AddArguments.class, (context, a) -> ToolResult.of("sum=" + (a.a() + a.b())))))
                    .build();
            http = JettyAgentServer.start(AgentServer.builder(agent).maxRuns(maxRuns + 16).build(), "127.0.0.1", 0);
        }

        @Override
        public void close() {
            threads.shutdownNow();
            http.handler().shutdown(java.time.Duration.ZERO);
            http.close();
        }
    }

    private record Batch(double seconds, long[] firstNanos, int n, long cpuNanos) {
        /** CPU of this JVM (agent, server, clients) per run, in µs: what survives a loaded machine. */
        double cpuMicrosPerRun() {
            return cpuNanos / 1e3 / n;
        }

        double runsPerSecond() {
            return n / seconds;
        }

        double p(int percentile) {
            long[] sorted = firstNanos.clone();
            Arrays.sort(sorted);
            int index = Math.min(sorted.length - 1, (int) Math.ceil(percentile / 100.0 * sorted.length) - 1);
            return sorted[Math.max(0, index)] / 1e6;
        }
    }

    private static void warmUp(Setup setup) throws Exception {
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (System.nanoTime() < until) {
            inProcess(setup, 16, null);
            overHttp(setup, 16, null);
        }
    }

    /** N runs in-process, all started together; {@code waiting} counts each down at its first event. */
    private static Batch inProcess(Setup setup, int n, CountDownLatch waiting) throws Exception {
        CountDownLatch go = new CountDownLatch(1);
        List<Future<Long>> runs = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            runs.add(setup.threads.submit(() -> {
                go.await();
                long start = System.nanoTime();
                AgentRun run = setup.agent.run(TASK, new Session());
                long first = -1;
                for (AgentEvent event : run) {
                    if (first < 0 && event instanceof StreamEvent.ToolCallName) {
                        first = System.nanoTime() - start;
                        if (waiting != null) {
                            waiting.countDown();
                        }
                    }
                }
                check(run.await().result());
                return first;
            }));
        }
        return finish(go, runs, n);
    }

    /** N AG-UI runs over HTTP, each on a connection opened beforehand. */
    private static Batch overHttp(Setup setup, int n, CountDownLatch waiting) throws Exception {
        CountDownLatch go = new CountDownLatch(1);
        List<Future<Long>> runs = new ArrayList<>(n);
        int port = setup.http.port();
        for (int i = 0; i < n; i++) {
            String thread = "bench-" + (setup.next++);
            runs.add(setup.threads.submit(() -> {
                try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), port)) {
                    byte[] body = ("{\"threadId\":\"" + thread + "\",\"runId\":\"r\",\"messages\":[{\"id\":\"u\",\"role\":\"user\","
                            + "\"content\":\"" + TASK + "\"}]}").getBytes(StandardCharsets.UTF_8);
                    byte[] head = ("POST /agui HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: "
                            + body.length + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII);
                    go.await();
                    long start = System.nanoTime();
                    OutputStream out = socket.getOutputStream();
                    out.write(head);
                    out.write(body);
                    out.flush();
                    Lines lines = new Lines(socket.getInputStream());
                    long first = -1;
                    String line;
                    while ((line = lines.next()) != null) {
                        if (first < 0 && line.contains("\"TOOL_CALL_START\"")) {
                            first = System.nanoTime() - start;
                            if (waiting != null) {
                                waiting.countDown();
                            }
                        }
                        if (line.contains("\"RUN_FINISHED\"")) {
                            check(line);
                            return first;
                        }
                        if (line.contains("\"RUN_ERROR\"")) {
                            throw new IllegalStateException("the run failed: " + line);
                        }
                    }
                    throw new IllegalStateException("the stream ended before RUN_FINISHED");
                }
            }));
        }
        return finish(go, runs, n);
    }

    private static Batch finish(CountDownLatch go, List<Future<Long>> runs, int n) throws Exception {
        long cpu = cpuNanos();
        long start = System.nanoTime();
        go.countDown();
        long[] firsts = new long[n];
        for (int i = 0; i < n; i++) {
            firsts[i] = runs.get(i).get(300, TimeUnit.SECONDS);
        }
        return new Batch((System.nanoTime() - start) / 1e9, firsts, n, cpuNanos() - cpu);
    }

    private static long cpuNanos() {
        return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean()).getProcessCpuTime();
    }

    private static void check(String answer) {
        if (!answer.contains(LeanMock.FINAL_ANSWER)) {
            throw new IllegalStateException("a wrong answer: " + answer);
        }
    }

    /** KiB of heap per run while N runs wait inside an answer (after their first event). */
    private static double heapPerRun(Setup setup, int n, boolean http) throws Exception {
        gc();
        long before = heapUsed();
        CountDownLatch waiting = new CountDownLatch(n);
        Thread batch = Thread.ofVirtual().start(() -> {
            try {
                if (http) {
                    overHttp(setup, n, waiting);
                } else {
                    inProcess(setup, n, waiting);
                }
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        if (!waiting.await(120, TimeUnit.SECONDS)) {
            throw new IllegalStateException("the runs did not all start");
        }
        gc();
        long during = heapUsed();
        batch.join();
        return (during - before) / 1024.0 / n;
    }

    private static void gc() throws InterruptedException {
        for (int i = 0; i < 3; i++) {
            System.gc();
            Thread.sleep(50);
        }
    }

    private static long heapUsed() {
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    }

    /** Lines of a response, read with a 512-byte buffer: a client that holds little (A2aAtScale's too). */
    static final class Lines {
        private final InputStream in;
        private final byte[] buffer = new byte[512];
        private int position;
        private int limit;

        Lines(InputStream in) {
            this.in = in;
        }

        String next() throws IOException {
            java.io.ByteArrayOutputStream line = new java.io.ByteArrayOutputStream(128);
            while (true) {
                if (position == limit) {
                    limit = in.read(buffer);
                    position = 0;
                    if (limit <= 0) {
                        return line.size() == 0 ? null : line.toString(StandardCharsets.UTF_8);
                    }
                }
                byte b = buffer[position++];
                if (b == '\n') {
                    return line.toString(StandardCharsets.UTF_8);
                }
                line.write(b);
            }
        }
    }
}
