package dev.bellows.stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.bellows.event.StreamEvent;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** What the stream processor does with each kind of frame (docs/stream-format.md, "Input"). */
class StreamChunkFramesTest {

    private static List<StreamEvent> parse(StreamChunk... frames) {
        return StreamProcessor.parse(List.of(frames), StreamOptions.defaults());
    }

    @Test
    void aToolCallDeltaCountsAsAChunkAndEndsTheMessageAndProviderThinking() {
        assertThat(parse(StreamChunk.thinking("Plan."), StreamChunk.message("Calling"),
                new StreamChunk.ToolCallDelta(0, "call_1", "read_file", "{}"), StreamChunk.message("After.")))
                .containsExactly(
                        new StreamEvent.ThinkingStart(0, "thinking", java.util.Map.of()),
                        new StreamEvent.ThinkingContent(0, "Plan."),
                        new StreamEvent.ThinkingEnd(1, "Plan."),
                        new StreamEvent.MessageStart(1),
                        new StreamEvent.MessageContent(1, "Calling"),
                        new StreamEvent.MessageEnd(2, "Calling"),
                        new StreamEvent.MessageStart(3),
                        new StreamEvent.MessageContent(3, "After."),
                        new StreamEvent.MessageEnd(4, "After."),
                        new StreamEvent.Complete(4, "CallingAfter.",
                                List.of(new dev.bellows.event.ThinkingBlock("thinking", "Plan.", java.util.Map.of())),
                                List.of()));
    }

    @Test
    void aSignatureCountsAsAChunkTheFramesAboutTheAnswerDoNot() {
        List<StreamEvent> events = parse(new StreamChunk.ResponseInfo("msg_1", "claude-sonnet-4-5"),
                StreamChunk.thinking("Hm."), StreamChunk.ThinkingSignature.signed("c2ln"), StreamChunk.message("Hi"),
                new StreamChunk.Usage(10, 2));
        assertThat(events).contains(new StreamEvent.MessageContent(2, "Hi"));
        assertThat(events.getLast().chunk()).isEqualTo(3);
    }

    @Test
    void aRestartIsRefusedTheNewAttemptNeedsANewProcessor() {
        StreamProcessor processor = new StreamProcessor(StreamOptions.defaults(), event -> { });
        processor.accept(StreamChunk.message("Hel"));
        assertThatThrownBy(() -> processor.accept(new StreamChunk.Restart(2, "broke off", Duration.ofMillis(500), true)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("new StreamProcessor");
        assertThat(processor.chunkCount()).isEqualTo(1);
    }

    @Test
    void framesSayWhatIsWrongWithThem() {
        assertThatThrownBy(() -> new StreamChunk.ToolCallDelta(-1, null, null, "")).hasMessageContaining("at least 0");
        assertThat(new StreamChunk.ToolCallDelta(0, null, null, null).arguments()).isEmpty();
        assertThatThrownBy(() -> new StreamChunk.ThinkingSignature(null, null)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new StreamChunk.ThinkingSignature("s", "d")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new StreamChunk.Usage(-1, 0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new StreamChunk.Restart(1, "x", Duration.ZERO, false))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> StreamChunk.message(null)).isInstanceOf(NullPointerException.class);
        assertThat(StreamChunk.message("a")).isEqualTo(new StreamChunk.Text("a"));
        assertThat(StreamChunk.thinking("a")).isEqualTo(new StreamChunk.Reasoning("a"));
    }
}
