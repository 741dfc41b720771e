package dev.bellows.bench.loop;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;

/**
 * How long a process's threads have waited for a CPU while ready to run (Linux
 * {@code /proc/PID/task/TID/schedstat}, second field), summed over its live threads. On a
 * shared machine this is the part of a latency that no code in the process can remove.
 * Threads that ended in between are not counted; the carriers and selector threads that do
 * the work live through a batch.
 */
final class RunQueue {

    private RunQueue() {
    }

    /** Nanoseconds waited so far, or -1 where the OS does not say (not Linux). */
    static long waitedNanos(long pid) {
        Path tasks = Path.of("/proc", Long.toString(pid), "task");
        if (!Files.isDirectory(tasks)) {
            return -1;
        }
        long total = 0;
        try (Stream<Path> threads = Files.list(tasks)) {
            for (Path thread : (Iterable<Path>) threads::iterator) {
                try {
                    String[] fields = Files.readString(thread.resolve("schedstat")).strip().split(" ");
                    total += Long.parseLong(fields[1]);
                } catch (IOException | RuntimeException ended) {
                    // the thread ended while being read: its wait is lost, as the class says
                }
            }
        } catch (IOException unreadable) {
            return -1;
        }
        return total;
    }
}
