package dev.bellows.bench.loop;

import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The loop comparison under load ({@code LoopComparison --concurrency ...}): the same task
 * and contestants as {@link LoopComparison}, with C tasks at once, each on a virtual thread of
 * its own that takes the next task as soon as its last one ended, against a mock that answers
 * with no delay: the machine is the bottleneck, and what a framework costs shows up as tasks
 * per second.
 *
 * <p>For each mock and each C, contestants take turns in batches of {@code --tasks} tasks (at
 * least 16 per task at once, so that the start and the end of a batch, when fewer than C run,
 * weigh little), the order rotating every round; {@code --warmup} rounds come first and are not counted (they
 * also open the connections a long-running service keeps). Reported per contestant over the
 * measured rounds: tasks per second (tasks over the summed wall time of its batches), the
 * process's CPU time and allocation per task (the in-process mock's share is in every
 * contestant's figure alike), the p50 and p99 of a task's time, and the connections the mock
 * saw opened during the measured batches. Then, for each Bellows contestant, its ratios to
 * LangChain4j and to the floor in the same run, and at 64 or more tasks at once whether
 * issue 20's targets are met ({@link #verdict}).
 */
final class UnderLoad {

    /** The mocks by name, as {@code --mock} takes them. */
    static ModelMock mock(String name) throws java.io.IOException {
        return switch (name) {
            case "lean" -> new LeanMock();
            case "jdk-length" -> JdkServerMock.start(JdkServerMock.Framing.LENGTH, 1, 1, 0);
            case "jdk-chunked" -> JdkServerMock.start(JdkServerMock.Framing.CHUNKED, 1, 1, 0);
            case DEFAULTS, DEFAULTS_SHARED -> JdkServerMock.withDefaults(JdkServerMock.Framing.LENGTH);
            case DEFAULTS_CHUNKED -> JdkServerMock.withDefaults(JdkServerMock.Framing.CHUNKED);
            default -> throw new IllegalArgumentException("mock is lean, jdk-length, jdk-chunked, " + DEFAULTS
                    + ", " + DEFAULTS_SHARED + " or " + DEFAULTS_CHUNKED + ", not " + name);
        };
    }

    /**
     * The JDK server with its own defaults (at most 200 idle connections, 30 s idle, Nagle's
     * algorithm on), answering with a {@code Content-Length}: one server for each contestant,
     * so that the connections a client keeps count against its own server's limit only.
     */
    static final String DEFAULTS = "jdk-defaults";
    /** The same, one server for all contestants: their idle connections add up against its limit. */
    static final String DEFAULTS_SHARED = "jdk-defaults-shared";
    /**
     * As {@link #DEFAULTS}, a server per contestant, answering chunked: the last chunk, a write
     * of its own when the exchange closes, waits for the client's acknowledgement of the events
     * (Nagle's algorithm), so a body ends some tens of milliseconds after its {@code [DONE]}.
     */
    static final String DEFAULTS_CHUNKED = "jdk-defaults-chunked";

    /**
     * The contestants named, each with the mock it talks to: one mock for all, or with
     * {@link #DEFAULTS} and {@link #DEFAULTS_CHUNKED} a mock of its own each.
     */
    static Map<Contestant, ModelMock> setUp(String mockName, List<String> names) throws java.io.IOException {
        Map<Contestant, ModelMock> mocks = new LinkedHashMap<>();
        if (!mockName.equals(DEFAULTS) && !mockName.equals(DEFAULTS_CHUNKED)) {
            ModelMock mock = mock(mockName);
            LoopComparison.contestants(mock.baseUrl(), names).forEach(contestant -> mocks.put(contestant, mock));
            return mocks;
        }
        for (String name : LoopComparison.CONTESTANTS) {
            if (names.contains(name)) {
                ModelMock mock = mock(mockName);
                mocks.put(LoopComparison.contestants(mock.baseUrl(), List.of(name)).getFirst(), mock);
            }
        }
        return mocks;
    }

    private UnderLoad() {
    }

    /**
     * With {@code --failures count}: a failed task is counted (and its time kept) and the
     * batch goes on, instead of stopping the run; for servers that close connections under
     * the clients (see BENCHMARKS.md), where some clients' requests fail.
     */
    static volatile boolean countFailures;

