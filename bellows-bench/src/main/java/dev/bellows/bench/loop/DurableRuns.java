package dev.bellows.bench.loop;

import dev.bellows.agent.AgentResult;
import dev.bellows.agent.DefaultAgent;
import dev.bellows.agent.Session;
import dev.bellows.agent.ToolMode;
import dev.bellows.openai.OpenAiProvider;
import dev.bellows.provider.RetryPolicy;
import dev.bellows.temporal.DurableAgent;
import dev.bellows.temporal.DurableWorker;
import dev.bellows.tool.ToolRegistry;
import dev.bellows.tool.ToolResult;
import dev.bellows.tool.TypedTool;
import io.grpc.Server;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.temporal.client.WorkflowClient;
import io.temporal.common.WorkflowExecutionHistory;
import io.temporal.internal.testservice.GRPCServerHelper;
import io.temporal.internal.testservice.TestServicesStarter;
import io.temporal.serviceclient.WorkflowServiceStubs;
import io.temporal.serviceclient.WorkflowServiceStubsOptions;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import tools.jackson.databind.JsonNode;

/**
 * What a durable run costs against the same run done locally: a task of {@code K} tool calls
 * and an answer ({@code K + 1} iterations, each a model call; {@link LeanMock} in its own JVM
 * answers at once) run by a {@link DefaultAgent} in this JVM, and as a durable run on Temporal's
 * Java test server (port-bound on 127.0.0.1, in this JVM) by a {@link DurableWorker} in this JVM,
 * started by a {@link DurableAgent} client whose wait for the end is the workflow's result (a
 * long poll: no follower's 200 ms polling in the figure).
 *
 * <p>Per contestant: the time of one run alone (p50, p90 of {@code --runs} runs one after
 * another, after {@code --warmup} untimed ones), the time <b>added per iteration</b> over the
 * local run's p50, and runs per second with {@code --concurrent} runs at once. For the durable
 * runs also the history one run leaves (events, bytes): what the cluster stores. Worker
 * contestants differ in their workflow cache: 0 (the default; each step replays the run's
 * history) or more (a run's steps stick to the worker that has it).
 */
public final class DurableRuns {

    private DurableRuns() {
    }

