package dev.bellows.bench.loop;

import dev.bellows.agent.AgentResult;
import dev.bellows.agent.DefaultAgent;
import dev.bellows.agent.Session;
import dev.bellows.eval.Dataset;
import dev.bellows.eval.EvalReport;
import dev.bellows.eval.EvalProgress;
import dev.bellows.eval.EvalRunner;
import dev.bellows.eval.RunProbe;
import dev.bellows.eval.report.ReportFiles;
import dev.bellows.openai.OpenAiProvider;
import dev.bellows.tool.ToolRegistry;
import dev.bellows.tool.ToolResult;
import dev.bellows.tool.TypedTool;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;

/**
 * What the evaluation harness costs ({@code bellows eval}, issue 35): a dataset of N cases
 * (default 1,000) against the loop harnesses' mock model at concurrency C (default 16), run
 * two ways in one JVM, against one mock and one provider:
 *
 * <ul>
 *   <li><b>plain</b>: the same runs without the harness, a loop of C threads each taking the
 *       next case and running {@code agent.run(task, new Session()).await()} on one agent built
 *       once, checking that the run ended with an answer;</li>
 *   <li><b>harness</b>: what {@code bellows eval} does: the dataset read from its JSONL file,
 *       {@link EvalRunner} at concurrency C (one agent built once with the token counter,
 *       {@link RunProbe#counter()}, a fresh session a run, as {@code bellows eval} builds it;
 *       each run scored by the case's evaluators: contains, the tool trajectory, max
 *       iterations, no tool errors; its events written to {@code events.jsonl}), and
 *       {@code report.json}, {@code junit.xml} and {@code report.html} written as the runs go
 *       (each case's parts once its runs have ended, the totals after the last), as
 *       {@code bellows eval} writes them.</li>
 * </ul>
 *
 * <p>The mock ({@link JdkServerMock}, the JDK's HTTP server on 127.0.0.1, {@code Content-Length}
 * framing) answers every task the same way with no delay: a {@code <tool>} call of {@code add}
 * with 2 and 3, then, once {@code sum=5} is in the conversation, a {@code task_completion} with
 * "The sum is 5." ({@link MockAnswers}): two model calls per run. The machine is the bottleneck,
 * so what the harness adds shows in full. {@code --warmup} rounds of both come first and are not
 * counted; then {@code --rounds} measured rounds, the order of the ways rotating. Printed: each
 * batch's wall time and the process's CPU time, the medians (wall time: the median batch's;
 * CPU: the median of the batches'), each way's ratio to plain and spread, and last a line
 * {@code RESULT} with the harness's ratio to plain, medians against medians. {@code --breakdown 1}
 * adds ways that say where the harness's time goes; {@code --ways a,b} runs only those (and
 * plain), e.g. to profile the harness alone. {@code --settle P} (percent, 0 by default: off)
 * prolongs the warm-up, as {@link LoopComparison}'s does, past its {@code --warmup} rounds until
 * a warm-up round (every way once) left the JIT compiler's threads at most P% of the process's
 * CPU (at most {@link UnderLoad#MAX_WARMUP_ROUNDS} rounds): the measured rounds then read the
 * settled code, not the compiler compiling the harness's larger share of it.
 *
 * <pre>
 * java -cp bellows-bench/target/benchmarks.jar dev.bellows.bench.loop.EvalOverhead \
 *     [--cases 1000] [--concurrency 16] [--rounds 3] [--warmup 1] [--breakdown 0] [--ways harness]
 *     [--settle 5]
 * </pre>
 */
public final class EvalOverhead {

    private static final Map<String, String> DEFAULTS = Map.of("cases", "1000", "concurrency", "16", "rounds", "3", "warmup", "1",
            "breakdown", "0", "ways", "", "settle", "0");

    private EvalOverhead() {
    }

    record Batch(long wallNanos, long cpuNanos, long runNanos, long allocatedBytes) {
        Batch(long wallNanos, long cpuNanos, long runNanos) {
            this(wallNanos, cpuNanos, runNanos, 0);
        }

        /** This batch with what every thread allocated during it (the mock's share alike in every way). */
        Batch allocated(long bytes) {
            return new Batch(wallNanos, cpuNanos, runNanos, bytes);
        }
    }

    /** One way of running the cases; {@code out} is an empty folder of its own. */
    interface Way {
        Batch run(Path out) throws Exception;
    }

