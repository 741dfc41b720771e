package dev.bellows.spring.web;

import dev.bellows.agent.AgentRun;
import dev.bellows.event.AgentEvent;
import dev.bellows.event.EventJson;
import java.io.IOException;
import java.time.Duration;
import java.util.Objects;
import org.springframework.web.servlet.mvc.method.annotation.SseEmitter;

/**
 * A run's events as Server-Sent Events from a Spring MVC controller: each event one SSE
 * message whose data is the event's JSON form ({@link EventJson}, as the CLI's
 * {@code --output jsonl}), from {@code loop_start} to {@code loop_end}, then the response
 * ends.
 *
 * <pre>{@code
 * @GetMapping(path = "/ask", produces = MediaType.TEXT_EVENT_STREAM_VALUE)
 * SseEmitter ask(@RequestParam String task) {
 *     return AgentEventsSse.stream(agent.run(task, new Session()));
 * }
 * }</pre>
 *
 * <p>In the browser: {@code new EventSource("/ask?task=...")}, {@code JSON.parse} each
 * message's data, and {@code close()} the source after {@code loop_end}, or it reconnects
 * and asks again. A client that goes away cancels the run: the next event cannot be sent,
 * and nobody would read the rest.
 */
public final class AgentEventsSse {

    private AgentEventsSse() {
    }

    /** The run's events, with no time limit on the response (the run's own limits end it). */
    public static SseEmitter stream(AgentRun run) {
        return stream(run, Duration.ZERO);
    }

    /**
     * The run's events; when the response has taken {@code timeout}, it ends and the run is
     * cancelled.
     *
     * @param timeout {@link Duration#ZERO} for no limit
     */
    public static SseEmitter stream(AgentRun run, Duration timeout) {
        Objects.requireNonNull(run, "run");
        Objects.requireNonNull(timeout, "timeout");
        if (timeout.isNegative()) {
            throw new IllegalArgumentException("timeout cannot be negative, got " + timeout);
        }
        // 0 is "no timeout" for the servlet container; Spring would take null as its default.
        SseEmitter emitter = new SseEmitter(timeout.toMillis());
        // Each ends the response early (or is told of its normal end, when cancel does nothing).
        emitter.onTimeout(run::cancel);
        emitter.onError(error -> run.cancel());
        emitter.onCompletion(run::cancel);
        Thread.ofVirtual().name("bellows-sse").start(() -> forward(run, emitter));
        return emitter;
    }

    private static void forward(AgentRun run, SseEmitter emitter) {
        long id = 0;
        try {
            for (AgentEvent event : run) {
                emitter.send(SseEmitter.event()
                        .id(Long.toString(id++))
                        .data(EventJson.toJson(event, false).toString()));
            }
            emitter.complete();
        } catch (IOException | IllegalStateException gone) {
            // The client went away (IOException, which Spring MVC itself reports to the
            // emitter's error callback) or the response already ended (timeout): nobody reads
            // the rest of the run.
            run.cancel();
        }
    }
}
