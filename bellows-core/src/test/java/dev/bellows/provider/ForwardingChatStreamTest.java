package dev.bellows.provider;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bellows.stream.StreamChunk;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** A forwarding stream passes everything on; a subclass overrides only what it watches. */
class ForwardingChatStreamTest {

    /** A stream of two chunks that records what is done to it. */
    private static final class Recording implements ChatStream {
        final List<String> calls = new ArrayList<>();
        private final List<StreamChunk> chunks = new ArrayList<>(List.of(StreamChunk.message("a"), StreamChunk.message("b")));

        @Override
        public StreamChunk next() {
            calls.add("next");
            return chunks.isEmpty() ? null : chunks.removeFirst();
        }

        @Override
        public Optional<String> finishReason() {
            calls.add("finishReason");
            return Optional.of("stop");
        }

        @Override
        public Optional<TokenUsage> usage() {
            calls.add("usage");
            return Optional.of(new TokenUsage(3, 4));
        }

        @Override
        public void cancel() {
            calls.add("cancel");
        }

        @Override
        public void close() {
            calls.add("close");
        }
    }

    @Test
    void aWatcherSeesEveryChunkAndTheRestPassesThrough() throws Exception {
        Recording inner = new Recording();
        List<StreamChunk> seen = new ArrayList<>();
        ChatStream watched = new ForwardingChatStream(inner) {
            @Override
            public StreamChunk next() throws ProviderException {
                StreamChunk chunk = super.next();
                if (chunk != null) {
                    seen.add(chunk);
                }
                return chunk;
            }
        };

        List<StreamChunk> read = new ArrayList<>();
        for (StreamChunk chunk; (chunk = watched.next()) != null; ) {
            read.add(chunk);
        }
        assertThat(watched.finishReason()).contains("stop");
        assertThat(watched.usage()).contains(new TokenUsage(3, 4));
        watched.cancel();
        watched.close();

        assertThat(read).containsExactly(StreamChunk.message("a"), StreamChunk.message("b"));
        assertThat(seen).isEqualTo(read);
        assertThat(inner.calls).containsExactly("next", "next", "next", "finishReason", "usage", "cancel", "close");
    }
}