    public static void main(String[] args) throws Exception {
        Map<String, String> options = new LinkedHashMap<>(DEFAULTS);
        for (int i = 0; i + 1 < args.length; i += 2) {
            String name = args[i].replaceFirst("^--", "");
            if (!DEFAULTS.containsKey(name)) {
                throw new IllegalArgumentException("options are " + DEFAULTS.keySet() + ", not " + args[i]);
            }
            options.put(name, args[i + 1]);
        }
        int cases = Integer.parseInt(options.get("cases"));
        int concurrency = Integer.parseInt(options.get("concurrency"));
        int rounds = Integer.parseInt(options.get("rounds"));
        int warmup = Integer.parseInt(options.get("warmup"));
        double settle = Double.parseDouble(options.get("settle"));
        Path work = Files.createTempDirectory("eval-overhead");
        Path dataset = writeDataset(work.resolve("dataset.jsonl"), cases);
        System.out.printf(Locale.ROOT, "EvalOverhead: %,d cases, concurrency %d, %d warm-up%s + %d measured rounds; JDK %s, %d CPUs%n",
                cases, concurrency, warmup, settle > 0 ? String.format(Locale.ROOT, " (more until the JIT is at most %.1f%% of a round's CPU)",
                        settle) : "", rounds, Runtime.version(), Runtime.getRuntime().availableProcessors());
        try (JdkServerMock mock = JdkServerMock.start(JdkServerMock.Framing.LENGTH, 1, 1, 0);
             OpenAiProvider provider = OpenAiProvider.builder().baseUrl(mock.baseUrl()).build()) {
            ToolRegistry tools = new ToolRegistry().register(TypedTool.of("add", "Adds two integers", BellowsAgent.AddArguments.class,
                    (context, arguments) -> ToolResult.of("sum=" + (arguments.a() + arguments.b()))));
            DefaultAgent agent = DefaultAgent.builder().provider(provider).model("mock").toolRegistry(tools).build();
            Map<String, Way> ways = new LinkedHashMap<>();
            ways.put("plain", out -> plain(agent, null, cases, concurrency));
            ways.put("harness", out -> harness(dataset, out, provider, tools, concurrency, true));
            if (!options.get("breakdown").equals("0")) {
                // where the harness's time goes: an agent built per run (as the runner once did), then the runner
                // without the events file or reports
                ways.put("plain, an agent per run", out -> plain(null, () -> DefaultAgent.builder().provider(provider).model("mock")
                        .toolRegistry(tools).build(), cases, concurrency));
                ways.put("runner alone (no files)", out -> harness(dataset, null, provider, tools, concurrency, false));
                // the runner without the token counter (no interceptor on the model's stream): what counting costs
                ways.put("runner without token counter", out -> harness(dataset, null, provider, tools, concurrency, false, false, false));
                // the runner with its events file and no report files: the events' share apart from the reports'
                ways.put("runner and events.jsonl", out -> harness(dataset, out, provider, tools, concurrency, false));
                ways.put("harness, an agent per run", out -> harness(dataset, out, provider, tools, concurrency, true, true));
            }
            if (!options.get("ways").isEmpty()) {
                // only these (plain always, for the ratio): e.g. to profile the harness alone
                List<String> only = List.of(options.get("ways").split(","));
                ways.keySet().removeIf(name -> !name.equals("plain") && !only.contains(name));
            }
            Map<String, List<Batch>> measured = new LinkedHashMap<>();
            List<String> names = new ArrayList<>(ways.keySet());
            double jitShare = Double.NaN;
            double[] load = {Double.MAX_VALUE, 0};
            for (int round = 0; round < warmup + rounds; round++) {
                long roundCpu = UnderLoad.Probes.processCpuNanos();
                long roundJit = UnderLoad.Probes.vmThreadCpuNanos()[0];
                for (int turn = 0; turn < names.size(); turn++) {
                    String name = names.get((turn + round) % names.size());      // the order rotates every round
                    Path out = Files.createDirectories(work.resolve("out-" + round + "-" + turn));
                    long allocated = UnderLoad.Probes.allocatedBytes();
                    Batch batch = ways.get(name).run(out);
                    batch = batch.allocated(UnderLoad.Probes.allocatedBytes() - allocated);
                    print(round, round >= warmup, name, batch);
                    if (round >= warmup) {
                        measured.computeIfAbsent(name, k -> new ArrayList<>()).add(batch);
                    }
                    delete(out);
                }
                double average = ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
                if (round < warmup) {
                    // the compiler's share of this round: with --settle, warm up until it is small
                    jitShare = 100.0 * (UnderLoad.Probes.vmThreadCpuNanos()[0] - roundJit)
                            / Math.max(1, UnderLoad.Probes.processCpuNanos() - roundCpu);
                    warmup = UnderLoad.warmRoundsAfter(round, warmup, jitShare, settle);
                    System.out.printf(Locale.ROOT, "warmup %d  JIT %.1f%% of the round's CPU, load average %.1f%s%n", round + 1, jitShare,
                            average, round < warmup - 1 ? "" : settle > 0 && !(jitShare <= settle) ? "; not settled, the cap of "
                                    + UnderLoad.MAX_WARMUP_ROUNDS + " rounds reached" : "; measuring from here");
                } else {
                    load[0] = Math.min(load[0], average);
                    load[1] = Math.max(load[1], average);
                }
            }
            System.out.printf(Locale.ROOT, "warm-up %d rounds, the last with the JIT at %.1f%% of its CPU%s; load average %.1f to %.1f"
                    + " over the measured rounds%n", warmup, jitShare, settle > 0 ? String.format(Locale.ROOT, " (--settle %.1f)", settle)
                    : "", load[0], load[1]);
            Batch p = median(measured.get("plain"));
            for (String name : names) {
                Batch m = median(measured.get(name));
                System.out.printf(Locale.ROOT, "median  %-24s %7.0f ms wall%s, %7.0f ms CPU, %5.1f KiB allocated a case: %.2fx plain's wall,"
                                + " %.2fx its CPU%n", name,
                        m.wallNanos / 1e6, m.runNanos == m.wallNanos ? "" : String.format(Locale.ROOT, " (runs %.0f, files after the last run %.0f)",
                                m.runNanos / 1e6, (m.wallNanos - m.runNanos) / 1e6),
                        m.cpuNanos / 1e6, m.allocatedBytes / 1024.0 / cases, (double) m.wallNanos / p.wallNanos, (double) m.cpuNanos / p.cpuNanos);
            }
            for (String name : names) {
                List<Batch> all = measured.get(name);
                System.out.printf(Locale.ROOT, "spread  %-24s %7.0f to %.0f ms wall over %d rounds%n", name,
                        all.stream().mapToLong(Batch::wallNanos).min().getAsLong() / 1e6,
                        all.stream().mapToLong(Batch::wallNanos).max().getAsLong() / 1e6, all.size());
            }
            Batch h = median(measured.get("harness"));
            double ratio = (double) h.wallNanos / p.wallNanos;
            System.out.printf(Locale.ROOT, "RESULT  harness / plain, medians of %d rounds: %.2fx wall (%.0f ms / %.0f ms), %.2fx CPU;"
                            + " target 1.20x: %s%n", rounds, ratio, h.wallNanos / 1e6, p.wallNanos / 1e6,
                    (double) h.cpuNanos / p.cpuNanos, ratio <= 1.2 ? "met" : "not met");
        } finally {
            delete(work);
        }
    }