    /**
     * How often the connections a contestant keeps open are counted while its batch runs: a
     * look reads the kernel's socket tables, about 10 ms of CPU on this machine, which every
     * contestant's figures pay alike; once a second keeps that near 1% of a core.
     */
    private static final long OPEN_LOOK_MILLIS = 1000;

    /** How long one task may take before its worker is interrupted. */
    private static final long TASK_TIMEOUT_SECONDS = 60;

    /** Runs every C on one mock and prints a table for each. */
    static void run(String mockName, List<String> names, int[] concurrencies, int rounds, int tasks, int warmup)
            throws Exception {
        run(mockName, names, concurrencies, rounds, tasks, warmup, 0);
    }

    /** The most warm-up rounds {@code --settle} adds before it gives up waiting for the JIT. */
    static final int MAX_WARMUP_ROUNDS = 60;

    /**
     * As {@link #run(String, List, int[], int, int, int)}; with {@code settlePercent} above 0,
     * the warm-up goes on past its {@code warmup} rounds until the JIT compiler's share of a
     * warm-up round's CPU time is at most that many percent (at most {@link #MAX_WARMUP_ROUNDS}
     * rounds in all): the measured rounds then read the code, not the compiler compiling it,
     * which a fixed count of rounds cannot promise (on this machine three rounds of the JVM's
     * first block left the compiler a third of every contestant's CPU).
     */
    static void run(String mockName, List<String> names, int[] concurrencies, int rounds, int tasks, int warmup,
            double settlePercent) throws Exception {
        Map<Contestant, ModelMock> mocks = setUp(mockName, names);
        ModelMock mock = mocks.values().iterator().next();
        {
            List<Contestant> contestants = List.copyOf(mocks.keySet());
            try {
                for (int concurrency : concurrencies) {
                    int batch = Math.max(tasks, 16 * concurrency);
                    Map<Contestant, Tally> tallies = new LinkedHashMap<>();
                    contestants.forEach(contestant -> tallies.put(contestant, new Tally()));
                    System.err.printf(Locale.ROOT, "%s, %d tasks at once: %d warm-up and %d measured rounds of %d "
                            + "tasks per contestant%n", mock.name(), concurrency, warmup, rounds, batch);
                    double[] load = {Double.MAX_VALUE, 0};
                    int warmRounds = warmup;
                    double jitShare = Double.NaN;
                    for (int round = 0; round < warmRounds + rounds; round++) {
                        boolean warming = round < warmRounds;
                        long cpu = Probes.processCpuNanos();
                        long jit = Probes.vmThreadCpuNanos()[0];
                        for (int turn = 0; turn < contestants.size(); turn++) {
                            Contestant contestant = contestants.get((round + turn) % contestants.size());
                            Tally tally = warming ? new Tally() : tallies.get(contestant);
                            runBatch(contestant, concurrency, batch, mocks.get(contestant), tally);
                        }
                        double average = ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
                        if (warming) {
                            jitShare = 100.0 * (Probes.vmThreadCpuNanos()[0] - jit) / Math.max(1, Probes.processCpuNanos() - cpu);
                            warmRounds = warmRoundsAfter(round, warmRounds, jitShare, settlePercent);
                        } else {
                            load[0] = Math.min(load[0], average);
                            load[1] = Math.max(load[1], average);
                        }
                        System.err.printf(Locale.ROOT, "round %d/%d done, load average %.1f%s%n", round + 1,
                                warmRounds + rounds, average,
                                warming ? String.format(Locale.ROOT, ", JIT %.1f%% of its CPU", jitShare) : "");
                    }
                    report(mock, concurrency, rounds, batch, load, tallies, warmRounds, jitShare);
                }
            } finally {
                for (Contestant contestant : contestants) {
                    contestant.close();
                }
                for (ModelMock each : new java.util.LinkedHashSet<>(mocks.values())) {
                    each.close();
                }
            }
        }
    }

