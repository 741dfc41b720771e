package dev.bellows.a2a.server;

import dev.bellows.a2a.Message;
import dev.bellows.a2a.Part;
import dev.bellows.a2a.Task;
import java.util.Objects;
import java.util.stream.Collectors;

/**
 * One message an {@link A2aExecutor} handles.
 *
 * @param message   the client's message, its task and context ids set
 * @param taskId    the task's id (new or given)
 * @param contextId the context (conversation) the task belongs to
 * @param task      the task as it was before this message, or null for a new task
 * @param principal who sent it, as the server tells callers apart (a digest of their credentials; empty for none)
 */
public record RequestContext(Message message, String taskId, String contextId, Task task, String principal) {

    public RequestContext {
        Objects.requireNonNull(message, "message");
        Objects.requireNonNull(taskId, "taskId");
        Objects.requireNonNull(contextId, "contextId");
        Objects.requireNonNull(principal, "principal");
    }

    /** The message's text parts, joined by blank lines. */
    public String text() {
        return message.parts() == null ? "" : message.parts().stream().map(Part::text).filter(Objects::nonNull)
                .collect(Collectors.joining("\n\n"));
    }
}
