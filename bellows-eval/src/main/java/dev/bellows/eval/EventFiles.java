package dev.bellows.eval;

import dev.bellows.event.AgentEvent;
import dev.bellows.event.EventJson;
import dev.bellows.event.StreamEvent;
import dev.bellows.event.internal.StreamRedaction;
import dev.bellows.secret.Secrets;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.TreeMap;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;

/**
 * Where the runs' events go: one file, {@code events.jsonl} in the output directory, each run's
 * events a block of lines (one JSON object a line as {@code bellows run --output jsonl} writes
 * them, secrets redacted, those split across a stream's deltas too), the blocks in dataset
 * order (case by case, repeat by repeat). A run's reference is the file and its block's lines,
 * {@code events.jsonl#L85-L167} (from 1, both included).
 *
 * <p>Why one file: on a busy disk, a folder and a file per run (1,000 of each for 1,000 runs)
 * cost more than the runs themselves (every creation waits on the file system's journal). One
 * file, written through a buffer, costs one creation. A run's thread only turns its events
 * into the block's bytes (redacted there, so no secret leaves the run); one platform thread of
 * its own writes the blocks, in dataset order: a block whose predecessors are still running
 * waits in memory, as bytes, until they are written. So the file, and every reference, is the
 * same whatever order the runs finish in.
 *
 * <p>Thread-safe: {@link #write} is called from every run at once; {@link #finish},
 * {@link #reference} and {@link #close} by the runner alone.
 */
final class EventFiles implements AutoCloseable {

    static final String FILE = "events.jsonl";

    /** The writer's signal that no block follows. */
    private static final Block END = new Block(-1, "", new byte[0], 0);

    /**
     * How long the writer sleeps when it finds no block, while blocks came lately. The runs hand
     * blocks over without waking it: a wake-up per block (a lock, a signal and a system call on
     * the run's thread, another on the writer's) cost more than writing the block, and so did a
     * nap of 2 ms (a timer and a system call each). A block waiting a few milliseconds costs
     * nothing: what the writer has left when the last run ends is a few cases' parts, and
     * {@link #finish} wakes it at once.
     */
    private static final long NAP_NANOS = 10_000_000;
    /** After this many naps without a block the writer sleeps until a run wakes it (a slow model: no polling). */
    private static final int NAPS_BEFORE_SLEEP = 10;

    private final Queue<Block> queue = new ConcurrentLinkedQueue<>();
    /** The runs' buffers not in use: a run takes one, or makes one, and gives it back. */
    private final Queue<StringBuilder> texts = new ConcurrentLinkedQueue<>();
    /** Whether the writer sleeps until woken (not napping): a run that hands a block over then wakes it. */
    private volatile boolean sleeping;
    private final OutputStream out;
    private final Thread writer;
    /** Per run (in job order): its first line, set by the writer once its block is written; 0 for none. */
    private final long[] firstLine;
    private final int[] lines;
    private final Written written;
    private volatile IOException failure;
    private volatile boolean abandoned;

    /** Told on the writer thread of each run's block once it is written, in job order. */
    interface Written {
        /**
         * Run {@code job}'s block is written (not necessarily flushed: {@link #flush} from here).
         *
         * @param reference the run's reference, as {@link #reference} gives it
         * @param block     the block's text, as written to the file in UTF-8 (empty for no events)
         * @throws IOException to stop the evaluation, as a block that cannot be written does
         */
        void written(int job, String reference, String block) throws IOException;
    }

    /**
     * Creates (or empties) {@code directory/events.jsonl} for {@code runs} runs, numbered in
     * dataset order from 0.
     *
     * @throws IOException when the folder or the file cannot be made
     */
    EventFiles(Path directory, int runs) throws IOException {
        this(directory, runs, null);
    }

    /** As {@link #EventFiles(Path, int)}, {@code written} (if not null) told of each block once it is written. */
    EventFiles(Path directory, int runs, Written written) throws IOException {
        this.written = written;
        Files.createDirectories(directory);
        // a big buffer: a write call less per 64 KiB (about 13 runs' blocks) is a system call less
        this.out = new BufferedOutputStream(Files.newOutputStream(directory.resolve(FILE)), 1 << 18);
        this.firstLine = new long[runs];
        this.lines = new int[runs];
        this.writer = Thread.ofPlatform().daemon().name("eval-events-writer").start(this::writeAll);
    }

