package dev.bellows.bench.loop;

import dev.bellows.agent.ToolMode;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The loop comparison of BENCHMARKS.md: what an agent framework adds, per model request, to
 * the least a hand-written program must do for the same task, measured side by side in one
 * process and one run.
 *
 * <p>Every contestant runs the same task against the same mock: one call of the {@code add}
 * tool, then the final answer, which is checked on every task. The mock is {@link LeanMock}
 * ({@code --mock lean}, the default), or the JDK's own HTTP server answering with a
 * {@code Content-Length} ({@code jdk-length}) or chunked ({@code jdk-chunked}), see
 * {@link JdkServerMock}; a comma-separated list runs each in turn. With {@code --concurrency},
 * {@code jdk-defaults} is that server with the JDK's own defaults (200 idle connections at most,
 * 30 s idle, Nagle's algorithm on), one for each contestant ({@code jdk-defaults-chunked}: the
 * same, chunked), and {@code jdk-defaults-shared} one such server for all; they report the
 * connections each contestant's client keeps open (the most at once, and after its last
 * batch), and none of them runs in one process with {@code jdk-length} or {@code jdk-chunked},
 * which raise those settings. Contestants take
 * turns in batches ({@code --tasks} tasks each), the order rotating every round, so that a
 * disturbance of the machine falls on all of them alike; {@code --warmup} rounds come first
 * and are not counted. Bellows runs each tool mode twice: as {@code run(task, session).await()}
 * (the handle most callers take; the run may go on on a virtual thread of its own) and as
 * {@code runBlocking(task, session)} (the loop on the calling thread). Reported per iteration
 * (one model request):
 * <ul>
 *   <li>added time: the contestant's p50 (p99) task time minus the floor's, halved (a task is
 *       two requests);</li>
 *   <li>added allocation: bytes allocated by every thread of the process during the
 *       contestant's batches, per task, minus the floor's, halved;</li>
 *   <li>added CPU: the process's CPU time the same way (the mock's share is in every
 *       contestant's figure alike, so it cancels out);</li>
 *   <li>new connections per 1,000 requests and request body bytes per request, as the mock
 *       counted them.</li>
 * </ul>
 *
 * <p>With {@code --concurrency 1,16,64,256} the contestants run that many tasks at once
 * instead, and tasks per second, CPU and allocation per task, task time and new connections
 * are reported ({@link UnderLoad}); {@code --settle P} (percent, 0 by default: off) prolongs the
 * warm-up of each concurrency past its {@code --warmup} rounds until a round leaves the JIT
 * compiler at most P% of the process's CPU.
 *
 * <pre>
 * java -cp bellows-bench/target/benchmarks.jar dev.bellows.bench.loop.LoopComparison [--rounds 20] [--tasks 200] [--warmup 5]
 *     [--mock lean,jdk-length,jdk-chunked|jdk-defaults,jdk-defaults-chunked|jdk-defaults-shared] [--concurrency 1,16,64,256 [--settle 5]]
 *     [--contestants floor,tags,native,tags-blocking,native-blocking,langchain4j] [--failures stop|count]
 * </pre>
 * The floor must run for the added figures of the one-at-a-time mode, the floor and
 * LangChain4j for the ratios under load.
 */
public final class LoopComparison {

    static final String TASK = "What is 2 + 3? Use the add tool.";
    private static final String KEEP_ALIVE = "jdk.httpclient.keepalive.timeout";

    private LoopComparison() {
    }

    public static void main(String[] args) throws Exception {
        // A contestant's idle connections wait while the others take their turns, which on a
        // loaded machine can outlast the JDK client's 30 s keep-alive: every contestant's
        // (all run on java.net.http) are kept 10 minutes, so that a connection opened after the
        // warm-up is one the client dropped or the server closed, not one that timed out.
        if (System.getProperty(KEEP_ALIVE) == null) {
            System.setProperty(KEEP_ALIVE, "600");
        }
        Map<String, String> options = options(args);
        int rounds = Integer.parseInt(options.get("rounds"));
        int tasks = Integer.parseInt(options.get("tasks"));
        int warmup = Integer.parseInt(options.get("warmup"));
        String[] mocks = options.get("mock").split(",");
        for (String mock : mocks) {
            UnderLoad.mock(mock).close();       // an unknown name, or a mix of settings, fails now, not after minutes
            if (mock.startsWith(UnderLoad.DEFAULTS) && options.get("concurrency") == null) {
                throw new IllegalArgumentException("--mock " + mock + " runs with --concurrency only");
            }
        }
        UnderLoad.countFailures = switch (options.get("failures")) {
            case "stop" -> false;
            case "count" -> true;
            default -> throw new IllegalArgumentException("--failures is stop or count, not " + options.get("failures"));
        };
        List<String> names = new ArrayList<>(List.of(options.get("contestants").split(",")));
        if (!options.get("opentelemetry").equals("0")) {
            // The same agents traced through a real SDK (Traced): what tracing adds, in the same run.
            names.addAll(List.of("tags-traced", "native-traced"));
        }
        if (!CONTESTANTS.containsAll(names)) {
            throw new IllegalArgumentException("contestants are " + CONTESTANTS + "; got " + names);
        }
        System.out.printf(Locale.ROOT, "JDK %s, %d cores%n", Runtime.version(), Runtime.getRuntime().availableProcessors());
        for (String mockName : mocks) {
            if (options.get("concurrency") != null) {
                int[] concurrencies = Arrays.stream(options.get("concurrency").split(","))
                        .mapToInt(Integer::parseInt).toArray();
                UnderLoad.run(mockName, names, concurrencies, rounds, tasks, warmup,
                        Double.parseDouble(options.get("settle")));
            } else {
                oneAtATime(mockName, names, rounds, tasks, warmup);
            }
        }
    }