    /**
     * How many warm-up rounds there are once warm-up round {@code round} (from 0) of
     * {@code warmRounds} left the JIT {@code jitShare} percent of its CPU: one more when it
     * was the last, {@code --settle} is on, the share above it, and the cap not reached.
     */
    static int warmRoundsAfter(int round, int warmRounds, double jitShare, double settlePercent) {
        boolean stillCompiling = settlePercent > 0 && !(jitShare <= settlePercent);
        return round == warmRounds - 1 && stillCompiling && warmRounds < MAX_WARMUP_ROUNDS ? warmRounds + 1 : warmRounds;
    }

    private static void runBatch(Contestant contestant, int concurrency, int tasks, ModelMock mock, Tally tally)
            throws Exception {
        long[] durations = new long[tasks];
        AtomicInteger next = new AtomicInteger();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        AtomicInteger failed = new AtomicInteger();
        mock.serving(contestant.name());
        long connections = mock.connections();
        // What the contestant's client keeps open, looked at while the batch runs and after it:
        // the most it held at once (a look every OPEN_LOOK_MILLIS may miss a short peak, but not the
        // connections of the warm-up that it keeps throughout).
        Thread looking = mock.openConnections(contestant.name()) < 0 ? null : Thread.ofPlatform().daemon().start(() -> {
            while (!Thread.currentThread().isInterrupted()) {
                tally.peakOpen = Math.max(tally.peakOpen, mock.openConnections(contestant.name()));
                try {
                    Thread.sleep(OPEN_LOOK_MILLIS);
                } catch (InterruptedException done) {
                    return;
                }
            }
        });
        long allocated = Probes.allocatedBytes();
        long cpu = Probes.processCpuNanos();
        long[] vm = Probes.vmThreadCpuNanos();
        long began = System.nanoTime();
        List<Thread> workers = new ArrayList<>(concurrency);
        // when each worker's task began (0: none running), for the time-out below
        AtomicLongArray running = new AtomicLongArray(concurrency);
        for (int worker = 0; worker < concurrency; worker++) {
            int slot = worker;
            workers.add(Thread.ofVirtual().start(() -> {
                for (int task; failure.get() == null && (task = next.getAndIncrement()) < tasks; ) {
                    long start = System.nanoTime();
                    running.set(slot, start);
                    try {
                        String answer = contestant.runTask();
                        durations[task] = System.nanoTime() - start;
                        if (!LeanMock.FINAL_ANSWER.equals(answer)) {
                            throw new IllegalStateException(contestant.name() + " answered " + answer);
                        }
                    } catch (Throwable t) {
                        Throwable cause = Thread.interrupted()
                                ? new IllegalStateException("a task took more than " + TASK_TIMEOUT_SECONDS
                                        + " s and was interrupted", t)
                                : t;
                        if (countFailures) {
                            failed.incrementAndGet();
                            durations[task] = System.nanoTime() - start;
                        } else {
                            failure.compareAndSet(null, cause);
                        }
                    } finally {
                        running.set(slot, 0);
                    }
                }
            }));
        }
        // A task that never ends (a client that loses track of a stream) would stop the run
        // for good: after the time-out its worker is interrupted, and the task fails.
        for (Thread worker : workers) {
            while (!worker.join(java.time.Duration.ofSeconds(1))) {
                long now = System.nanoTime();
                for (int slot = 0; slot < concurrency; slot++) {
                    long start = running.get(slot);
                    if (start != 0 && now - start > TASK_TIMEOUT_SECONDS * 1_000_000_000L
                            && running.compareAndSet(slot, start, 0)) {
                        workers.get(slot).interrupt();
                    }
                }
            }
        }
        long wall = System.nanoTime() - began;
        if (looking != null) {
            looking.interrupt();
            looking.join();
            tally.openAfter = mock.openConnections(contestant.name());
            tally.peakOpen = Math.max(tally.peakOpen, tally.openAfter);
        }
        if (failure.get() != null) {
            throw new IllegalStateException(contestant.name() + ": a task failed", failure.get());
        }
        tally.wallNanos += wall;
        tally.cpuNanos += Probes.processCpuNanos() - cpu;
        long[] vmAfter = Probes.vmThreadCpuNanos();
        tally.jitNanos += Math.max(0, vmAfter[0] - vm[0]);
        tally.gcNanos += Math.max(0, vmAfter[1] - vm[1]);
        tally.allocated += Probes.allocatedBytes() - allocated;
        tally.connections += mock.connections() - connections;
        tally.durations.add(durations);
        tally.failed += failed.get();
    }

