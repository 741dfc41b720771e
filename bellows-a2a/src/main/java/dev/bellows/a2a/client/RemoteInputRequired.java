package dev.bellows.a2a.client;

import dev.bellows.tool.ToolException;

/**
 * Thrown by an {@link A2aAgentTool} when the remote task asks for input: the call cannot finish
 * until a person answers. {@link A2aAgentTool#waitsForInput()} turns it into a waiting call.
 */
public final class RemoteInputRequired extends ToolException {

    private static final long serialVersionUID = 1L;

    private final transient RemoteWait wait;

    RemoteInputRequired(RemoteWait wait) {
        super("the remote agent " + wait.agent() + " needs input: "
                + (wait.question().isEmpty() ? "(it asked nothing in words)" : wait.question()));
        this.wait = wait;
    }

    /** The waiting remote task. */
    public RemoteWait waiting() {
        return wait;
    }
}
