package dev.bellows.agent;

import dev.bellows.tool.Tool;
import dev.bellows.tool.ToolCall;
import dev.bellows.tool.ToolCallOutcome;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;

/**
 * A run's external tools as a tool interceptor ({@link DefaultAgent#run(String, Session, List)}):
 * a call of one is deferred, to wait for its result from outside the run
 * ({@link WaitingCall.Kind#EXTERNAL}); every other call passes on. It sits after the approvals'
 * gate and before the agent's own interceptors, so that none of those runs a call that is not
 * the agent's to run (docs/machine.md, "The seam"). Made once per run that has external tools;
 * immutable, thread-safe.
 */
final class ExternalCalls implements ToolInterceptor {

    /** The external tools themselves: a local tool of the agent's with the same name is another tool. */
    private final Set<Tool> tools = Collections.newSetFromMap(new IdentityHashMap<>());

    ExternalCalls(List<Tool> external) {
        tools.addAll(external);
    }

    @Override
    public ToolCallOutcome intercept(Chain chain) {
        return chain.call().serverName().equals(ToolCall.LOCAL_SERVER) && tools.contains(chain.tool())
                ? chain.defer() : chain.proceed();
    }
}
