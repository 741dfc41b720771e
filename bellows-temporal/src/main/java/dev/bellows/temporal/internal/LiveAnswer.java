package dev.bellows.temporal.internal;

import java.util.List;

/**
 * The heartbeat of a model-call activity (its {@code call}, {@code model-N} in the run's log): the stream events of its answer so far, in their JSON
 * wire form, from the first; a follower shows those it has not shown yet. Capped at
 * {@link ModelActivitiesImpl#LIVE_LIMIT} characters: past that, {@code complete} is false and the
 * rest reaches followers from the run's log once the answer is recorded.
 */
public record LiveAnswer(String call, List<String> events, boolean complete) {

    public LiveAnswer {
        events = List.copyOf(events);
    }
}
