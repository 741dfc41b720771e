package dev.bellows.temporal.internal;

import dev.bellows.secret.Secrets;
import dev.bellows.event.AgentEvent;
import dev.bellows.event.EventJson;
import dev.bellows.event.LoopEvent;
import dev.bellows.event.StreamEvent;
import java.util.ArrayList;
import java.util.List;

/**
 * The events of a run as its loop emits them in the workflow, for followers to read with the
 * workflow's query. It is workflow state rebuilt by every replay (the loop emits the same events
 * again from the recorded answers), so it costs the history nothing. Each stream event names the
 * model-call activity whose answer it was read from: a follower that showed that answer live
 * skips it here.
 *
 * <p>Workflow code: one thread at a time (the workflow's), queries included.
 */
final class EventLog {

    /** The most characters of events one query answer carries. */
    static final int PAGE_CHARACTERS = 1024 * 1024;

    private final List<String> events = new ArrayList<>();
    private final List<String> sources = new ArrayList<>();
    private boolean ended;
    private String source;          // the model call whose answer is being read
    private String streaming;       // the model call in flight

    void add(AgentEvent event) {
        if (event instanceof StreamEvent.Complete) {
            return;
        }
        // The recorded answers and results are redacted already; this keeps any other text a worker
        // knows (an error of its own) out of what followers read.
        events.add(Secrets.redact(EventJson.toJson(event, true).toString()));
        sources.add(event instanceof StreamEvent ? source : null);
        // A run that waits for approval ends interrupted and may be carried on: only the last end counts.
        ended = event instanceof LoopEvent.LoopEnd;
    }

    /** A model call was scheduled; its live events are in its heartbeat until it returns. */
    void streaming(String activityId) {
        streaming = activityId;
    }

    /** The model call's answer is now read by the loop: the stream events that follow come from it. */
    void reading(String activityId) {
        streaming = null;
        source = activityId;
    }

    /** How many events the log holds. */
    int size() {
        return events.size();
    }

    /** True when the last event is a {@code loop_end}: the run is over, or waits for approval. */
    boolean ended() {
        return ended;
    }

    EventPage page(long from) {
        int start = (int) Math.max(0, Math.min(from, events.size()));
        int end = start;
        int characters = 0;
        while (end < events.size() && (end == start || characters + events.get(end).length() <= PAGE_CHARACTERS)) {
            characters += events.get(end).length();
            end++;
        }
        return new EventPage(start, List.copyOf(events.subList(start, end)),
                new ArrayList<>(sources.subList(start, end)), events.size(), ended, streaming);
    }
}
