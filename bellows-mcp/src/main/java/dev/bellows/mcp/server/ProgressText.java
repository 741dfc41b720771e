package dev.bellows.mcp.server;

import dev.bellows.event.AgentEvent;
import dev.bellows.event.LoopEvent;
import dev.bellows.event.StreamEvent;
import dev.bellows.secret.Secrets;

/**
 * A run's steps as the short lines of MCP progress notifications: each iteration, each tool
 * call and its outcome, retries, approvals, the end; a sub-agent's steps under its name
 * ({@code researcher: calling search}). The streamed text itself is not a step: the answer is
 * the call's result. Secrets are redacted; long texts cut.
 */
final class ProgressText {

    private static final int MAX = 200;

    private ProgressText() {
    }

    /** The line for the event, or null when it is no step. */
    static String of(AgentEvent event) {
        String text = line(event);
        return text == null ? null : Secrets.redact(cut(text));
    }

    private static String line(AgentEvent event) {
        return switch (event) {
            case LoopEvent.SubAgentEvent nested -> {
                String inner = line(nested.event());
                yield inner == null ? null : nested.agent() + ": " + inner;
            }
            case LoopEvent.IterationStart start -> "iteration " + start.iteration();
            case StreamEvent.ToolCallName name -> "calling " + name.toolName();
            case LoopEvent.ToolResultEvent result -> result.toolName() + " done: " + result.result();
            case LoopEvent.ToolResultError error -> error.toolName() + " failed: " + error.error();
            case LoopEvent.Retry retry -> "retry " + retry.attempt() + ": " + retry.reason();
            case LoopEvent.ApprovalRequired waiting -> waiting.toolName() + " waits for approval";
            case LoopEvent.Approval approval -> approval.approved() ? "approved" : "denied: " + approval.reason();
            case LoopEvent.LoopEnd end -> "ended " + end.reason().wireName();
            default -> null;
        };
    }

    private static String cut(String text) {
        String flat = text.replaceAll("\\s+", " ").strip();
        return flat.length() <= MAX ? flat : flat.substring(0, MAX - 1) + "…";
    }
}