    private static void report(ModelMock mock, int concurrency, int rounds, int batch, double[] load,
            Map<Contestant, Tally> tallies, int warmRounds, double lastWarmJitShare) {
        System.out.printf(Locale.ROOT, "%n%s, %d tasks at once (%d rounds of %,d tasks per contestant after %d "
                + "warm-up rounds, the last with the JIT at %.1f%% of its CPU; load average %.1f to %.1f)%n%n",
                mock.name(), concurrency, rounds, batch, warmRounds, lastWarmJitShare, load[0], load[1]);
        boolean kept = tallies.values().stream().allMatch(tally -> tally.peakOpen >= 0);
        System.out.println("| contestant | tasks/s | CPU µs/task | of it JIT / GC µs | alloc KiB/task | task p50 ms "
                + "| task p99 ms | new connections |" + (kept ? " connections kept: peak / after |" : "")
                + (countFailures ? " failed tasks |" : ""));
        System.out.println("|---|---|---|---|---|---|---|---|" + (kept ? "---|" : "") + (countFailures ? "---|" : ""));
        Tally floor = null;
        Tally langChain4j = null;
        for (Map.Entry<Contestant, Tally> entry : tallies.entrySet()) {
            Tally tally = entry.getValue();
            if (entry.getKey() instanceof Floor) {
                floor = tally;
            } else if (entry.getKey() instanceof LangChain4jStreaming) {
                langChain4j = tally;
            }
            System.out.printf(Locale.ROOT, "| %s | %,.0f | %,.0f | %s | %.1f | %.2f | %.2f | %d |%s%s%n",
                    entry.getKey().name(), tally.tasksPerSecond(), tally.perTask(tally.cpuNanos) / 1e3,
                    Probes.VM_THREADS ? String.format(Locale.ROOT, "%,.0f / %,.0f", tally.perTask(tally.jitNanos) / 1e3,
                            tally.perTask(tally.gcNanos) / 1e3) : "n/a",
                    tally.perTask(tally.allocated) / 1024, tally.percentile(0.50) / 1e6,
                    tally.percentile(0.99) / 1e6, tally.connections,
                    kept ? " " + tally.peakOpen + " / " + tally.openAfter + " |" : "",
                    countFailures ? " " + tally.failed + " |" : "");
        }
        System.out.println();
        for (Map.Entry<Contestant, Tally> entry : tallies.entrySet()) {
            if (!(entry.getKey() instanceof BellowsAgent) || floor == null || langChain4j == null) {
                continue;
            }
            Tally ours = entry.getValue();
            System.out.printf(Locale.ROOT, "%s: throughput %.2fx LangChain4j's, %.2fx the floor's; CPU per task "
                            + "%.2fx LangChain4j's; new connections %d%n", entry.getKey().name(),
                    ours.tasksPerSecond() / langChain4j.tasksPerSecond(), ours.tasksPerSecond() / floor.tasksPerSecond(),
                    ours.perTask(ours.cpuNanos) / langChain4j.perTask(langChain4j.cpuNanos), ours.connections);
            if (concurrency >= 64) {
                System.out.println("  " + verdict(ours, floor, langChain4j));
            }
            if (kept) {
                System.out.println("  " + connectionVerdict(ours, floor, concurrency));
            }
        }
        System.out.println();
        System.out.flush();
    }

    /**
     * Issue 20's targets at 64 and 256 tasks at once, for one Bellows contestant: throughput at
     * least LangChain4j's and at least 0.8x the floor's, CPU per task at most LangChain4j's, no
     * new connection after the warm-up; which are missed, if any.
     */
    static String verdict(Tally ours, Tally floor, Tally langChain4j) {
        List<String> missed = new ArrayList<>();
        if (ours.tasksPerSecond() < langChain4j.tasksPerSecond()) {
            missed.add("throughput below LangChain4j's");
        }
        if (ours.tasksPerSecond() < 0.8 * floor.tasksPerSecond()) {
            missed.add("throughput below 0.8x the floor's");
        }
        if (ours.perTask(ours.cpuNanos) > langChain4j.perTask(langChain4j.cpuNanos)) {
            missed.add("CPU per task above LangChain4j's");
        }
        if (ours.connections > 0) {
            missed.add(ours.connections + " new connections");
        }
        return "issue 20's targets: " + (missed.isEmpty() ? "met" : "missed (" + String.join(", ", missed) + ")");
    }

