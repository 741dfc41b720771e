package dev.bellows.mcp;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Ends a server process together with everything it started. Launchers such as {@code npx}
 * or {@code uv run} start the real server as a child or grandchild; killing only the launcher
 * would leave that running, orphaned. The descendants are listed <em>before</em> anything is
 * signalled: once a parent exits, its children are re-parented and no longer findable.
 */
final class ProcessTree {

    private ProcessTree() {
    }

    /** Every descendant of {@code root} alive now, and {@code root} itself, deepest first. */
    static List<ProcessHandle> snapshot(ProcessHandle root) {
        List<ProcessHandle> all = new ArrayList<>(root.descendants().toList());
        java.util.Collections.reverse(all);
        all.add(root);
        return all;
    }

    /**
     * Asks every process of the snapshot to terminate (SIGTERM), waits up to {@code graceMillis}
     * for them, then kills those left (SIGKILL) and waits for them to be gone.
     */
    static void destroy(List<ProcessHandle> processes, long graceMillis) {
        for (ProcessHandle process : processes) {
            process.destroy();
        }
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(graceMillis);
        for (ProcessHandle process : processes) {
            waitFor(process, deadline);
        }
        for (ProcessHandle process : processes) {
            if (process.isAlive()) {
                process.destroyForcibly();
            }
        }
        long killDeadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        for (ProcessHandle process : processes) {
            waitFor(process, killDeadline);
        }
    }

    /**
     * Polls rather than waiting on {@code ProcessHandle.onExit()}: the JDK completes that from
     * the common {@code ForkJoinPool}, which may be busy with anything (see
     * {@code StdioTransport.awaitExit}); the process reaper itself polls a process that is not
     * this JVM's child.
     */
    private static void waitFor(ProcessHandle process, long deadlineNanos) {
        long pauseMillis = 1;
        while (process.isAlive() && deadlineNanos - System.nanoTime() > 0) {
            try {
                Thread.sleep(pauseMillis);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return; // the caller escalates
            }
            pauseMillis = Math.min(pauseMillis * 2, 20);
        }
    }
}
