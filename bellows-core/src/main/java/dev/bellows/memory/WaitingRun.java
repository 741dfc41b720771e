package dev.bellows.memory;

import java.util.List;
import java.util.Objects;

/**
 * What a {@link StoredSession} keeps of a run that stopped at tool calls waiting for a
 * decision: the run's state, and the log of what resuming it has done so far (decisions taken,
 * calls started, calls ended). Both are JSON text the agent writes and reads
 * ({@code dev.bellows.agent}); a store keeps them as they are.
 *
 * @param state the waiting run's state
 * @param log   the log's entries, oldest first
 */
public record WaitingRun(String state, List<String> log) {

    public WaitingRun {
        Objects.requireNonNull(state, "state");
        log = List.copyOf(Objects.requireNonNull(log, "log"));
    }
}
