package dev.bellows.agent;

import dev.bellows.json.internal.Jackson;
import tools.jackson.core.JacksonException;
import dev.bellows.event.AgentEvent;
import dev.bellows.tool.LoopEndReason;
import java.time.Duration;
import java.util.Iterator;
import java.util.Optional;
import java.util.concurrent.Flow;
import java.util.stream.Stream;

/**
 * A run whose final answer is a value of a record ({@link DefaultAgent#run(String, Class)}):
 * everything an {@link AgentRun} is, plus the answer as that record.
 *
 * <pre>{@code
 * record Summary(String title, List<String> points) { }
 * Summary summary = agent.run("Summarise README.md", Summary.class).answer();
 * }</pre>
 *
 * @param <R> the answer's type
 */
public final class TypedRun<R extends Record> implements AgentRun {

    private final AgentRun run;
    private final Class<R> type;

    TypedRun(AgentRun run, Class<R> type) {
        this.run = run;
        this.type = type;
    }

    /**
     * Waits for the end of the run and returns its answer.
     *
     * @throws IllegalStateException when the run did not end with {@code task_completion} (the
     *                               model asked a question, the run failed or was cancelled):
     *                               the message says how it ended
     */
    public R answer() {
        AgentResult result = run.await();
        if (result.reason() != LoopEndReason.TASK_COMPLETION) {
            throw new IllegalStateException("the run ended " + result.reason().wireName() + " without an answer: "
                    + result.result());
        }
        try {
            return Jackson.ARGUMENTS.forType(type).readValue(result.result());
        } catch (JacksonException e) {
            // task_completion checked and bound it already: this cannot happen but for a tool of the caller's own
            throw new IllegalStateException("the answer is not a " + type.getSimpleName() + ": " + e.getOriginalMessage());
        }
    }

    @Override
    public Stream<AgentEvent> events() {
        return run.events();
    }

    @Override
    public Iterator<AgentEvent> iterator() {
        return run.iterator();
    }

    @Override
    public Flow.Publisher<AgentEvent> publisher() {
        return run.publisher();
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
}
