package dev.bellows.eval;

import dev.bellows.event.AgentEvent;
import dev.bellows.event.EventJson;
import dev.bellows.event.StreamEvent;
import dev.bellows.event.StreamRedaction;
import dev.bellows.secret.Secrets;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;

/**
 * Where each run's events go: {@code events/CASE/run-N.jsonl} under the output directory, one
 * JSON object a line as {@code bellows run --output jsonl} writes them (secrets redacted, those
 * split across a stream's deltas too). The
 * case's folder is its id made safe for any file system, unique even where names differ only
 * in case.
 *
 * <p>A run's thread only turns its events into the file's bytes (redacted there, so no secret
 * leaves the run); a few platform threads of its own create the folders and write the files,
 * in the order the runs hand them over. File I/O on the runner's virtual threads held their
 * carriers (the JDK cannot unmount a thread blocked in the file system), so 1,000 runs' folders
 * and files left the runs' CPU idle; here a run slot is free as soon as its bytes are queued.
 * The files' names never depend on that order: they are chosen up front, in dataset order.
 * Thread-safe: {@link #write} is called from every run at once; {@link #finish} and
 * {@link #close} by the runner alone.
 */
final class EventFiles implements AutoCloseable {

    static final String FOLDER = "events";

    /** The writer's signal that no file follows. */
    private static final Pending END = new Pending(-1, 0, new byte[0]);

    /**
     * How many writer threads: a file system call waits on the disk far longer than it computes,
     * and several in flight overlap (1,000 folders and files took 1.35 s from one thread on a
     * busy disk, 0.76 s from four). A case's files all go to one writer, which makes its folder.
     */
    private static final int WRITERS = 4;

    private final Path directory;
    private final List<String> folders;
    private final List<BlockingQueue<Pending>> queues;
    private final List<Thread> writers;
    private volatile IOException failure;
    private volatile boolean abandoned;

    /** Chooses each case's folder up front, in dataset order, so the names never depend on which run ends first. */
    EventFiles(Path directory, List<EvalCase> cases) {
        this.directory = directory;
        Set<String> taken = new HashSet<>();
        this.folders = cases.stream().map(c -> {
            String safe = c.id().replaceAll("[^A-Za-z0-9._-]", "_");
            if (safe.startsWith(".")) {
                safe = "_" + safe.substring(1);
            }
            if (safe.length() > 80) {
                safe = safe.substring(0, 80);
            }
            String name = safe;
            for (int n = 2; !taken.add(name.toLowerCase(Locale.ROOT)); n++) {
                name = safe + "-" + n;
            }
            return name;
        }).toList();
        int count = Math.max(1, Math.min(WRITERS, folders.size()));
        List<BlockingQueue<Pending>> made = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            made.add(new LinkedBlockingQueue<>());
        }
        this.queues = List.copyOf(made);
        this.writers = queues.stream().map(queue -> Thread.ofPlatform().daemon().name("eval-events-writer")
                .start(() -> writeAll(queue))).toList();
    }

    /** The file of a run, relative to the output directory, {@code /}-separated. */
    String relative(int caseNumber, int index) {
        return FOLDER + "/" + folders.get(caseNumber) + "/run-" + index + ".jsonl";
    }

    /**
     * Hands the run's events to the writer; returns the file's relative name. The file is on disk
     * once {@link #finish} returns.
     *
     * @throws IOException when an earlier file could not be written (the evaluation stops there)
     */
    String write(int caseNumber, int index, List<AgentEvent> events) throws IOException {
        IOException failed = failure;
        if (failed != null) {
            throw new IOException(failed.getMessage(), failed);
        }
        queues.get(caseNumber % queues.size()).add(new Pending(caseNumber, index, lines(events)));
        return relative(caseNumber, index);
    }

    /** The file's bytes: each event a line, redacted, as {@code bellows run --output jsonl} prints them. */
    private static byte[] lines(List<AgentEvent> events) {
        StringBuilder text = new StringBuilder(events.size() * 64);
        StreamRedaction deltas = new StreamRedaction();   // a secret split across deltas is in no one line
        for (AgentEvent event : events) {
            for (AgentEvent redacted : deltas.apply(event)) {
                if (redacted instanceof StreamEvent.Complete) {
                    continue;       // not written by run --output jsonl either: it repeats the answer
                }
                text.append(Secrets.redact(EventJson.toJson(redacted, false).toString())).append('\n');
            }
        }
        return text.toString().getBytes(StandardCharsets.UTF_8);
    }

    /**
     * Waits until every file handed over is written.
     *
     * @throws IOException when one could not be
     */
    void finish() throws IOException, InterruptedException {
        queues.forEach(queue -> queue.add(END));
        for (Thread writer : writers) {
            writer.join();
        }
        IOException failed = failure;
        if (failed != null) {
            throw new IOException(failed.getMessage(), failed);
        }
    }

    /** Stops the writer without waiting: the files not yet written are dropped (the evaluation failed or was cancelled). */
    @Override
    public void close() {
        abandoned = true;
        queues.forEach(queue -> queue.add(END));
    }

    /** A writer thread: each of its cases' folder created on its first file, then the files, until the end. */
    private void writeAll(BlockingQueue<Pending> queue) {
        boolean[] made = new boolean[folders.size()];
        try {
            for (Pending next = queue.take(); next != END; next = queue.take()) {
                if (failure != null || abandoned) {
                    continue;       // drained, not written: the evaluation stops
                }
                try {
                    Path folder = directory.resolve(FOLDER).resolve(folders.get(next.caseNumber()));
                    if (!made[next.caseNumber()]) {
                        Files.createDirectories(folder);
                        made[next.caseNumber()] = true;
                    }
                    Files.write(folder.resolve("run-" + next.index() + ".jsonl"), next.bytes());
                } catch (IOException e) {
                    failure = e;
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();     // nobody interrupts this thread but the JVM's end
        }
    }

    private record Pending(int caseNumber, int index, byte[] bytes) {
    }
}
