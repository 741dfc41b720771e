package dev.bellows.anthropic;

import dev.bellows.http.SseConnection;
import dev.bellows.http.SseEvent;
import dev.bellows.provider.ChatStream;
import java.net.URI;
import java.util.List;
import java.util.Map;

/**
 * The benchmarks' way to the provider's package-private stream decoder: in the provider's
 * package, in this module's tests (bellows-bench gets it from the test jar), so that the
 * library's API stays as it is. Decodes events
 * already received, exactly as {@link AnthropicProvider#stream} decodes those of a response.
 */
public final class ChatStreamProbe {

    private static final URI ENDPOINT = URI.create("http://127.0.0.1/v1/messages");

    private ChatStreamProbe() {
    }

    /** A stream over {@code events}, read in order (the list is not changed). */
    public static ChatStream over(List<SseEvent> events) {
        return new AnthropicStream(new Replay(events), ENDPOINT, null);
    }

    /** Events received earlier, handed out one by one as a connection would. */
    static final class Replay implements SseConnection {
        private final List<SseEvent> events;
        private int next;

        Replay(List<SseEvent> events) {
            this.events = events;
        }

        @Override
        public SseEvent next() {
            return next < events.size() ? events.get(next++) : null;
        }

        @Override
        public int statusCode() {
            return 200;
        }

        @Override
        public Map<String, List<String>> headers() {
            return Map.of();
        }

        @Override
        public void cancel() {
        }

        @Override
        public void close() {
        }
    }
}
