package dev.bellows.temporal.internal;

import dev.bellows.agent.RunContext;
import java.util.Optional;
import java.util.concurrent.ConcurrentMap;

/**
 * A durable run of a session as the listener of its end sees it: the loop's own context, named
 * after the session. The workflow's conversation lives in the workflow (its session is not a
 * stored one, so the loop knows no name), but the run belongs to the session the client named,
 * which is what a trace calls its conversation.
 */
record SessionRunContext(RunContext run, String session) implements RunContext {

    @Override
    public String agentName() {
        return run.agentName();
    }

    @Override
    public Optional<String> sessionName() {
        return Optional.of(session);
    }

    @Override
    public String task() {
        return run.task();
    }

    @Override
    public int iteration() {
        return run.iteration();
    }

    @Override
    public boolean isCancelled() {
        return run.isCancelled();
    }

    @Override
    public ConcurrentMap<String, Object> attributes() {
        return run.attributes();
    }
}