    /**
     * Issue 30's targets, for one Bellows contestant on a mock that counts the connections
     * kept: at most as many open at once as tasks at once (each task has at most one request
     * in flight), no new one after the warm-up, and throughput at least 0.8x the floor's.
     */
    static String connectionVerdict(Tally ours, Tally floor, int concurrency) {
        List<String> missed = new ArrayList<>();
        if (ours.peakOpen > concurrency) {
            missed.add(ours.peakOpen + " connections kept for " + concurrency + " tasks at once");
        }
        if (ours.connections > 0) {
            missed.add(ours.connections + " new connections");
        }
        if (ours.tasksPerSecond() < 0.8 * floor.tasksPerSecond()) {
            missed.add("throughput below 0.8x the floor's");
        }
        return "issue 30's targets: " + (missed.isEmpty() ? "met" : "missed (" + String.join(", ", missed) + ")");
    }

    /** What one contestant's measured batches added up to. */
    static final class Tally {
        final List<long[]> durations = new ArrayList<>();
        long wallNanos;
        long cpuNanos;
        /** Of {@link #cpuNanos}: the JIT compiler's threads, and the garbage collector's. */
        long jitNanos;
        long gcNanos;
        long allocated;
        long connections;
        long failed;
        /** The most connections the contestant's client kept open at once, or -1: not counted. */
        volatile int peakOpen = -1;
        /** The connections it kept open after its last batch, or -1. */
        int openAfter = -1;

        int count() {
            return durations.stream().mapToInt(batch -> batch.length).sum();
        }

        double tasksPerSecond() {
            return count() / (wallNanos / 1e9);
        }

        double perTask(long total) {
            return (double) total / count();
        }

        double percentile(double fraction) {
            long[] sorted = durations.stream().flatMapToLong(Arrays::stream).sorted().toArray();
            return sorted[Math.min(sorted.length - 1, (int) Math.ceil(fraction * sorted.length) - 1)];
        }
    }

    /** The JVM's own counters: every thread's allocation, the process's CPU time (EvalOverhead's {@code --settle} too). */
    static final class Probes {
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

        /** Whether {@link #vmThreadCpuNanos()} can tell (Linux: {@code /proc/self/task}). */
        static final boolean VM_THREADS = java.nio.file.Files.isDirectory(java.nio.file.Path.of("/proc/self/task"));

        /**
         * The CPU time so far of the JVM's compiler threads ({@code C1/C2 CompilerThread}) and of
         * its garbage collector's ({@code GC Thread}, {@code G1 ...}), in that order, from each
         * thread's {@code schedstat}: part of the process's CPU that a short measured batch may
         * still owe to the JIT warming up rather than to the work itself. Threads that ended
         * take their time with them (a compiler thread idle for a while may end): a rough
         * split, not an account.
         */
        static long[] vmThreadCpuNanos() {
            long[] nanos = new long[2];
            if (!VM_THREADS) {
                return nanos;
            }
            try (java.nio.file.DirectoryStream<java.nio.file.Path> tasks =
                         java.nio.file.Files.newDirectoryStream(java.nio.file.Path.of("/proc/self/task"))) {
                for (java.nio.file.Path task : tasks) {
                    try {
                        String name = java.nio.file.Files.readString(task.resolve("comm")).strip();
                        int kind = name.contains("CompilerThre") ? 0
                                : name.startsWith("GC Thread") || name.startsWith("G1 ") ? 1 : -1;
                        if (kind >= 0) {
                            String schedstat = java.nio.file.Files.readString(task.resolve("schedstat"));
                            nanos[kind] += Long.parseLong(schedstat.substring(0, schedstat.indexOf(' ')));
                        }
                    } catch (java.io.IOException | RuntimeException ended) {
                        // the thread ended while it was being read
                    }
                }
            } catch (java.io.IOException unreadable) {
                // no split this time
            }
            return nanos;
        }
    }
}
