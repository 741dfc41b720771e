package dev.bellows.agent;

import tools.jackson.databind.JsonNode;
import dev.bellows.memory.WaitingRun;
import dev.bellows.tool.ToolCall;
import java.util.List;
import java.util.Objects;

/**
 * A tool call a stopped run waits on ({@code interrupted}): it has not run, and a resume must
 * answer it with a {@link Decision}.
 *
 * @param id   the call's id, unique within the session (see {@link ToolInterceptor.Chain#callId()})
 * @param call the call: server, tool, and the arguments as checked against the tool's schema
 * @param kind what it waits for
 */
public record WaitingCall(String id, ToolCall call, Kind kind) {

    /** What a waiting call waits for. */
    public enum Kind {
        /** A person's approval ({@link Decision#approve}, {@link Decision#deny}). */
        APPROVAL,
        /**
         * Its result from outside the run: an interceptor deferred it ({@link Decision#respond},
         * or {@link Decision#deny}).
         */
        EXTERNAL
    }

    public WaitingCall {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(call, "call");
        Objects.requireNonNull(kind, "kind");
    }

    /**
     * The calls a stored session's waiting run ({@code StoredSession.waitingRun()}, or
     * {@code SessionStore.waitingRun(name)} without opening it) waits on, in call order, less
     * those its log says were decided already.
     *
     * @throws IllegalStateException when the stored run is damaged: the message says how
     */
    public static List<WaitingCall> of(WaitingRun run) {
        Objects.requireNonNull(run, "run");
        try {
            ResumeLog log = new ResumeLog(run.log().stream().map(SuspensionJson::readLogEntry).toList());
            return SuspensionJson.readSuspension(run.state()).waiting().stream()
                    .filter(call -> log.decision(call.id()) == null).toList();
        } catch (RuntimeException e) {
            throw new IllegalStateException("the stored waiting run is damaged: " + e.getMessage(), e);
        }
    }

    /** The call's server. */
    public String serverName() {
        return call.serverName();
    }

    /** The call's tool. */
    public String toolName() {
        return call.toolName();
    }

    /** The call's arguments, frozen (read-only; {@link JsonNode#deepCopy()} gives a tree to edit). */
    public JsonNode arguments() {
        return call.arguments();
    }
}
