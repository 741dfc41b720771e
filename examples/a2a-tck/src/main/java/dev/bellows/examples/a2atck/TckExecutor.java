package dev.bellows.examples.a2atck;

import dev.bellows.a2a.A2aError;
import dev.bellows.a2a.A2aException;
import dev.bellows.a2a.Part;
import dev.bellows.a2a.server.A2aExecutor;
import dev.bellows.a2a.server.RequestContext;
import dev.bellows.a2a.server.TaskUpdater;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * What the conformance kit's scenarios ({@code scenarios/*.feature} of a2aproject/a2a-tck)
 * ask of the agent, chosen by the prefix of the message's id: the kit's tests send
 * {@code tck-complete-task-...}, {@code tck-stream-artifact-chunked-...} and so on, and check
 * what comes back. The protocol itself (ids, history, errors, streams, push) is bellows-a2a's.
 */
final class TckExecutor implements A2aExecutor {

    /** How long the long-running task of the resubscription test works (the kit waits 2 s at most per event). */
    static final Duration LONG_TASK = Duration.ofSeconds(4);

    @Override
    public void execute(RequestContext context, TaskUpdater updater) throws Exception {
        String id = context.message().messageId();
        // The longer prefixes first: "tck-artifact-file-url" also starts with "tck-artifact-file".
        if (id.startsWith("tck-stream-artifact-chunked")) {
            updater.startWork();
            updater.addArtifact("chunked", null, List.of(Part.text("chunk-1 ")), true, false);
            updater.addArtifact("chunked", null, List.of(Part.text("chunk-2")), true, true);
            updater.complete();
        } else if (id.startsWith("test-resubscribe-message-id")) {
            updater.startWork();
            Thread.sleep(LONG_TASK);
            updater.complete();
        } else if (id.startsWith("tck-stream-artifact-text")) {
            streamed(updater, List.of(Part.text("Streamed text content")));
        } else if (id.startsWith("tck-stream-artifact-file")) {
            streamed(updater, List.of(file()));
        } else if (id.startsWith("tck-stream-ordering-001")) {
            streamed(updater, List.of(Part.text("Ordered output")));
        } else if (id.startsWith("tck-stream-001")) {
            streamed(updater, List.of(Part.text("Stream hello from TCK")));
        } else if (id.startsWith("tck-stream-002")) {
            updater.complete();
        } else if (id.startsWith("tck-stream-003")) {
            streamed(updater, List.of(Part.text("Stream task lifecycle")));
        } else if (id.startsWith("tck-artifact-file-url")) {
            artifact(updater, List.of(Part.fileUrl("https://example.com/output.txt", "output.txt", "text/plain")));
        } else if (id.startsWith("tck-artifact-file")) {
            artifact(updater, List.of(file()));
        } else if (id.startsWith("tck-artifact-text")) {
            artifact(updater, List.of(Part.text("Generated text content")));
        } else if (id.startsWith("tck-artifact-data")) {
            artifact(updater, List.of(Part.data(Map.of("key", "value", "count", 42))));
        } else if (id.startsWith("tck-message-response")) {
            updater.reply(updater.newAgentMessage(List.of(Part.text("Direct message response"))));
        } else if (id.startsWith("tck-input-required")) {
            updater.requiresInput(updater.newAgentMessage(List.of(Part.text("What else do you need?"))));
        } else if (id.startsWith("tck-reject-task")) {
            throw new A2aException(A2aError.UNSUPPORTED_OPERATION, "rejected");
        } else if (id.startsWith("tck-complete-task")) {
            updater.complete(updater.newAgentMessage(List.of(Part.text("Hello from TCK"))));
        } else {
            updater.complete(updater.newAgentMessage(List.of(Part.text("Unhandled messageId prefix: " + id))));
        }
    }

    private static Part file() {
        return Part.file("tck".getBytes(StandardCharsets.UTF_8), "output.txt", "text/plain");
    }

    private static void streamed(TaskUpdater updater, List<Part> parts) {
        updater.startWork();
        updater.addArtifact(parts);
        updater.complete();
    }

    private static void artifact(TaskUpdater updater, List<Part> parts) {
        updater.addArtifact(parts);
        updater.complete();
    }
}
