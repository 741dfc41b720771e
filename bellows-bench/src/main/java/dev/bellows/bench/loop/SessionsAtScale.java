package dev.bellows.bench.loop;

import dev.bellows.agent.ToolMode;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.lang.management.ThreadMXBean;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Many agent sessions at once in one JVM (BENCHMARKS.md, "Sessions at scale"): N sessions,
 * each on its own virtual thread, each running a three-step task (two calls of {@code add},
 * then the answer) against a {@link LeanMock} whose answers arrive in bursts with a pause
 * between them, as a model's tokens do. The mock runs in a JVM of its own
 * ({@link MockProcess}), started and stopped here, so it shares no heap, threads or
 * collector with the sessions. All N start together, after 5 s of warm-up tasks and one
 * untimed batch of N that opens the connections (a long-running service has them open).
 *
 * <p>Reported per contestant and N: throughput (tasks per second of the whole batch), the
 * requests per second the mock served and the CPU it and the harness used meanwhile (cores:
 * CPU seconds per second), the p50 and p99 latency a session adds to the model's own time
 * (the pauses it must wait for), how many of the harness's and the mock's threads were on
 * average ready to run but waiting for a CPU ({@link RunQueue}: on a shared machine, the
 * part of the latency no code here can remove) and, when the floor ran too, that minus the floor's at the
 * same N (what the framework adds), the heap per session (heap used after a full collection
 * while every session is waiting in the middle of an answer, minus the heap before the batch,
 * over N; and minus the heap before the first batch opened the connections, so with each
 * session's share of the idle connections), the peak number of platform threads and the connections opened during the timed
 * batch. Run it with the heap the target names ({@code -Xmx2g}): a batch that does not fit
 * fails with {@code OutOfMemoryError}.
 *
 * <pre>
 * java -Xmx2g -cp bellows-bench/target/benchmarks.jar dev.bellows.bench.loop.SessionsAtScale \
 *     [--sessions 100,1000,10000] [--contestants floor,bellows-tags,bellows-native] [--pause-ms 50] \
 *     [--mock lean|jdk-length|jdk-chunked] [--mock-heap 1g] [--mock-cpus 1] [--batch-timeout-s 300] \
 *     [--histogram true]
 * </pre>
 * {@code --mock} picks the model: the lean mock (the default), or the JDK's own HTTP server
 * answering with a {@code Content-Length} or chunked ({@link JdkServerMock}).
 * Contestants: {@code floor}, {@code floor-default-client} (the floor on
 * {@code HttpClient.newHttpClient()} as it comes), {@code bellows-tags}, {@code bellows-native},
 * {@code langchain4j}. {@code --mock-cpus} pins the mock with {@code taskset -c}; start the
 * harness under {@code taskset -c} too to give each its own cores.
 */
public final class SessionsAtScale {

    private static final int TOOL_CALLS = 2;
    private static final int BURSTS = 3;
    private static final int REQUESTS_PER_TASK = TOOL_CALLS + 1;
    /** With {@code --histogram true}: what a waiting session holds, class by class. */
    private static boolean histogram;

    private SessionsAtScale() {
    }

    public static void main(String[] args) throws Exception {
        int[] sizes = {100, 1000, 10_000};
        long pauseMillis = 50;
        List<String> contestants = List.of("floor", "bellows-tags", "bellows-native");
        String mockName = "lean";
        String mockHeap = "1g";
        String mockCpus = null;
        long timeoutSeconds = 300;
        for (int i = 0; i < args.length; i += 2) {
            if (i + 1 >= args.length) {
                throw new IllegalArgumentException("option " + args[i] + " needs a value");
            }
            String value = args[i + 1];
            switch (args[i]) {
                case "--sessions" -> sizes = Arrays.stream(value.split(",")).mapToInt(Integer::parseInt).toArray();
                case "--pause-ms" -> pauseMillis = Long.parseLong(value);
                case "--contestants", "--contestant" -> contestants = List.of(value.split(","));
                case "--mock" -> mockName = value;
                case "--mock-heap" -> mockHeap = value;
                case "--mock-cpus" -> mockCpus = value;
                case "--batch-timeout-s" -> timeoutSeconds = Long.parseLong(value);
                case "--histogram" -> histogram = Boolean.parseBoolean(value);
                default -> throw new IllegalArgumentException("unknown option " + args[i]);
            }
        }
        for (String name : contestants) {
            contestant(name, "http://127.0.0.1:1/v1").close(); // an unknown name fails now, not after minutes
        }
        long modelMillis = (long) REQUESTS_PER_TASK * (BURSTS - 1) * pauseMillis;
        System.out.printf(Locale.ROOT, "a task is %d requests of %d bursts, %d ms apart: %d ms of model time; "
                        + "harness max heap %d MiB, %d cores, JDK %s; mock (%s) in its own JVM, -Xmx%s%s%n%n",
                REQUESTS_PER_TASK, BURSTS, pauseMillis, modelMillis, Runtime.getRuntime().maxMemory() >> 20,
                Runtime.getRuntime().availableProcessors(), Runtime.version(), mockName, mockHeap,
                mockCpus == null ? "" : ", taskset -c " + mockCpus);
        for (String name : contestants) {
            warmUp(name, mockName, mockHeap, mockCpus);
        }
        System.out.println("| contestant | sessions | tasks/s | mock requests/s | mock CPU cores | harness CPU cores "
                + "| CPU µs per request, harness / mock | threads waiting for a CPU, harness / mock "
                + "| added p50 ms | added p99 ms | p50 minus floor ms | p99 minus floor ms | heap per session KiB "
                + "| with its connection KiB | peak platform threads | new connections |");
        System.out.println("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|");
        Map<String, Row> rows = new LinkedHashMap<>();
        try (MockProcess mock = new MockProcess(mockName, TOOL_CALLS, BURSTS, pauseMillis, mockHeap, mockCpus)) {
            for (int sessions : sizes) {
                for (String name : contestants) {
                    Row row = measure(name, sessions, mock, modelMillis, timeoutSeconds);
                    rows.put(name + "@" + sessions, row);
                    System.out.println(row.format(rows.get("floor@" + sessions)));
                }
            }
        }
        explainHardware(rows, sizes, modelMillis);
    }

    /** One contestant at one N: the opening batch, the timed one and the weighed one. */
    private static Row measure(String name, int sessions, MockProcess mock, long modelMillis, long timeoutSeconds)
            throws Exception {
        awaitClosedClients();
        Contestant contestant = contestant(name, mock.baseUrl());
        try {
            long heapWithoutConnections = settledHeap();
            Map<String, long[]> classesWithoutConnections = histogram ? HeapHistogram.take() : null;
            Batch opening = runBatch(sessions, contestant, mock, false, timeoutSeconds);
            if (opening == null) {
                return Row.unfinished(name, sessions, timeoutSeconds);
            }
            if (histogram) {
                System.out.print(name + ", after the first batch (the connections open, every session ended):");
                HeapHistogram.printGrowth(classesWithoutConnections, HeapHistogram.take(), sessions);
            }
            Batch timed = runBatch(sessions, contestant, mock, false, timeoutSeconds);
            if (timed == null) {
                return Row.unfinished(name, sessions, timeoutSeconds);
            }
            Batch weighed = runBatch(sessions, contestant, mock, true, timeoutSeconds);
            if (weighed == null) {
                return Row.unfinished(name, sessions, timeoutSeconds);
            }
            long[] added = Arrays.stream(timed.durations).map(d -> d - modelMillis * 1_000_000).sorted().toArray();
            return new Row(name, sessions, sessions / timed.seconds, timed.requests / timed.seconds,
                    timed.mockCpuNanos / 1e9 / timed.seconds, timed.harnessCpuNanos / 1e9 / timed.seconds,
                    timed.harnessWaitNanos / 1e9 / timed.seconds, timed.mockWaitNanos / 1e9 / timed.seconds,
                    timed.mockCpuNanos / 1e3 / timed.requests, timed.harnessCpuNanos / 1e3 / timed.requests,
                    added[(int) Math.ceil(0.50 * sessions) - 1] / 1e6, added[(int) Math.ceil(0.99 * sessions) - 1] / 1e6,
                    weighed.heapBytes / 1024.0 / sessions,
                    (weighed.heapDuring - heapWithoutConnections) / 1024.0 / sessions, timed.peakThreads,
                    timed.newConnections, null);
        } finally {
            contestant.close();
        }
    }

    /**
     * Waits (up to a minute) until no JDK HTTP client is left running: a closed client's
     * selector thread still holds its connections for a while, and would count in the next
     * contestant's baseline.
     */
    private static void awaitClosedClients() throws InterruptedException {
        long end = System.nanoTime() + 60_000_000_000L;
        while (System.nanoTime() < end && Thread.getAllStackTraces().keySet().stream()
                .anyMatch(thread -> thread.getName().endsWith("-SelectorManager"))) {
            Thread.sleep(100);
        }
    }

    /**
     * The heap after full collections, once the previous contestant's client has let go of
     * its connections (its selector thread closes them after {@code close} returns): two
     * readings half a second apart within 1 MiB, or the last of 20 s of tries.
     */
    private static long settledHeap() throws InterruptedException {
        long previous = Long.MAX_VALUE;
        for (int round = 0; round < 40; round++) {
            System.gc();
            long used = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
            if (Math.abs(previous - used) < (1 << 20)) {
                return used;
            }
            previous = used;
            Thread.sleep(500);
        }
        return previous;
    }

    /**
     * What the hardware allows: the requests per second N sessions ask for when nothing is
     * added to the model's time, and the cores the mock and the floor's client need for them
     * at the least CPU per request the floor was measured with; and the least a batch of N can
     * take on this machine's cores at that CPU, whatever is added.
     */
    private static void explainHardware(Map<String, Row> rows, int[] sizes, long modelMillis) {
        // The floor's cheapest requests (usually at the largest N, where every wake-up serves
        // many): the figure most in favour of the target.
        Row basis = rows.values().stream().filter(row -> row.name.equals("floor") && row.unfinished == null)
                .min(java.util.Comparator.comparingDouble(row -> row.mockMicrosPerRequest + row.harnessMicrosPerRequest))
                .orElse(null);
        if (basis == null) {
            return;
        }
        System.out.printf(Locale.ROOT, "%nAt the least CPU per request the floor was measured with (%,d sessions: "
                + "mock %.0f µs, floor's client %.0f µs), no added latency would need:%n", basis.sessions,
                basis.mockMicrosPerRequest, basis.harnessMicrosPerRequest);
        int cores = Runtime.getRuntime().availableProcessors();
        System.out.println("| sessions | requests/s | mock cores | floor client cores | total cores "
                + "| least batch time on " + cores + " cores, ms | least added p99, ms |");
        System.out.println("|---|---|---|---|---|---|---|");
        for (int sessions : sizes) {
            double rate = sessions * REQUESTS_PER_TASK * 1000.0 / modelMillis;
            double mockCores = rate * basis.mockMicrosPerRequest / 1e6;
            double clientCores = rate * basis.harnessMicrosPerRequest / 1e6;
            double batchMillis = (double) sessions * REQUESTS_PER_TASK
                    * (basis.mockMicrosPerRequest + basis.harnessMicrosPerRequest) / 1e3 / cores;
            System.out.printf(Locale.ROOT, "| %,d | %,.0f | %.2f | %.2f | %.2f | %,.0f | %,.0f |%n", sessions, rate,
                    mockCores, clientCores, mockCores + clientCores, batchMillis,
                    // 99% of the tasks cannot end before 99% of the work is done.
                    Math.max(0, 0.99 * batchMillis - modelMillis));
        }
    }

    private record Row(String name, int sessions, double tasksPerSecond, double requestsPerSecond, double mockCores,
            double harnessCores, double harnessWaiting, double mockWaiting, double mockMicrosPerRequest,
            double harnessMicrosPerRequest, double addedP50, double addedP99, double heapKibPerSession,
            double heapKibWithConnection, int peakThreads, long newConnections, String unfinished) {

        static Row unfinished(String name, int sessions, long timeoutSeconds) {
            return new Row(name, sessions, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
                    "did not finish in " + timeoutSeconds + " s");
        }

        String format(Row floor) {
            if (unfinished != null) {
                return String.format(Locale.ROOT, "| %s | %,d | %s | | | | | | | | | | | | | |", name, sessions, unfinished);
            }
            boolean against = floor != null && floor.unfinished == null && floor != this;
            return String.format(Locale.ROOT, "| %s | %,d | %,.0f | %,.0f | %.2f | %.2f | %,.0f / %,.0f | %.2f / %.2f "
                            + "| %,.1f | %,.1f | %s | %s "
                            + "| %.1f | %.1f | %d | %d |", name, sessions, tasksPerSecond, requestsPerSecond, mockCores,
                    harnessCores, harnessMicrosPerRequest, mockMicrosPerRequest, harnessWaiting, mockWaiting,
                    addedP50, addedP99,
                    against ? String.format(Locale.ROOT, "%,.1f", addedP50 - floor.addedP50) : "",
                    against ? String.format(Locale.ROOT, "%,.1f", addedP99 - floor.addedP99) : "",
                    heapKibPerSession, heapKibWithConnection, peakThreads, newConnections);
        }
    }

    /** Compiles the hot paths first: a few seconds of tasks, 8 at a time, without pauses. */
    private static void warmUp(String contestantName, String mockName, String mockHeap, String mockCpus)
            throws Exception {
        try (MockProcess mock = new MockProcess(mockName, TOOL_CALLS, BURSTS, 0, mockHeap, mockCpus);
                Contestant contestant = contestant(contestantName, mock.baseUrl())) {
            long end = System.nanoTime() + 5_000_000_000L;
            List<Thread> workers = new ArrayList<>();
            AtomicReference<Throwable> failure = new AtomicReference<>();
            for (int worker = 0; worker < 8; worker++) {
                workers.add(Thread.ofVirtual().start(() -> {
                    try {
                        while (System.nanoTime() < end) {
                            contestant.runTask();
                        }
                    } catch (Throwable t) {
                        failure.compareAndSet(null, t);
                    }
                }));
            }
            for (Thread worker : workers) {
                worker.join();
            }
            if (failure.get() != null) {
                throw new IllegalStateException(contestantName + ": warm-up failed", failure.get());
            }
        }
    }

    private static Contestant contestant(String name, String baseUrl) {
        return switch (name) {
            case "bellows", "bellows-tags" -> new BellowsAgent(baseUrl, ToolMode.TAGS);
            case "bellows-native" -> new BellowsAgent(baseUrl, ToolMode.NATIVE);
            case "floor" -> new Floor(baseUrl);
            case "floor-default-client" -> new Floor(baseUrl, true);
            case "langchain4j" -> new LangChain4jStreaming(baseUrl);
            default -> throw new IllegalArgumentException("unknown contestant " + name);
        };
    }

    private record Batch(long[] durations, double seconds, long requests, long mockCpuNanos, long harnessCpuNanos,
            long harnessWaitNanos, long mockWaitNanos, long newConnections, long heapBytes, long heapDuring, int peakThreads) {
    }

    /**
     * Runs N sessions at once, or returns null when they do not all end within the time-out
     * (they are interrupted then). With {@code weigh}, a full collection in the middle
     * measures the heap the sessions hold; its pause delays them all, so such a batch is not
     * timed.
     */
    private static Batch runBatch(int sessions, Contestant contestant, MockProcess mock, boolean weigh,
            long timeoutSeconds) throws Exception {
        MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        com.sun.management.OperatingSystemMXBean os =
                (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
        System.gc();
        long heapBefore = memory.getHeapMemoryUsage().getUsed();
        Map<String, long[]> classesBefore = weigh && histogram ? HeapHistogram.take() : null;
        threads.resetPeakThreadCount();
        Map<String, Long> statsBefore = mock.stats();
        long[] durations = new long[sessions];
        CountDownLatch start = new CountDownLatch(1);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        List<Thread> running = new ArrayList<>(sessions);
        for (int session = 0; session < sessions; session++) {
            int index = session;
            running.add(Thread.ofVirtual().start(() -> {
                try {
                    start.await();
                    long began = System.nanoTime();
                    String answer = contestant.runTask();
                    durations[index] = System.nanoTime() - began;
                    if (!LeanMock.FINAL_ANSWER.equals(answer)) {
                        throw new IllegalStateException("answered " + answer);
                    }
                } catch (Throwable t) {
                    failure.compareAndSet(null, t);
                }
            }));
        }
        long mockCpuBefore = mock.cpuNanos();
        long harnessCpuBefore = os.getProcessCpuTime();
        long mockWaitBefore = RunQueue.waitedNanos(mock.pid());
        long harnessWaitBefore = RunQueue.waitedNanos(ProcessHandle.current().pid());
        long began = System.nanoTime();
        start.countDown();
        long heapDuring = heapBefore;
        if (weigh) {
            // Every session has sent its first request and waits for the rest of an answer:
            // the moment to weigh what a session holds.
            long requestsBefore = statsBefore.get("requests");
            while (mock.requests() - requestsBefore < sessions && failure.get() == null
                    && System.nanoTime() - began < timeoutSeconds * 1_000_000_000L) {
                Thread.sleep(5);
            }
            System.gc();
            heapDuring = memory.getHeapMemoryUsage().getUsed();
            if (classesBefore != null) {
                HeapHistogram.printGrowth(classesBefore, HeapHistogram.take(), sessions);
            }
        }
        long deadline = began + timeoutSeconds * 1_000_000_000L;
        for (Thread thread : running) {
            long left = deadline - System.nanoTime();
            if (left <= 0 || !thread.join(java.time.Duration.ofNanos(left))) {
                running.forEach(Thread::interrupt);
                return null;
            }
        }
        double seconds = (System.nanoTime() - began) / 1e9;
        long harnessCpu = os.getProcessCpuTime() - harnessCpuBefore;
        long mockCpu = mock.cpuNanos() - mockCpuBefore;
        long harnessWait = RunQueue.waitedNanos(ProcessHandle.current().pid()) - harnessWaitBefore;
        long mockWait = RunQueue.waitedNanos(mock.pid()) - mockWaitBefore;
        if (failure.get() != null) {
            throw new IllegalStateException(sessions + " sessions: a task failed", failure.get());
        }
        Map<String, Long> statsAfter = mock.stats();
        return new Batch(durations, seconds, statsAfter.get("requests") - statsBefore.get("requests"), mockCpu,
                harnessCpu, harnessWaitBefore < 0 ? -1 : harnessWait, mockWaitBefore < 0 ? -1 : mockWait,
                statsAfter.get("connections") - statsBefore.get("connections"),
                Math.max(0, heapDuring - heapBefore), heapDuring, threads.getPeakThreadCount());
    }
}