    /**
     * Hands run {@code job}'s events to the writer (every run, in any order, exactly once; a run
     * without events too, so that the ones after it are not held back).
     *
     * @throws IOException when an earlier block could not be written (the evaluation stops there)
     */
    void write(int job, List<AgentEvent> events) throws IOException {
        IOException failed = failure;
        if (failed != null) {
            throw new IOException(failed.getMessage(), failed);
        }
        StringBuilder polled = texts.poll();
        // one per run going on at once, at most: kept for the next runs, with its room
        StringBuilder chars = polled != null ? polled : new StringBuilder(8192);
        int[] count = new int[1];
        StreamRedaction deltas = new StreamRedaction();   // a secret split across deltas is in no one line
        // each event appended as its line, without a generator or a tree of it; a JSON line holds no
        // line break, so redacting the block at once is redacting each line
        Consumer<AgentEvent> line = redacted -> {
            if (!(redacted instanceof StreamEvent.Complete)) {    // not written by run --output jsonl either: it repeats the answer
                if (count[0]++ > 0) {
                    chars.append('\n');
                }
                EventJson.append(redacted, false, chars);
            }
        };
        for (AgentEvent event : events) {
            deltas.apply(event, line);      // no list per event: most go through as they are
        }
        String block = count[0] == 0 ? "" : Secrets.redact(chars.append('\n').toString());
        chars.setLength(0);
        texts.add(chars);
        byte[] bytes = block.getBytes(StandardCharsets.UTF_8);
        // the text as a read of the file gives it: the same unless a character could not be encoded
        // (a lone surrogate, written as '?'), which only a text with other than ASCII can hold
        String read = written == null || bytes.length == block.length() ? block : new String(bytes, StandardCharsets.UTF_8);
        handOver(new Block(job, read, bytes, count[0]));
    }

    /** Gives the writer {@code block}, waking it only if it sleeps (see {@link #NAP_NANOS}). */
    private void handOver(Block block) {
        queue.add(block);
        // the writer sets `sleeping` before it looks at the queue a last time, and this reads it after
        // adding: one of the two sees the other (both volatile), so no block waits for a wake-up that never comes
        if (sleeping) {
            LockSupport.unpark(writer);
        }
    }

    /** The next block, waiting for one: napping while blocks came lately, then sleeping until woken. */
    private Block next() throws InterruptedException {
        int naps = 0;
        for (Block block = queue.poll(); ; block = queue.poll()) {
            if (block != null) {
                return block;
            }
            if (Thread.interrupted()) {
                throw new InterruptedException();
            }
            if (naps < NAPS_BEFORE_SLEEP) {
                naps++;
                LockSupport.parkNanos(this, NAP_NANOS);
            } else {
                sleeping = true;
                if (queue.isEmpty()) {
                    LockSupport.park(this);
                }
                sleeping = false;
                naps = 0;
            }
        }
    }

    /**
     * Waits until every block handed over is written and the file closed.
     *
     * @throws IOException when one could not be
     */
    void finish() throws IOException, InterruptedException {
        queue.add(END);
        LockSupport.unpark(writer);         // not a nap's wait: the caller waits for the last blocks
        writer.join();
        IOException failed = failure;
        if (failed != null) {
            throw new IOException(failed.getMessage(), failed);
        }
    }

    /** Run {@code job}'s reference once {@link #finish} returned (or its block written, on the writer thread): {@code events.jsonl#Lfirst-Llast}, or empty for no events. */
    String reference(int job) {
        return lines[job] == 0 ? "" : FILE + "#L" + firstLine[job] + "-L" + (firstLine[job] + lines[job] - 1);
    }

    /** The thread that writes the blocks (tests: whether it sleeps). */
    Thread writerThread() {
        return writer;
    }

    /** The blocks written so far to the file, from the buffer; only on the writer thread (a {@link Written} callback). */
    void flush() throws IOException {
        out.flush();
    }

    /**
     * Stops the writer: the blocks not yet written are dropped (the evaluation failed or was
     * cancelled). Waits for the block or callback under way, if any, so that nothing writes
     * after it returns; an interrupt meanwhile is kept for the caller.
     */
    @Override
    public void close() {
        abandoned = true;
        queue.add(END);
        LockSupport.unpark(writer);
        boolean interrupted = false;
        while (writer.isAlive()) {
            try {
                writer.join();
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    /** The writer thread: the blocks in job order, each as soon as the ones before it are written. */
    private void writeAll() {
        TreeMap<Integer, Block> early = new TreeMap<>();     // blocks whose predecessors are still running
        int next = 0;
        long line = 1;
        try (OutputStream file = out) {
            for (Block block = next(); block != END; block = next()) {
                if (failure != null || abandoned) {
                    continue;       // drained, not written: the evaluation stops
                }
                early.put(block.job(), block);
                for (Block ready = early.remove(next); ready != null; ready = early.remove(next)) {
                    file.write(ready.bytes());
                    if (ready.lines() > 0) {
                        firstLine[ready.job()] = line;
                        lines[ready.job()] = ready.lines();
                        line += ready.lines();
                    }
                    next++;
                    if (written != null && !abandoned) {
                        written.written(ready.job(), reference(ready.job()), ready.text());
                    }
                }
            }
            if (!early.isEmpty() && !abandoned && failure == null) {
                failure = new IOException("the events of run " + (next + 1) + " never came: blocks after it were not written");
            }
        } catch (IOException e) {
            failure = e;
        } catch (RuntimeException e) {
            failure = new IOException("the events could not be written: " + e, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();     // nobody interrupts this thread but the JVM's end
        }
    }

    /** A run's block: its text (for {@link Written}, which would otherwise decode the bytes again) and its bytes. */
    private record Block(int job, String text, byte[] bytes, int lines) {
    }
}
