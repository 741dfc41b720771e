package dev.bellows.agent;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bellows.event.AgentEvent;
import dev.bellows.tool.LoopEndReason;
import dev.bellows.event.LoopEvent;
import dev.bellows.event.StreamEvent;
import java.lang.ref.WeakReference;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** What a run keeps of its events: all of them while its handle can be read, none once it cannot. */
class RunViewTest {

    @Test
    void aHeldHandleGetsEveryEventEvenAfterTheEnd() {
        RunHandle run = new RunHandle(List.of());
        AgentRun handle = run.view();
        emitRun(run, 100);

        assertThat(handle.await()).isEqualTo(new AgentResult(LoopEndReason.TASK_COMPLETION, "done"));
        assertThat(handle.events().toList()).hasSize(102).startsWith(new LoopEvent.LoopStart("task"));
        assertThat(run.keptEvents()).isEqualTo(102);
    }

    @Test
    void aDroppedHandleLetsTheRunForgetItsEventsWhileListenersHearThemAll() {
        List<AgentEvent> heard = new ArrayList<>();
        RunHandle run = new RunHandle(List.of(heard::add));
        WeakReference<AgentRun> dropped = new WeakReference<>(run.view());
        run.emit(new LoopEvent.LoopStart("task"));
        for (int i = 0; i < 50 && dropped.get() != null; i++) {
            System.gc();                // the handle is unreachable: collecting it is up to the collector
        }
        assertThat(dropped.get()).as("the collector cleared the dropped handle").isNull();

        emitRun(run, 100);

        assertThat(run.keptEvents()).isZero();
        assertThat(heard).hasSize(102);     // loop_start, 100 deltas, loop_end
        assertThat(run.await()).isEqualTo(new AgentResult(LoopEndReason.TASK_COMPLETION, "done"));
    }

    @Test
    void aReaderKeepsTheEventsAliveAfterTheHandleIsDropped() {
        RunHandle run = new RunHandle(List.of());
        var events = run.view().iterator();    // the handle itself is not kept
        for (int i = 0; i < 5; i++) {
            System.gc();
        }
        emitRun(run, 10);

        List<AgentEvent> read = new ArrayList<>();
        events.forEachRemaining(read::add);
        assertThat(read).hasSize(12);
    }

    @Test
    void anIteratorReadsPastTheEndAsBeforeItWithoutSeeingWhatCameAfterLoopEnd() throws Exception {
        RunHandle run = new RunHandle(List.of());
        AgentRun view = run.view();
        var early = view.iterator();
        run.emit(new LoopEvent.LoopStart("task"));
        assertThat(early.next()).isInstanceOf(LoopEvent.LoopStart.class);     // read while the run goes, under its lock
        List<AgentEvent> read = new ArrayList<>();
        Thread reader = Thread.ofVirtual().start(() -> early.forEachRemaining(read::add));    // waits for the rest
        emitRun(run, 20);
        run.emit(new StreamEvent.MessageContent(99, "after the end"));     // dropped: the run has ended
        reader.join();

        assertThat(read).hasSize(21).last().isInstanceOf(LoopEvent.LoopEnd.class);
        List<AgentEvent> after = new ArrayList<>();
        var late = view.iterator();     // made after the end: read without the lock once it has seen the end
        late.forEachRemaining(after::add);
        assertThat(after).hasSize(22).containsSubsequence(read);
        assertThat(late.hasNext()).isFalse();
        org.assertj.core.api.Assertions.assertThatThrownBy(late::next).isInstanceOf(java.util.NoSuchElementException.class);
        org.assertj.core.api.Assertions.assertThatThrownBy(early::next).isInstanceOf(java.util.NoSuchElementException.class);
    }

    private static void emitRun(RunHandle run, int deltas) {
        if (run.keptEvents() == 0) {
            run.emit(new LoopEvent.LoopStart("task"));
        }
        for (int i = 0; i < deltas; i++) {
            run.emit(new StreamEvent.MessageContent(i, "x"));
        }
        run.emit(new LoopEvent.LoopEnd(LoopEndReason.TASK_COMPLETION, "done"));
    }
}
