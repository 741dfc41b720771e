package dev.bellows.bench.loop;

import dev.bellows.a2a.server.A2aServer;
import dev.bellows.a2a.server.AgentCards;
import dev.bellows.a2a.server.BellowsExecutor;
import dev.bellows.agent.DefaultAgent;
import dev.bellows.openai.OpenAiProvider;
import dev.bellows.server.AgentServer;
import dev.bellows.server.jetty.JettyAgentServer;
import dev.bellows.tool.ToolRegistry;
import dev.bellows.tool.ToolResult;
import dev.bellows.tool.TypedTool;
import java.io.IOException;
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
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/**
 * A2A tasks against AG-UI runs on one server (BENCHMARKS.md, "A2A tasks at scale"): N clients
 * at once, each streaming one three-step task (two tool calls, then the answer) of the same
 * {@code DefaultAgent}, on the same {@code AgentServer} on Jetty, once over AG-UI
 * ({@code POST /agui}) and once over A2A ({@code SendStreamingMessage} on
 * {@code POST /a2a/jsonrpc}), against one {@link LeanMock} in a process of its own. The two
 * take turns, batch after batch, so that both see the same machine; per protocol: runs per
 * second over all its batches, the CPU this JVM spent per run, and the ratio A2A / AG-UI.
 *
 * <pre>
 * java -Xmx2g -cp bellows-bench/target/benchmarks.jar dev.bellows.bench.loop.A2aAtScale \
 *     [--clients 64] [--rounds 10] [--pause-ms 50]
 * </pre>
 */
public final class A2aAtScale {

    private static final String TASK = "Add 2 and 3.";

    private A2aAtScale() {
    }

    public static void main(String[] args) throws Exception {
        int[] sizes = {64};
        int rounds = 10;
        long pause = 50;
        for (int i = 0; i + 1 < args.length; i += 2) {
            switch (args[i]) {
                case "--clients" -> sizes = Arrays.stream(args[i + 1].split(",")).mapToInt(Integer::parseInt).toArray();
                case "--rounds" -> rounds = Integer.parseInt(args[i + 1]);
                case "--pause-ms" -> pause = Long.parseLong(args[i + 1]);
                default -> throw new IllegalArgumentException("unknown option " + args[i]);
            }
        }
        int most = Arrays.stream(sizes).max().orElse(1);
        System.out.println("| clients | AG-UI runs/s | A2A tasks/s | A2A / AG-UI | CPU µs per run AG-UI / A2A |");
        System.out.println("|---|---|---|---|---|");
        try (MockProcess mock = new MockProcess(2, 3, pause, "1g", null); Setup setup = new Setup(mock.baseUrl(), most)) {
            long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
            while (System.nanoTime() < until) {     // warm-up: both paths compiled, connections' classes loaded
                batch(setup, 16, false);
                batch(setup, 16, true);
            }
            for (int n : sizes) {
                double[] agui = new double[2];
                double[] a2a = new double[2];
                for (int round = 0; round < rounds; round++) {
                    boolean a2aFirst = round % 2 == 1;     // the order alternates
                    add(a2aFirst ? a2a : agui, batch(setup, n, a2aFirst));
                    add(a2aFirst ? agui : a2a, batch(setup, n, !a2aFirst));
                }
                double aguiRate = n * rounds / agui[0];
                double a2aRate = n * rounds / a2a[0];
                System.out.printf(Locale.ROOT, "| %,d | %.1f | %.1f | %.2f | %,.0f / %,.0f |%n", n, aguiRate, a2aRate,
                        a2aRate / aguiRate, agui[1] / 1e3 / (n * rounds), a2a[1] / 1e3 / (n * rounds));
            }
        }
    }

    private static void add(double[] into, double[] batch) {
        into[0] += batch[0];
        into[1] += batch[1];
    }

    /** The agent and one server that serves it over AG-UI and A2A. */
    private static final class Setup implements AutoCloseable {
        final JettyAgentServer http;
        final A2aServer a2a;
        final ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor();
        int next;