    /** The cases: the comparison's task, numbered, each checked the way a team would check it. */
    static Path writeDataset(Path file, int cases) throws IOException {
        StringBuilder lines = new StringBuilder();
        for (int i = 1; i <= cases; i++) {
            lines.append(String.format(Locale.ROOT, "{\"id\": \"sum-%04d\", \"input\": \"%s (case %d)\", \"tags\": [\"math\"], "
                    + "\"expect\": {\"contains\": \"5\", \"tools\": {\"match\": \"superset\", \"calls\": [{\"name\": \"add\","
                    + " \"arguments\": {\"a\": 2}}]}, \"max_iterations\": 4, \"no_tool_errors\": true}}%n", i, LoopComparison.TASK, i));
        }
        return Files.writeString(file, lines);
    }

    /** The runs without the harness: {@code shared}, or an agent from {@code perRun} for every run. */
    static Batch plain(DefaultAgent shared, java.util.function.Supplier<DefaultAgent> perRun, int cases, int concurrency)
            throws Exception {
        long cpu = cpu();
        long start = System.nanoTime();
        AtomicInteger next = new AtomicInteger();
        List<Future<Void>> workers = new ArrayList<>();
        try (ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor()) {
            for (int w = 0; w < concurrency; w++) {
                workers.add(threads.submit(() -> {
                    for (int i = next.incrementAndGet(); i <= cases; i = next.incrementAndGet()) {
                        DefaultAgent agent = shared != null ? shared : perRun.get();
                        AgentResult result = agent.run(LoopComparison.TASK + " (case " + i + ")", new Session()).await();
                        if (!result.reason().successful()) {
                            throw new IllegalStateException("the run ended " + result.reason() + ": " + result.result());
                        }
                    }
                    return null;
                }));
            }
            for (Future<Void> worker : workers) {
                worker.get();
            }
        }
        long wall = System.nanoTime() - start;
        return new Batch(wall, cpu() - cpu, wall);
    }

