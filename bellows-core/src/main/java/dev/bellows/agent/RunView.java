package dev.bellows.agent;

import dev.bellows.event.AgentEvent;
import java.time.Duration;
import java.util.Iterator;
import java.util.Objects;
import java.util.Optional;
import java.util.Spliterator;
import java.util.Spliterators;
import java.util.concurrent.Flow;
import java.util.stream.Stream;
import java.util.stream.StreamSupport;

/**
 * The caller's handle of a run. The run itself ({@link RunHandle}) holds it only weakly: while
 * the caller (or a reader it started) can still reach it, the run keeps every event for the
 * readers; once nobody can, no reader can ever start, so the run stops keeping its events and
 * its memory no longer grows with its length (a run followed by listeners alone).
 */
final class RunView implements AgentRun {

    private final RunHandle run;

    RunView(RunHandle run) {
        this.run = run;
    }

    @Override
    public Stream<AgentEvent> events() {
        return StreamSupport.stream(Spliterators.spliteratorUnknownSize(iterator(),
                Spliterator.ORDERED | Spliterator.NONNULL), false);
    }

    @Override
    public Iterator<AgentEvent> iterator() {
        Iterator<AgentEvent> events = run.iterator();
        RunView owner = this;           // a reader keeps the handle, and so the events, alive
        return new Iterator<>() {
            private final RunView keep = owner;

            @Override
            public boolean hasNext() {
                return events.hasNext();
            }

            @Override
            public AgentEvent next() {
                return events.next();
            }

            @Override
            public String toString() {
                return "events of " + keep;
            }
        };
    }

    @Override
    public Flow.Publisher<AgentEvent> publisher() {
        return subscriber -> {
            Objects.requireNonNull(subscriber, "subscriber");
            run.subscribe(subscriber, this);
        };
    }

    @Override
    public AgentResult await() {
        return run.await();
    }

    @Override
    public Optional<AgentResult> await(Duration timeout) throws InterruptedException {
        return run.await(timeout);
    }

    @Override
    public void cancel() {
        run.cancel();
    }

    @Override
    public boolean isDone() {
        return run.isDone();
    }

    @Override
    public String toString() {
        return "AgentRun[" + (isDone() ? "done" : "running") + "]";
    }
}
