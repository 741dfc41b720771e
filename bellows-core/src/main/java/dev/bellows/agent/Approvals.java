package dev.bellows.agent;

import dev.bellows.agent.internal.ToolPattern;
import dev.bellows.tool.BuiltinTools;
import dev.bellows.tool.ToolCall;
import java.util.List;
import java.util.Set;
import java.util.function.Predicate;

/**
 * Which calls need a person's approval: those a pattern ({@code SERVER/TOOL}, {@code *} any run
 * of characters) or a policy says so, never the built-in loop tools. Immutable.
 */
final class Approvals implements Predicate<ToolCall> {

    /** The loop's own tools, which never wait: they only end the run or replace the plan. */
    private static final Set<String> LOOP_TOOLS = Set.of(BuiltinTools.TASK_COMPLETION, BuiltinTools.ASK_QUESTION,
            BuiltinTools.CONVERSE, BuiltinTools.UPDATE_PLAN);

    private final List<ToolPattern> patterns;
    private final List<Predicate<ToolCall>> policies;

    Approvals(List<ToolPattern> patterns, List<Predicate<ToolCall>> policies) {
        this.patterns = List.copyOf(patterns);
        this.policies = List.copyOf(policies);
    }

    boolean isEmpty() {
        return patterns.isEmpty() && policies.isEmpty();
    }

    @Override
    public boolean test(ToolCall call) {
        if (call.serverName().equals(ToolCall.LOCAL_SERVER) && LOOP_TOOLS.contains(call.toolName())) {
            return false;
        }
        for (ToolPattern pattern : patterns) {
            if (pattern.matches(call)) {
                return true;
            }
        }
        for (Predicate<ToolCall> policy : policies) {
            if (policy.test(call)) {
                return true;
            }
        }
        return false;
    }
}