    /** {@code bellows eval}'s work; without {@code reports}, the runner alone (and with {@code out} null, no events files). */
    static Batch harness(Path dataset, Path out, OpenAiProvider provider, ToolRegistry tools, int concurrency, boolean reports)
            throws Exception {
        return harness(dataset, out, provider, tools, concurrency, reports, false);
    }

    /** As above; {@code perRun}: an agent built for every run with the run's probe, as the runner's factories once did. */
    static Batch harness(Path dataset, Path out, OpenAiProvider provider, ToolRegistry tools, int concurrency, boolean reports,
                         boolean perRun) throws Exception {
        return harness(dataset, out, provider, tools, concurrency, reports, perRun, true);
    }

    /** As above; without {@code counted}, the shared agent has no token counter (the runs' tokens unknown). */
    static Batch harness(Path dataset, Path out, OpenAiProvider provider, ToolRegistry tools, int concurrency, boolean reports,
                         boolean perRun, boolean counted) throws Exception {
        long cpu = cpu();
        long start = System.nanoTime();
        // as bellows eval does: the agent built once, with the token counter, shared by every run
        var builder = DefaultAgent.builder().provider(provider).model("mock").toolRegistry(tools);
        DefaultAgent agent = (counted ? builder.modelInterceptor(RunProbe.counter()) : builder).build();
        long[] lastRun = new long[1];
        EvalReport report = EvalRunner.builder((evalCase, probe) -> perRun ? probe.install(DefaultAgent.builder()
                        .provider(provider).model("mock").toolRegistry(tools)).build() : agent)
                .concurrency(concurrency).outputDirectory(out).agentName("bench").model("mock")
                .reportFiles(reports ? ReportFiles::open : null) // as bellows eval does: the report files written as the runs go
                .progress(new EvalProgress() {
                    @Override
                    public void finished(String caseId, int index, boolean passed, int done, int runs) {
                        if (done == runs) {
                            lastRun[0] = System.nanoTime();     // what follows is the last case's parts and the files' joining
                        }
                    }
                })
                .build()
                .run(Dataset.read(dataset));
        long end = System.nanoTime();
        if (!report.passed()) {
            throw new IllegalStateException(report.summary().failed() + " cases failed: the mock or the dataset is wrong");
        }
        return new Batch(end - start, cpu() - cpu, reports ? lastRun[0] - start : end - start);
    }

    private static void print(int round, boolean measured, String name, Batch batch) {
        System.out.printf(Locale.ROOT, "%s %d  %-24s %8.0f ms wall, %8.0f ms CPU, %6.1f MiB allocated%s%n", measured ? "round " : "warmup",
                round + 1, name, batch.wallNanos / 1e6, batch.cpuNanos / 1e6, batch.allocatedBytes / 1048576.0, batch.runNanos == batch.wallNanos ? ""
                        : String.format(Locale.ROOT, " (runs %.0f ms, files after the last run %.0f ms)", batch.runNanos / 1e6,
                                (batch.wallNanos - batch.runNanos) / 1e6));
    }

    /**
     * The batch of the median wall time, with the medians of the batches' CPU times and allocations (on a busy machine
     * they vary apart).
     */
    private static Batch median(List<Batch> batches) {
        List<Batch> sorted = new ArrayList<>(batches);
        sorted.sort(Comparator.comparingLong(Batch::wallNanos));
        Batch middle = sorted.get(sorted.size() / 2);
        long[] cpu = batches.stream().mapToLong(Batch::cpuNanos).sorted().toArray();
        long[] allocated = batches.stream().mapToLong(Batch::allocatedBytes).sorted().toArray();
        return new Batch(middle.wallNanos, cpu[cpu.length / 2], middle.runNanos, allocated[allocated.length / 2]);
    }

    /** The process's CPU time so far, all threads (the mock's share counts alike for both). */
    private static long cpu() {
        return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean()).getProcessCpuTime();
    }

    private static void delete(Path dir) throws IOException {
        try (Stream<Path> files = Files.walk(dir)) {
            for (Path file : files.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(file);
            }
        }
    }

    static {
        // as LoopComparison: the client's idle connections kept while the other way takes its turn
        if (System.getProperty("jdk.httpclient.keepalive.timeout") == null) {
            System.setProperty("jdk.httpclient.keepalive.timeout", "600");
        }
    }
}
