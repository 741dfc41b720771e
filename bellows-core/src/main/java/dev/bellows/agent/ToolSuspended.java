package dev.bellows.agent;

import dev.bellows.json.internal.FrozenJson;
import dev.bellows.tool.ToolException;
import java.util.List;
import java.util.Objects;
import tools.jackson.databind.JsonNode;

/**
 * Thrown by a {@link ResumableTool}'s call to make the whole run wait: the call cannot finish
 * before a person (or something outside the run) answers the calls it names. The run stops as
 * it stops at a call that needs approval ({@code interrupted}: {@code bellows run} exits 3, the
 * server sends its approvals interrupt, a chat asks at once), the suspension is kept in the
 * session, and once every one of its calls has a decision the run goes on by calling
 * {@link ResumableTool#resume} with them, in this process or another.
 *
 * <p>Outside the tool, each of its waiting calls is known by the id of the call that suspended
 * followed by {@code /} and the tool's own id ({@code call_2_1/call_1_1}): an agent run as a tool
 * ({@link AgentTool}) gives its sub-agent's waiting calls so, nested to any depth.
 *
 * <pre>{@code
 * throw new ToolSuspended(JsonNodeFactory.instance.objectNode().put("task", taskId),
 *         List.of(new WaitingCall("input", new ToolCall("remote", "planner", question), WaitingCall.Kind.EXTERNAL)));
 * }</pre>
 *
 * <p>A tool that is not a {@link ResumableTool} and throws it fails its call, since nothing could
 * carry it on. Thrown by any other code it is the {@link ToolException} it extends.
 */
public final class ToolSuspended extends ToolException {

    private final transient JsonNode state;
    private final transient List<WaitingCall> waiting;

    /**
     * @param state   what the tool needs to go on later (kept with the session, as JSON; it must
     *                hold no secret): kept frozen (a copy unless frozen already), so changing
     *                your tree afterwards changes nothing
     * @param waiting the calls that wait, with the tool's own ids (unique among them; a nested
     *                tool's own are {@code ID/THEIRS} already); at least one
     * @throws IllegalArgumentException for no waiting call, an empty id, or two with one id
     */
    public ToolSuspended(JsonNode state, List<WaitingCall> waiting) {
        super("waiting for a decision on " + String.join(", ", waiting.stream().map(WaitingCall::id).toList()));
        this.state = FrozenJson.freeze(Objects.requireNonNull(state, "state"));
        this.waiting = List.copyOf(waiting);
        if (this.waiting.isEmpty()) {
            throw new IllegalArgumentException("a suspended call waits for at least one decision");
        }
        java.util.Set<String> ids = new java.util.HashSet<>();
        for (WaitingCall call : this.waiting) {
            if (call.id().isEmpty() || !ids.add(call.id())) {
                throw new IllegalArgumentException("the waiting calls' ids must be unique and not empty: " + call.id());
            }
        }
    }

    /** What the tool kept to go on, frozen (read-only: its mutators throw; {@link JsonNode#deepCopy()} to edit). */
    public JsonNode state() {
        return state;
    }

    /** The calls that wait, with the tool's own ids. */
    public List<WaitingCall> waiting() {
        return waiting;
    }
}
