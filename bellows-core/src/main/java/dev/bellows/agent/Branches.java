package dev.bellows.agent;

import dev.bellows.tool.ToolException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletionService;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorCompletionService;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.Semaphore;
import java.util.function.Function;

/**
 * The branches of a parallel workflow ({@link AgentTool#parallel}): each on a virtual thread of
 * its own, at most a bound at a time; the answers in the branches' order, each headed by its
 * name. A failing branch, or an interrupt of the calling thread (its run was cancelled),
 * interrupts the others, whose runs are cancelled with their model requests.
 */
final class Branches {

    @FunctionalInterface
    interface Work<B> {
        String run(B branch) throws ToolException;
    }

    private Branches() {
    }

    static <B> String run(List<B> branches, int maxConcurrent, Work<B> work, Function<B, String> name)
            throws ToolException {
        List<String> answers = all(branches, maxConcurrent, work::run, name);
        StringBuilder merged = new StringBuilder();
        for (int i = 0; i < branches.size(); i++) {
            if (!merged.isEmpty()) {
                merged.append("\n\n");
            }
            merged.append("## ").append(name.apply(branches.get(i))).append('\n').append(answers.get(i));
        }
        return merged.toString();
    }

    /** What a branch gives. */
    @FunctionalInterface
    interface Outcome<B, R> {
        R run(B branch) throws ToolException;
    }

    /** Every branch's result, in the branches' order; the first failure cancels the others and is thrown. */
    static <B, R> List<R> all(List<B> branches, int maxConcurrent, Outcome<B, R> work, Function<B, String> name)
            throws ToolException {
        return all(branches, maxConcurrent, work, name, null);
    }

    /**
     * As above, the branches run by {@code executor} (the calling run's, given to its agent), or
     * each on a virtual thread of its own when it is null. An executor that runs each task on the
     * calling thread runs the branches one after another there.
     */
    static <B, R> List<R> all(List<B> branches, int maxConcurrent, Outcome<B, R> work, Function<B, String> name,
                              java.util.concurrent.Executor executor) throws ToolException {
        Semaphore slots = new Semaphore(maxConcurrent);
        List<Future<R>> answers = new ArrayList<>(branches.size());
        try (ExecutorService threads = executor == null ? Executors.newVirtualThreadPerTaskExecutor() : null) {
            CompletionService<R> done = new ExecutorCompletionService<>(executor == null ? threads : executor);
            for (B branch : branches) {
                answers.add(done.submit(() -> {
                    slots.acquire();
                    try {
                        return work.run(branch);
                    } finally {
                        slots.release();
                    }
                }));
            }
            // in the order they end, so that the first failure cancels the branches still running
            for (int ended = 0; ended < branches.size(); ended++) {
                Future<R> next = null;
                try {
                    next = done.take();
                    next.get();
                } catch (InterruptedException e) {
                    answers.forEach(future -> future.cancel(true));
                    Thread.currentThread().interrupt();
                    throw new ToolException("cancelled");
                } catch (ExecutionException e) {
                    answers.forEach(future -> future.cancel(true));
                    Throwable cause = e.getCause();
                    int failed = answers.indexOf(next);
                    throw cause instanceof ToolException toolFailure ? toolFailure
                            : new ToolException(name.apply(branches.get(failed)) + " failed: " + cause, cause);
                }
            }
            List<R> results = new ArrayList<>(branches.size());
            answers.forEach(future -> results.add(future.resultNow()));
            return results;
        }
    }
}
