package dev.bellows.temporal.internal;

import java.util.List;

/**
 * A page of a run's event log, as its query answers.
 *
 * @param from      the index of the first event in the page
 * @param events    events in their JSON wire form (with {@code chunk}), in order
 * @param sources   for each event, the model call ({@code model-N}) whose answer it was read from, or null
 * @param total     how many events the log holds now
 * @param ended     true when the last event is a {@code loop_end}: the run is over, or it waits for
 *                  approval ({@code interrupted}) and a decision may carry it on
 * @param streaming the model call now streaming ({@code model-N}), whose live events are in its
 *                  activity's heartbeat, or null
 */
public record EventPage(long from, List<String> events, List<String> sources, long total, boolean ended,
                        String streaming) {
}
