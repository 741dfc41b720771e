package dev.bellows.a2a.server;

import dev.bellows.a2a.StreamResponse;
import dev.bellows.a2a.TaskState;
import dev.bellows.server.ServerExchange;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * A task's events as Server-Sent Events, one {@code data:} line each (the process's secrets
 * redacted), from a subscription on:
 * the snapshot first, then every event after it, until a final or interrupted state. A comment
 * line is written when nothing else was for the heartbeat interval, so a client that left is
 * noticed; it ends the stream, never the task.
 */
final class Streams {

    private static final byte[] HEARTBEAT = ":\n\n".getBytes(StandardCharsets.US_ASCII);
    private final Duration heartbeat;

    Streams(Duration heartbeat) {
        this.heartbeat = heartbeat;
    }

    static Map<String, String> headers() {
        Map<String, String> headers = new LinkedHashMap<>();
        headers.put("Content-Type", "text/event-stream; charset=utf-8");
        headers.put("Cache-Control", "no-cache, no-store");
        headers.put("X-Accel-Buffering", "no");
        return headers;
    }

    /** Opens the stream and writes the given frames only (a direct message). */
    void single(ServerExchange exchange, byte[] frame) throws IOException {
        try (OutputStream out = exchange.respond(200, headers())) {
            data(out, frame);
        }
    }

    /**
     * Streams the task: the snapshot, then the log from the subscription's place.
     *
     * @param frame the bytes of one event's {@code data:} payload in the binding's envelope
     */
    void task(ServerExchange exchange, LiveTask task, LiveTask.Subscription subscription,
              Function<StreamResponse, byte[]> frame) throws IOException {
        try (OutputStream out = exchange.respond(200, headers())) {
            data(out, frame.apply(StreamResponse.of(subscription.snapshot())));
            int next = subscription.from();
            long interval = heartbeat.toNanos();
            while (true) {
                List<StreamResponse> events;
                try {
                    events = task.events(next, interval);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
                if (events.isEmpty()) {
                    out.write(HEARTBEAT);
                    out.flush();
                    continue;
                }
                for (StreamResponse event : events) {
                    next++;
                    if (event.message() != null) {
                        continue;       // a direct reply belongs to the request that made it
                    }
                    data(out, frame.apply(event));
                    TaskState state = event.statusUpdate() == null ? null : event.statusUpdate().status().state();
                    if (state != null && (state.terminal() || state.interrupted())) {
                        return;
                    }
                }
            }
        }
    }

    private static void data(OutputStream out, byte[] payload) throws IOException {
        out.write("data: ".getBytes(StandardCharsets.US_ASCII));
        out.write(Http.redacted(payload));
        out.write("\n\n".getBytes(StandardCharsets.US_ASCII));
        out.flush();
    }
}
