package dev.bellows.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.bellows.event.AgentEvent;
import dev.bellows.tool.LoopEndReason;
import dev.bellows.event.LoopEvent;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/** A run not yet begun is run by whoever comes first: its executor's thread, or a caller of await(). */
class RunStartTest {

    private static final AgentResult DONE = new AgentResult(LoopEndReason.TASK_COMPLETION, "done");

    /** A run's body as the loop's: loop_start, the work, loop_end. */
    private static Runnable body(RunHandle run, List<Thread> ranOn) {
        return () -> LoopEnds.runBetweenStartAndEnd(run, "task", () -> {
            ranOn.add(Thread.currentThread());
            return new LoopEvent.LoopEnd(LoopEndReason.TASK_COMPLETION, "done");
        });
    }

    @Test
    void theBodyIsTakenOnceAndThenLetGo() {
        List<Thread> ranOn = new ArrayList<>();
        RunStart start = new RunStart(() -> ranOn.add(Thread.currentThread()));
        Runnable taken = start.claim();
        assertThat(taken).isNotNull();
        assertThat(start.claim()).isNull();
        start.run();                        // the executor's thread comes second: nothing to do
        assertThat(ranOn).isEmpty();
        taken.run();
        assertThat(ranOn).containsExactly(Thread.currentThread());
    }

    @Test
    void aCallerOfAwaitThatComesFirstRunsTheRunOnItsOwnThreadWithEveryEvent() {
        List<AgentEvent> heard = new ArrayList<>();
        RunHandle run = new RunHandle(List.of(heard::add));
        List<Thread> ranOn = new ArrayList<>();
        RunStart start = new RunStart(body(run, ranOn));
        run.offer(start);                   // handed to an executor that has not begun it
        AgentRun handle = run.view();

        assertThat(handle.await()).isEqualTo(DONE);
        assertThat(ranOn).containsExactly(Thread.currentThread());
        assertThat(heard).extracting(AgentEvent::type).containsExactly("loop_start", "loop_end");
        assertThat(handle.events().map(AgentEvent::type).toList()).containsExactly("loop_start", "loop_end");

        start.run();                        // the executor's thread, late: the run is not run twice
        assertThat(ranOn).hasSize(1);
        assertThat(heard).hasSize(2);
    }

    @Test
    void theExecutorsThreadThatComesFirstRunsItAndAwaitOnlyWaits() throws InterruptedException {
        RunHandle run = new RunHandle(List.of());
        List<Thread> ranOn = new CopyOnWriteArrayList<>();
        RunStart start = new RunStart(body(run, ranOn));
        run.offer(start);
        Thread executor = Thread.ofVirtual().start(start);
        executor.join();

        assertThat(run.view().await()).isEqualTo(DONE);
        assertThat(ranOn).containsExactly(executor);
    }

    @Test
    void anInterruptedCallerDoesNotTakeTheRunItOnlyStopsWaiting() {
        RunHandle run = new RunHandle(List.of());
        List<Thread> ranOn = new ArrayList<>();
        RunStart start = new RunStart(body(run, ranOn));
        run.offer(start);
        AgentRun handle = run.view();

        Thread.currentThread().interrupt();
        try {
            assertThatThrownBy(handle::await).isInstanceOf(CancellationException.class);
        } finally {
            Thread.interrupted();
        }
        assertThat(ranOn).isEmpty();
        start.run();                        // the executor still runs it
        assertThat(ranOn).containsExactly(Thread.currentThread());
        assertThat(handle.await()).isEqualTo(DONE);
    }

    @Test
    void withoutAnOfferAwaitNeverRunsAnything() throws InterruptedException {
        RunHandle run = new RunHandle(List.of());
        List<Thread> ranOn = new CopyOnWriteArrayList<>();
        Runnable body = body(run, ranOn);   // an executor of the caller's: never offered
        AgentRun handle = run.view();
        Thread waiter = Thread.ofVirtual().start(handle::await);
        while (waiter.getState() != Thread.State.WAITING && waiter.getState() != Thread.State.TERMINATED) {
            Thread.onSpinWait();
        }
        assertThat(waiter.getState()).as("waiting, not running the loop").isEqualTo(Thread.State.WAITING);
        body.run();
        waiter.join();
        assertThat(ranOn).containsExactly(Thread.currentThread());
    }
}
