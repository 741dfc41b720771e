package dev.bellows.eval;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bellows.event.AgentEvent;
import dev.bellows.event.LoopEvent;
import dev.bellows.event.StreamEvent;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The events' writer thread: blocks handed over without waking it each time, none left waiting. */
class EventFilesTest {

    private static final List<AgentEvent> EVENTS = List.of(new LoopEvent.IterationStart(1), new StreamEvent.MessageStart(0),
            new StreamEvent.MessageContent(0, "The sum is 5."));

    @Test
    void aBlockHandedOverWhileTheWriterSleepsIsWrittenAtOnce(@TempDir Path dir) throws Exception {
        CountDownLatch first = new CountDownLatch(1);
        CountDownLatch second = new CountDownLatch(1);
        try (EventFiles files = new EventFiles(dir, 2, (job, reference, block) -> (job == 0 ? first : second).countDown())) {
            // no run for a while: the writer stops napping and sleeps until a run wakes it (no polling for a slow model)
            awaitSleeping(files.writerThread());
            files.write(0, EVENTS);
            assertThat(first.await(30, TimeUnit.SECONDS)).as("the sleeping writer was woken by the block").isTrue();
            awaitSleeping(files.writerThread());
            files.write(1, EVENTS);
            assertThat(second.await(30, TimeUnit.SECONDS)).as("and again").isTrue();
            files.finish();
            assertThat(files.reference(0)).isEqualTo("events.jsonl#L1-L3");
            assertThat(files.reference(1)).isEqualTo("events.jsonl#L4-L6");
        }
        assertThat(Files.readAllLines(dir.resolve("events.jsonl"))).hasSize(6)
                .contains("{\"type\":\"message_content\",\"content\":\"The sum is 5.\"}");
    }

    @Test
    void manyRunsAtOnceEachBlockWrittenOnceInRunOrder(@TempDir Path dir) throws Exception {
        int runs = 400;
        int[] placed = {0};
        try (EventFiles files = new EventFiles(dir, runs, (job, reference, block) -> {
            assertThat(job).isEqualTo(placed[0]++);
            assertThat(block).startsWith("{\"type\":\"iteration_start\",\"iteration\":" + (job + 1) + "}\n");
        })) {
            List<Thread> threads = new java.util.ArrayList<>();
            java.util.concurrent.atomic.AtomicInteger next = new java.util.concurrent.atomic.AtomicInteger(runs);
            for (int t = 0; t < 8; t++) {
                threads.add(Thread.ofVirtual().start(() -> {
                    for (int job = next.decrementAndGet(); job >= 0; job = next.decrementAndGet()) {   // the last first: most wait
                        try {
                            files.write(job, List.of(new LoopEvent.IterationStart(job + 1), new StreamEvent.MessageStart(0)));
                        } catch (java.io.IOException e) {
                            throw new java.io.UncheckedIOException(e);
                        }
                    }
                }));
            }
            for (Thread thread : threads) {
                thread.join();
            }
            files.finish();
            assertThat(placed[0]).isEqualTo(runs);
            assertThat(files.reference(runs - 1)).isEqualTo("events.jsonl#L" + (2 * runs - 1) + "-L" + 2 * runs);
        }
        assertThat(Files.readAllLines(dir.resolve("events.jsonl"))).hasSize(2 * runs);
    }

    private static void awaitSleeping(Thread writer) throws InterruptedException {
        // WAITING is a park without a time limit (a nap is TIMED_WAITING); the first naps end within a second
        for (int i = 0; i < 3000 && writer.getState() != Thread.State.WAITING; i++) {
            Thread.sleep(10);
        }
        assertThat(writer.getState()).isEqualTo(Thread.State.WAITING);
    }
}
