package dev.bellows.testkit;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.function.Supplier;

/**
 * Work a test runs beside itself (a call that blocks, a pipe to drain), each on a new daemon
 * platform thread of its own.
 *
 * <p>Not {@code CompletableFuture.supplyAsync(work)}: that runs in the common
 * {@code ForkJoinPool}, which has a single worker on a 2-CPU machine and which the JDK itself
 * uses to complete {@code Process.onExit()}. A test's blocking task there holds up every other
 * future of the test JVM until it returns. Not a virtual thread either: a blocking read on a
 * child process's pipe holds its carrier.
 *
 * <p>Thread-safe.
 */
public final class Background {

    private static final Executor NEW_THREAD = work -> Thread.ofPlatform().daemon().name("test-background").start(work);

    private Background() {
    }

    /** Runs {@code work} on a thread of its own; the future completes with its result or its exception. */
    public static <T> CompletableFuture<T> supply(Supplier<T> work) {
        return CompletableFuture.supplyAsync(work, NEW_THREAD);
    }

    /** Runs {@code work} on a thread of its own; the future completes when it returns or throws. */
    public static CompletableFuture<Void> run(Runnable work) {
        return CompletableFuture.runAsync(work, NEW_THREAD);
    }
}