    /** Every contestant's name, in the order of the report: the floor first, LangChain4j last. */
    static final List<String> CONTESTANTS = List.of("floor", "tags", "native", "tags-blocking", "native-blocking",
            "tags-traced", "native-traced", "langchain4j");

    /** The contestants run unless named: all but the traced ones ({@code --opentelemetry 1} adds them). */
    static final List<String> UNTRACED = CONTESTANTS.stream().filter(name -> !name.endsWith("-traced")).toList();

    /** Every contestant, in the order of the report. */
    static List<Contestant> contestants(String baseUrl) {
        return contestants(baseUrl, UNTRACED);
    }

    /** The contestants named, in the order of the report. */
    static List<Contestant> contestants(String baseUrl, List<String> names) {
        return CONTESTANTS.stream().filter(names::contains).map(name -> switch (name) {
            case "floor" -> (Contestant) new Floor(baseUrl);
            case "tags" -> new BellowsAgent(baseUrl, ToolMode.TAGS, false);
            case "native" -> new BellowsAgent(baseUrl, ToolMode.NATIVE, false);
            case "tags-blocking" -> new BellowsAgent(baseUrl, ToolMode.TAGS, true);
            case "native-blocking" -> new BellowsAgent(baseUrl, ToolMode.NATIVE, true);
            case "tags-traced" -> new BellowsAgent(baseUrl, ToolMode.TAGS, false, Traced.start());
            case "native-traced" -> new BellowsAgent(baseUrl, ToolMode.NATIVE, false, Traced.start());
            default -> new LangChain4jStreaming(baseUrl);
        }).toList();
    }

    private static void oneAtATime(String mockName, List<String> names, int rounds, int tasks, int warmup)
            throws Exception {
        try (ModelMock mock = UnderLoad.mock(mockName)) {
            List<Contestant> contestants = contestants(mock.baseUrl(), names);
            Map<Contestant, Tally> tallies = new LinkedHashMap<>();
            contestants.forEach(contestant -> tallies.put(contestant, new Tally(rounds * tasks)));
            System.err.printf(Locale.ROOT, "%s: %d warm-up and %d measured rounds of %d tasks per contestant%n",
                    mock.name(), warmup, rounds, tasks);
            for (int round = 0; round < warmup + rounds; round++) {
                for (int turn = 0; turn < contestants.size(); turn++) {
                    Contestant contestant = contestants.get((round + turn) % contestants.size());
                    Tally tally = round < warmup ? new Tally(tasks) : tallies.get(contestant);
                    runBatch(contestant, tasks, mock, tally);
                }
                System.err.printf(Locale.ROOT, "round %d/%d done%n", round + 1, warmup + rounds);
            }
            System.out.printf(Locale.ROOT, "%n%s%n", mock.name());
            report(tallies, rounds, tasks);
            for (Contestant contestant : contestants) {
                contestant.close();
            }
        }
    }

    private static void runBatch(Contestant contestant, int tasks, ModelMock mock, Tally tally) throws Exception {
        long allocated = Probes.allocatedBytes();
        long cpu = Probes.processCpuNanos();
        long connections = mock.connections();
        long requests = mock.requests();
        long requestBytes = mock.requestBodyBytes();
        for (int task = 0; task < tasks; task++) {
            long start = System.nanoTime();
            String answer = contestant.runTask();
            tally.durations[tally.count++] = System.nanoTime() - start;
            if (!LeanMock.FINAL_ANSWER.equals(answer)) {
                throw new IllegalStateException(contestant.name() + " answered " + answer);
            }
        }
        tally.allocated += Probes.allocatedBytes() - allocated;
        tally.cpuNanos += Probes.processCpuNanos() - cpu;
        tally.connections += mock.connections() - connections;
        tally.requests += mock.requests() - requests;
        tally.requestBytes += mock.requestBodyBytes() - requestBytes;
    }