    public static void main(String[] args) throws Exception {
        int runs = 40;
        int warmup = 10;
        int toolCalls = 2;
        int[] concurrent = {20};
        int[] caches = {0, 600};
        for (int i = 0; i < args.length; i += 2) {
            String value = args[i + 1];
            switch (args[i]) {
                case "--runs" -> runs = Integer.parseInt(value);
                case "--warmup" -> warmup = Integer.parseInt(value);
                case "--tool-calls" -> toolCalls = Integer.parseInt(value);
                case "--concurrent" -> concurrent = Arrays.stream(value.split(",")).mapToInt(Integer::parseInt).toArray();
                case "--cache" -> caches = Arrays.stream(value.split(",")).mapToInt(Integer::parseInt).toArray();
                default -> throw new IllegalArgumentException("unknown option " + args[i]);
            }
        }
        int iterations = toolCalls + 1;
        System.out.printf(Locale.ROOT, "a run is %d tool calls and the answer (%d iterations), the mock answering at"
                        + " once in its own JVM; %d cores, JDK %s%n%n", toolCalls, iterations,
                Runtime.getRuntime().availableProcessors(), Runtime.version());
        try (MockProcess mock = new MockProcess(toolCalls, 1, 0, "512m", null);
             OpenAiProvider provider = OpenAiProvider.builder().baseUrl(mock.baseUrl()).build()) {
            ToolRegistry tools = new ToolRegistry().register(TypedTool.of("add", "Adds two integers",
                    BellowsAgent.AddArguments.class,
                    (context, arguments) -> ToolResult.of("sum=" + (arguments.a() + arguments.b()))));
            DefaultAgent local = DefaultAgent.builder().provider(provider).model("mock").toolMode(ToolMode.TAGS)
                    .toolRegistry(tools).build();
            Callable<String> localRun = () -> check(local.runBlocking(LoopComparison.TASK, new Session()).result());
            double localP50 = measure("local DefaultAgent.runBlocking", localRun, runs, warmup, concurrent, -1, iterations);

            TestServicesStarter services = new TestServicesStarter(true, 0);
            NettyServerBuilder builder = NettyServerBuilder.forAddress(
                    new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            GRPCServerHelper.registerServicesAndHealthChecks(services.getServices(), builder);
            Server server = builder.build().start();
            WorkflowServiceStubs stubs = WorkflowServiceStubs.newServiceStubs(WorkflowServiceStubsOptions.newBuilder()
                    .setTarget("127.0.0.1:" + server.getPort()).build());
            WorkflowClient client = DurableAgent.client(stubs, "default");
            try {
                for (int cache : caches) {
                    String queue = "bench-" + cache;
                    try (DurableWorker worker = DurableWorker.builder(client).taskQueue(queue).provider(provider)
                            .tools(tools).retryPolicy(RetryPolicy.defaults())
                            .loop(b -> b.model("mock").toolMode(ToolMode.TAGS)).workflowCacheSize(cache).build()) {
                        worker.start();
                        DurableAgent agent = DurableAgent.builder(client).taskQueue(queue).build();
                        String[] last = {null};
                        Callable<String> durableRun = () -> {
                            String id = agent.start(LoopComparison.TASK);
                            last[0] = id;
                            // the workflow's result as JSON ({"reason", "result"}): its record is not API
                            return check(client.newUntypedWorkflowStub(id).getResult(JsonNode.class).path("result")
                                    .asString());
                        };
                        measure("durable, workflow cache " + cache, durableRun, runs, warmup, concurrent, localP50,
                                iterations);
                        WorkflowExecutionHistory history = client.fetchHistory(last[0]);
                        System.out.printf(Locale.ROOT, "  history of one run: %d events, %d bytes%n%n",
                                history.getEvents().size(), history.getHistory().getSerializedSize());
                    }
                }
            } finally {
                stubs.shutdown();
                server.shutdownNow();
                server.awaitTermination(5, TimeUnit.SECONDS);
                services.close();
            }
        }
    }

    private static String check(String result) {
        if (!LeanMock.FINAL_ANSWER.equals(result)) {
            throw new IllegalStateException("the run answered " + result);
        }
        return result;
    }

    /** Prints the contestant's figures; returns its p50 of one run alone, in ms. */
    private static double measure(String name, Callable<String> run, int runs, int warmup, int[] concurrent,
                                  double localP50, int iterations) throws Exception {
        for (int i = 0; i < warmup; i++) {
            run.call();
        }
        double[] ms = new double[runs];
        for (int i = 0; i < runs; i++) {
            long start = System.nanoTime();
            run.call();
            ms[i] = (System.nanoTime() - start) / 1e6;
        }
        Arrays.sort(ms);
        double p50 = ms[runs / 2];
        double p90 = ms[(int) (runs * 0.9)];
        System.out.printf(Locale.ROOT, "%s%n  one run alone: p50 %.1f ms, p90 %.1f ms", name, p50, p90);
        if (localP50 >= 0) {
            System.out.printf(Locale.ROOT, "; added per iteration over the local run: %.1f ms", (p50 - localP50) / iterations);
        }
        System.out.println();
        for (int c : concurrent) {
            try (ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor()) {
                int total = Math.max(c * 5, runs);
                long start = System.nanoTime();
                List<Future<String>> done = new ArrayList<>();
                java.util.concurrent.Semaphore slots = new java.util.concurrent.Semaphore(c);
                for (int i = 0; i < total; i++) {
                    slots.acquire();
                    done.add(threads.submit(() -> {
                        try {
                            return run.call();
                        } finally {
                            slots.release();
                        }
                    }));
                }
                for (Future<String> f : done) {
                    f.get();
                }
                double seconds = (System.nanoTime() - start) / 1e9;
                System.out.printf(Locale.ROOT, "  %d at once: %d runs in %.2f s, %.1f runs/s%n", c, total, seconds,
                        total / seconds);
            }
        }
        return p50;
    }
}