        Setup(String baseUrl, int clients) throws IOException {
            DefaultAgent agent = DefaultAgent.builder()
                    .provider(OpenAiProvider.builder().baseUrl(baseUrl).build())
                    .model("mock")
                    .toolRegistry(new ToolRegistry().register(TypedTool.of("add", "Adds two integers",
                            BellowsAgent.AddArguments.class, (context, a) -> ToolResult.of("sum=" + (a.a() + a.b())))))
                    .build();
            // A2A with its defaults (tasks in memory); AG-UI with its defaults but the cap on runs
            // at once (32), raised so that no AG-UI client is turned away with 429.
            a2a = A2aServer.builder(AgentCards.of("bench", "Adds numbers.", agent, false), BellowsExecutor.of(agent))
                    .build();
            http = JettyAgentServer.start(AgentServer.builder(agent).maxRuns(clients + 16).mount(a2a).build(),
                    "127.0.0.1", 0);
        }

        @Override
        public void close() {
            threads.shutdownNow();
            http.handler().shutdown(java.time.Duration.ZERO);
            a2a.shutdown(java.time.Duration.ZERO);
            http.close();
        }
    }

    /** N runs at once over AG-UI or A2A, each on a connection opened beforehand: {seconds, CPU ns}. */
    private static double[] batch(Setup setup, int n, boolean a2a) throws Exception {
        CountDownLatch go = new CountDownLatch(1);
        List<Future<Void>> runs = new ArrayList<>(n);
        int port = setup.http.port();
        for (int i = 0; i < n; i++) {
            String id = "bench-" + (setup.next++);
            runs.add(setup.threads.submit(() -> {
                try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), port)) {
                    byte[] body = (a2a
                            ? "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"SendStreamingMessage\",\"params\":{\"message\":"
                            + "{\"messageId\":\"" + id + "\",\"role\":\"ROLE_USER\",\"parts\":[{\"text\":\"" + TASK + "\"}]}}}"
                            : "{\"threadId\":\"" + id + "\",\"runId\":\"r\",\"messages\":[{\"id\":\"u\",\"role\":\"user\","
                            + "\"content\":\"" + TASK + "\"}]}").getBytes(StandardCharsets.UTF_8);
                    byte[] head = ("POST " + (a2a ? "/a2a/jsonrpc" : "/agui") + " HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                            + (a2a ? "A2A-Version: 1.0\r\n" : "") + "Content-Type: application/json\r\nContent-Length: "
                            + body.length + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII);
                    go.await();
                    OutputStream out = socket.getOutputStream();
                    out.write(head);
                    out.write(body);
                    out.flush();
                    ServeAtScale.Lines lines = new ServeAtScale.Lines(socket.getInputStream());
                    String line;
                    boolean answered = false;
                    while ((line = lines.next()) != null) {
                        if (line.contains(LeanMock.FINAL_ANSWER)) {
                            answered = true;
                        }
                        if (line.contains(a2a ? "\"TASK_STATE_COMPLETED\"" : "\"RUN_FINISHED\"")) {
                            if (!answered) {
                                throw new IllegalStateException("ended without the answer: " + line);
                            }
                            return null;
                        }
                        if (line.contains(a2a ? "\"TASK_STATE_FAILED\"" : "\"RUN_ERROR\"") || line.contains("\"error\"")) {
                            throw new IllegalStateException("the run failed: " + line);
                        }
                    }
                    throw new IllegalStateException("the stream ended before the run did");
                }
            }));
        }
        long cpu = cpuNanos();
        long start = System.nanoTime();
        go.countDown();
        for (Future<Void> run : runs) {
            run.get(300, TimeUnit.SECONDS);
        }
        return new double[] {(System.nanoTime() - start) / 1e9, cpuNanos() - cpu};
    }

    private static long cpuNanos() {
        return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean()).getProcessCpuTime();
    }
}