    private static void report(Map<Contestant, Tally> tallies, int rounds, int tasks) {
        Tally floor = tallies.values().iterator().next();
        System.out.printf(Locale.ROOT, "%d tasks per contestant (%d rounds of %d), 2 model requests per task%n%n",
                rounds * tasks, rounds, tasks);
        System.out.println("| contestant | task p50 µs | task p99 µs | added p50 µs/iter | added p99 µs/iter "
                + "| added alloc KiB/iter | added CPU µs/iter | new connections per 1k requests | request bytes |");
        System.out.println("|---|---|---|---|---|---|---|---|---|");
        Map<String, double[]> added = new LinkedHashMap<>();
        for (Map.Entry<Contestant, Tally> entry : tallies.entrySet()) {
            Tally tally = entry.getValue();
            int iterations = entry.getKey().iterationsPerTask();
            double p50 = tally.percentile(0.50) / 1e3;
            double p99 = tally.percentile(0.99) / 1e3;
            double addedP50 = (p50 - floor.percentile(0.50) / 1e3) / iterations;
            double addedP99 = (p99 - floor.percentile(0.99) / 1e3) / iterations;
            double addedAlloc = (tally.perTask(tally.allocated) - floor.perTask(floor.allocated)) / iterations / 1024;
            double addedCpu = (tally.perTask(tally.cpuNanos) - floor.perTask(floor.cpuNanos)) / iterations / 1e3;
            boolean isFloor = tally == floor;
            System.out.printf(Locale.ROOT, "| %s | %.0f | %.0f | %s | %s | %s | %s | %.1f | %.0f |%n",
                    entry.getKey().name(), p50, p99,
                    isFloor ? "0" : fixed(addedP50), isFloor ? "0" : fixed(addedP99),
                    isFloor ? "0" : fixed(addedAlloc), isFloor ? "0" : fixed(addedCpu),
                    1000.0 * tally.connections / Math.max(1, tally.requests),
                    (double) tally.requestBytes / Math.max(1, tally.requests));
            if (!isFloor) {
                added.put(entry.getKey().name(), new double[] {addedP50, addedP99, addedAlloc, addedCpu});
            }
        }
        List<String> names = new ArrayList<>(added.keySet());
        String last = names.getLast();
        System.out.println();
        for (String name : names.subList(0, names.size() - 1)) {
            double[] ours = added.get(name);
            double[] theirs = added.get(last);
            System.out.printf(Locale.ROOT, "%s / %s, added per iteration: time p50 %.2fx, p99 %.2fx, "
                            + "allocation %.2fx, CPU %.2fx%n", name, last,
                    ours[0] / theirs[0], ours[1] / theirs[1], ours[2] / theirs[2], ours[3] / theirs[3]);
        }
        // What tracing adds: each traced agent against the same agent untraced, in this run.
        for (String name : names) {
            String untraced = name.replace(", OpenTelemetry)", ")");
            if (!untraced.equals(name) && added.containsKey(untraced)) {
                double[] traced = added.get(name);
                double[] plain = added.get(untraced);
                System.out.printf(Locale.ROOT, "%s over %s, per iteration: time p50 %+.1f µs (%.2fx the untraced"
                                + " agent's added time), allocation %+.1f KiB, CPU %+.1f µs%n", name, untraced,
                        traced[0] - plain[0], traced[0] / plain[0], traced[2] - plain[2], traced[3] - plain[3]);
            }
        }
    }

    private static String fixed(double value) {
        return String.format(Locale.ROOT, "%.1f", value);
    }

    private static Map<String, String> options(String[] args) {
        Map<String, String> options = new LinkedHashMap<>(Map.of("rounds", "20", "tasks", "200", "warmup", "5",
                "mock", "lean", "contestants", String.join(",", UNTRACED), "failures", "stop", "opentelemetry", "0", "settle", "0"));
        for (int i = 0; i < args.length; i++) {
            String name = args[i].replaceFirst("^--", "");
            if (!(options.containsKey(name) || name.equals("concurrency")) || i + 1 >= args.length) {
                throw new IllegalArgumentException("usage: LoopComparison [--rounds N] [--tasks N] [--warmup N] "
                        + "[--mock lean,jdk-length,jdk-chunked|jdk-defaults,jdk-defaults-chunked|jdk-defaults-shared] [--concurrency 1,16,64,256 [--settle PERCENT]] [--contestants "
                        + String.join(",", CONTESTANTS) + "] [--failures stop|count] [--opentelemetry 1]; got " + args[i]);
            }
            options.put(name, args[++i]);
        }
        return options;
    }

    /** What one contestant's measured batches added up to. */
    private static final class Tally {
        final long[] durations;
        int count;
        long allocated;
        long cpuNanos;
        long connections;
        long requests;
        long requestBytes;

        Tally(int capacity) {
            durations = new long[capacity];
        }

        double percentile(double fraction) {
            long[] sorted = Arrays.copyOf(durations, count);
            Arrays.sort(sorted);
            return sorted[Math.min(count - 1, (int) Math.ceil(fraction * count) - 1)];
        }

        double perTask(long total) {
            return (double) total / count;
        }
    }

    /** The JVM's own counters: every thread's allocation, the process's CPU time. */
    private static final class Probes {
        private static final com.sun.management.ThreadMXBean THREADS =
                (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        private static final com.sun.management.OperatingSystemMXBean OS =
                (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();

        static long allocatedBytes() {
            return THREADS.getTotalThreadAllocatedBytes();
        }

        static long processCpuNanos() {
            return OS.getProcessCpuTime();
        }
    }
}
