package dev.bellows.agent;

import java.util.Optional;
import java.util.concurrent.ConcurrentMap;
import java.util.function.BooleanSupplier;

/** A run's context away from its process: see {@link RunContext#of}. */
record DetachedRun(String agentName, Optional<String> sessionName, String task, int iteration,
                   BooleanSupplier cancelled, ConcurrentMap<String, Object> attributes)
        implements RunContext {

    @Override
    public boolean isCancelled() {
        return cancelled.getAsBoolean();
    }
}
