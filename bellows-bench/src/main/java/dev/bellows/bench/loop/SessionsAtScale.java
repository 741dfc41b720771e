package dev.bellows.bench.loop;

import dev.bellows.agent.ToolMode;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.lang.management.ThreadMXBean;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Many agent sessions at once in one JVM (BENCHMARKS.md, "Sessions at scale"): N sessions,
 * each on its own virtual thread, each running a three-step task (two calls of {@code add},
 * then the answer) against a {@link LeanMock} whose answers arrive in bursts with a pause
 * between them, as a model's tokens do. All N start together, after 5 s of warm-up tasks and
 * one untimed batch of N that opens the connections (a long-running service has them open).
 *
 * <p>Reported per N: throughput (tasks per second of the whole batch), the p50 and p99
 * latency a session adds to the model's own time (the pauses it must wait for), the heap per
 * session (heap used after a full collection while every session is waiting in the middle of
 * its first answer, minus the heap before the batch, divided by N), and the peak number of
 * platform threads. Run it with the heap the target names ({@code -Xmx2g}): a batch that does
 * not fit fails with {@code OutOfMemoryError}.
 *
 * <pre>
 * java -Xmx2g -cp bellows-bench/target/benchmarks.jar dev.bellows.bench.loop.SessionsAtScale \
 *     [--sessions 100,1000,10000] [--pause-ms 50] [--contestant bellows-tags|bellows-native|floor|langchain4j]
 * </pre>
 */
public final class SessionsAtScale {

    private static final int TOOL_CALLS = 2;
    private static final int BURSTS = 3;

    private SessionsAtScale() {
    }

    public static void main(String[] args) throws Exception {
        int[] sizes = {100, 1000, 10_000};
        long pauseMillis = 50;
        String contestantName = "bellows";
        for (int i = 0; i + 1 < args.length; i += 2) {
            switch (args[i]) {
                case "--sessions" -> sizes = Arrays.stream(args[i + 1].split(",")).mapToInt(Integer::parseInt).toArray();
                case "--pause-ms" -> pauseMillis = Long.parseLong(args[i + 1]);
                case "--contestant" -> contestantName = args[i + 1];
                default -> throw new IllegalArgumentException("unknown option " + args[i]);
            }
        }
        long modelMillis = (long) (TOOL_CALLS + 1) * (BURSTS - 1) * pauseMillis;
        System.out.printf(Locale.ROOT, "%s; a task is %d requests of %d bursts, %d ms apart: %d ms of model time; "
                        + "max heap %d MiB, %d cores, JDK %s%n%n", contestantName, TOOL_CALLS + 1, BURSTS, pauseMillis,
                modelMillis, Runtime.getRuntime().maxMemory() >> 20, Runtime.getRuntime().availableProcessors(),
                Runtime.version());
        warmUp(contestantName);
        System.out.println("| sessions | tasks/s | added p50 ms | added p99 ms | heap per session KiB | peak platform threads |");
        System.out.println("|---|---|---|---|---|---|");
        for (int sessions : sizes) {
            try (LeanMock mock = new LeanMock(TOOL_CALLS, BURSTS, pauseMillis);
                    Contestant contestant = contestant(contestantName, mock.baseUrl())) {
                runBatch(sessions, contestant, mock, false); // opens the connections the next batches reuse
                Batch timed = runBatch(sessions, contestant, mock, false);
                Batch weighed = runBatch(sessions, contestant, mock, true);
                long[] added = Arrays.stream(timed.durations).map(d -> d - modelMillis * 1_000_000).sorted().toArray();
                System.out.printf(Locale.ROOT, "| %d | %.0f | %.1f | %.1f | %.1f | %d |%n", sessions,
                        sessions / timed.seconds, added[(int) Math.ceil(0.50 * sessions) - 1] / 1e6,
                        added[(int) Math.ceil(0.99 * sessions) - 1] / 1e6,
                        weighed.heapBytes / 1024.0 / sessions, timed.peakThreads);
            }
        }
    }

    /** Compiles the hot paths first: a few seconds of tasks, 8 at a time, without pauses. */
    private static void warmUp(String contestantName) throws Exception {
        try (LeanMock mock = new LeanMock(TOOL_CALLS, BURSTS, 0);
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
                throw new IllegalStateException("warm-up failed", failure.get());
            }
        }
    }

    private static Contestant contestant(String name, String baseUrl) {
        return switch (name) {
            case "bellows", "bellows-tags" -> new BellowsAgent(baseUrl, ToolMode.TAGS);
            case "bellows-native" -> new BellowsAgent(baseUrl, ToolMode.NATIVE);
            case "floor" -> new Floor(baseUrl);
            case "langchain4j" -> new LangChain4jStreaming(baseUrl);
            default -> throw new IllegalArgumentException("unknown contestant " + name);
        };
    }

    private record Batch(long[] durations, double seconds, long heapBytes, int peakThreads) {
    }

    /**
     * Runs N sessions at once. With {@code weigh}, a full collection in the middle measures the
     * heap the sessions hold; its pause delays them all, so such a batch is not timed.
     */
    private static Batch runBatch(int sessions, Contestant contestant, LeanMock mock, boolean weigh)
            throws Exception {
        MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        System.gc();
        long heapBefore = memory.getHeapMemoryUsage().getUsed();
        threads.resetPeakThreadCount();
        long requestsBefore = mock.requests.get();
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
        long began = System.nanoTime();
        start.countDown();
        long heapDuring = heapBefore;
        if (weigh) {
            // Every session has sent its first request and waits for the rest of its answer:
            // the moment to weigh what a session holds.
            while (mock.requests.get() - requestsBefore < sessions && failure.get() == null) {
                Thread.sleep(1);
            }
            System.gc();
            heapDuring = memory.getHeapMemoryUsage().getUsed();
        }
        for (Thread thread : running) {
            thread.join();
        }
        double seconds = (System.nanoTime() - began) / 1e9;
        if (failure.get() != null) {
            throw new IllegalStateException(sessions + " sessions: a task failed", failure.get());
        }
        return new Batch(durations, seconds, Math.max(0, heapDuring - heapBefore), threads.getPeakThreadCount());
    }
}
