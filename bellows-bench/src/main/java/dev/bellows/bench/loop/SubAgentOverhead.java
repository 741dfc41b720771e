package dev.bellows.bench.loop;

import dev.bellows.agent.AgentResult;
import dev.bellows.agent.AgentTool;
import dev.bellows.agent.DefaultAgent;
import dev.bellows.agent.Session;
import dev.bellows.openai.OpenAiProvider;
import dev.bellows.tool.Tool;
import dev.bellows.tool.ToolContext;
import dev.bellows.tool.ToolRegistry;
import dev.bellows.tool.ToolResult;
import dev.bellows.tool.TypedTool;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * What a sub-agent costs (issue 33, "Performance": a sub-agent call should add no more to a
 * task than a tool call plus its own model calls). Three ways of doing the sum of the loop
 * harnesses' mock ({@link JdkServerMock}: a {@code <tool>} call of {@code add}, then, once
 * {@code sum=5} is in the conversation often enough, the answer), one run after another on one
 * thread, each with a fresh session:
 *
 * <ul>
 *   <li><b>one agent, 2 model calls</b>: add, then the answer;</li>
 *   <li><b>one agent, 4 model calls</b>: add three times, then the answer (a mock that waits for
 *       three results): the same model calls as the next, done by one agent;</li>
 *   <li><b>parent + sub-agent, 4 model calls</b>: the parent's {@code add} runs a sub-agent
 *       ({@link AgentTool}, its events passed on to the parent's listeners) that calls the real
 *       {@code add} and answers; the parent then answers. Two model calls each.</li>
 * </ul>
 *
 * The difference between the last two is what the sub-agent itself costs: its run (a virtual
 * thread, a session, its events wrapped and passed on) beyond the model calls it makes.
 * Printed per way: the median and p90 time of a run, and the process's CPU time per run.
 *
 * <pre>
 * java -cp bellows-bench/target/benchmarks.jar dev.bellows.bench.loop.SubAgentOverhead [--runs 2000] [--rounds 3] [--warmup 1]
 * </pre>
 */
public final class SubAgentOverhead {

    private SubAgentOverhead() {
    }

    private static final Tool ADD = TypedTool.of("add", "Adds two integers", BellowsAgent.AddArguments.class,
            (context, arguments) -> ToolResult.of("sum=" + (arguments.a() + arguments.b())));

    /** One way: a fresh run of it, to its answer. */
    private interface Way {
        AgentResult run();
    }

    public static void main(String[] args) throws Exception {
        Map<String, Integer> options = new LinkedHashMap<>(Map.of("runs", 2000, "rounds", 3, "warmup", 1));
        for (int i = 0; i + 1 < args.length; i += 2) {
            options.put(args[i].replaceFirst("^--", ""), Integer.parseInt(args[i + 1]));
        }
        int runs = options.get("runs");
        System.out.printf(Locale.ROOT, "SubAgentOverhead: %,d runs a way, %d warm-up + %d measured rounds; JDK %s, %d CPUs%n",
                runs, options.get("warmup"), options.get("rounds"), Runtime.version(),
                Runtime.getRuntime().availableProcessors());
        try (JdkServerMock once = JdkServerMock.start(JdkServerMock.Framing.LENGTH, 1, 1, 0);
             JdkServerMock thrice = JdkServerMock.start(JdkServerMock.Framing.LENGTH, 3, 1, 0);
             OpenAiProvider onceModel = OpenAiProvider.builder().baseUrl(once.baseUrl()).build();
             OpenAiProvider thriceModel = OpenAiProvider.builder().baseUrl(thrice.baseUrl()).build()) {
            DefaultAgent two = DefaultAgent.builder().provider(onceModel).model("mock")
                    .toolRegistry(new ToolRegistry().register(ADD)).build();
            DefaultAgent four = DefaultAgent.builder().provider(thriceModel).model("mock")
                    .toolRegistry(new ToolRegistry().register(ADD)).build();
            DefaultAgent sub = DefaultAgent.builder().provider(onceModel).model("mock").name("adder")
                    .toolRegistry(new ToolRegistry().register(ADD)).build();
            AgentTool adder = AgentTool.of("adder", "Adds two integers", sub);
            List<Object> heard = new ArrayList<>();
            DefaultAgent parent = DefaultAgent.builder().provider(onceModel).model("mock")
                    .toolRegistry(new ToolRegistry().register(new Delegating(adder)))
                    .listener(event -> {
                        if (heard.size() < 1) {
                            heard.add(event);       // a listener, as a caller has one: the sub-agent's events reach it
                        }
                    })
                    .build();
            Map<String, Way> ways = new LinkedHashMap<>();
            ways.put("one agent, 2 model calls", () -> two.run("add 2 and 3", new Session()).await());
            ways.put("one agent, 4 model calls", () -> four.run("add 2 and 3", new Session()).await());
            ways.put("parent + sub-agent, 4 model calls", () -> parent.run("add 2 and 3", new Session()).await());
            Map<String, List<long[]>> measured = new LinkedHashMap<>();
            int rounds = options.get("warmup") + options.get("rounds");
            for (int round = 0; round < rounds; round++) {
                boolean counted = round >= options.get("warmup");
                for (Map.Entry<String, Way> way : ways.entrySet()) {
                    long[] result = batch(way.getValue(), runs);
                    if (counted) {
                        measured.computeIfAbsent(way.getKey(), k -> new ArrayList<>()).add(result);
                        System.out.printf(Locale.ROOT, "  round %d  %-36s p50 %6.1f us  p90 %6.1f us  CPU %6.1f us/run%n",
                                round - options.get("warmup") + 1, way.getKey(), result[0] / 1e3, result[1] / 1e3,
                                result[2] / 1e3);
                    }
                }
            }
            System.out.println("medians of the rounds:");
            for (Map.Entry<String, List<long[]>> way : measured.entrySet()) {
                System.out.printf(Locale.ROOT, "  %-36s p50 %6.1f us  p90 %6.1f us  CPU %6.1f us/run%n", way.getKey(),
                        median(way.getValue(), 0) / 1e3, median(way.getValue(), 1) / 1e3, median(way.getValue(), 2) / 1e3);
            }
        }
    }

    /** {@code runs} runs one after another: p50 and p90 of a run's time, and CPU time per run, in ns. */
    private static long[] batch(Way way, int runs) {
        long[] times = new long[runs];
        long cpuBefore = cpu();
        for (int i = 0; i < runs; i++) {
            long start = System.nanoTime();
            AgentResult result = way.run();
            times[i] = System.nanoTime() - start;
            if (!result.result().contains("5")) {
                throw new IllegalStateException("the run did not answer: " + result);
            }
        }
        long cpuPerRun = (cpu() - cpuBefore) / runs;
        java.util.Arrays.sort(times);
        return new long[] {times[runs / 2], times[runs * 9 / 10], cpuPerRun};
    }

    private static long median(List<long[]> rounds, int index) {
        long[] values = rounds.stream().mapToLong(r -> r[index]).sorted().toArray();
        return values[values.length / 2];
    }

    private static long cpu() {
        return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean()).getProcessCpuTime();
    }

    /**
     * The parent's {@code add}: the mock calls it with {@code a} and {@code b}, and it gives the
     * sub-agent the task; its result keeps the mock's mark ({@code sum=5}), so that the parent's
     * model answers next.
     */
    private record Delegating(AgentTool adder) implements Tool {
        @Override
        public String name() {
            return "add";
        }

        @Override
        public String description() {
            return "Adds two integers (through the adder agent)";
        }

        @Override
        public JsonNode inputSchema() {
            return ADD.inputSchema();
        }

        @Override
        public ToolResult<?> call(ToolContext context, JsonNode arguments) throws Exception {
            ObjectNode task = JsonNodeFactory.instance.objectNode()
                    .put("task", "add " + arguments.path("a").asInt() + " and " + arguments.path("b").asInt());
            String answer = String.valueOf(adder.call(context, task).output());
            return ToolResult.of("sum=5 (" + answer + ")");
        }
    }
}
