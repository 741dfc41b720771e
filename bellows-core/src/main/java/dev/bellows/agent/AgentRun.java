package dev.bellows.agent;

import dev.bellows.event.AgentEvent;
import java.time.Duration;
import java.util.Iterator;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.Flow;
import java.util.stream.Stream;

/**
 * One run of an {@link Agent}: its events and its result. The run goes on in the background
 * whether or not anyone reads its events.
 *
 * <p>Every event is kept for the life of the handle, so each way of reading them
 * ({@link #events()}, {@link #iterator()}, {@link #publisher()}, as many times as you like,
 * from any thread, early or late) gets all of them from {@code loop_start} to
 * {@code loop_end}, in order: a slow consumer loses nothing and never slows the run. Once
 * the handle (and every reader made from it) is unreachable, nobody can read them any more,
 * and the run stops keeping them: a run followed by listeners alone does not hold its events.
 *
 * <pre>{@code
 * AgentRun run = agent.run("Summarise README.md");
 * run.events()
 *    .filter(e -> e instanceof LoopEvent)
 *    .forEach(e -> System.out.println(EventJson.toJson(e)));
 * AgentResult result = run.await();
 * }</pre>
 */
public interface AgentRun extends Iterable<AgentEvent> {

    /**
     * The events as a sequential stream that blocks for the next event and ends after
     * {@code loop_end}. Closing the stream does not cancel the run.
     *
     * @throws CancellationException from the stream's operations when the reading thread is
     *                               interrupted while waiting (its interrupt status is kept)
     */
    Stream<AgentEvent> events();

    /**
     * The events, one at a time: {@code hasNext()} blocks until the next event or the end.
     *
     * @throws CancellationException from {@code hasNext()}/{@code next()} when the reading
     *                               thread is interrupted while waiting (its interrupt status is kept)
     */
    @Override
    Iterator<AgentEvent> iterator();

    /**
     * The events for reactive consumers: each subscriber gets every event from the first, as
     * it requests them, on a thread of its own, then {@code onComplete}. Cancelling a
     * subscription stops that subscriber only, never the run.
     */
    Flow.Publisher<AgentEvent> publisher();

    /**
     * Waits for the end of the run. A {@link DefaultAgent} without an executor of the caller's
     * may run the loop on the waiting thread itself when the run has not begun yet: the same
     * events, without handing every streamed piece from one thread to another.
     *
     * @throws CancellationException when the waiting thread is interrupted (its interrupt
     *                               status is kept; the run goes on, {@link #cancel()} stops it)
     */
    AgentResult await();

    /** Waits at most {@code timeout} for the end of the run; empty if it has not ended by then. */
    Optional<AgentResult> await(Duration timeout) throws InterruptedException;

    /**
     * Cancels the run, from any thread: the model call in progress is aborted, running tools
     * are interrupted and see their context cancelled, and the run ends {@code cancelled}
     * (unless it ended before). Does nothing once the run has ended.
     */
    void cancel();

    /** True once {@code loop_end} has been emitted. */
    boolean isDone();
}
