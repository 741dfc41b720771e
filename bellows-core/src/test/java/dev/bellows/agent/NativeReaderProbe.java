package dev.bellows.agent;

import dev.bellows.event.AgentEvent;
import dev.bellows.provider.ChatRequest;
import dev.bellows.provider.ChatStream;
import dev.bellows.provider.Provider;
import dev.bellows.stream.StreamChunk;
import dev.bellows.tool.ToolRegistry;
import java.util.function.Consumer;

/**
 * The benchmarks' way to the native tool-calling reader, which is package-private: in its
 * package, in this module's tests (bellows-bench gets it from the test jar), so that the
 * library's API stays as it is. The loop always turns
 * {@code argument-events} on; here it can be off too, to measure what it adds.
 */
public final class NativeReaderProbe {

    private static final Provider NEVER_CALLED = new Provider() {
        @Override
        public String name() {
            return "probe";
        }

        @Override
        public ChatStream stream(ChatRequest request) {
            throw new UnsupportedOperationException("the probe reads answers it is given");
        }
    };

    private final NativeProtocol protocol;
    private final ToolRegistry tools;

    /** Built once per trial: the protocol of a native-mode agent with these tools. */
    public NativeReaderProbe(ToolRegistry tools) {
        this.tools = tools;
        this.protocol = (NativeProtocol) DefaultAgent.builder().provider(NEVER_CALLED).model("probe")
                .toolMode(ToolMode.NATIVE).toolRegistry(tools).build().protocol;
    }

    /** Reads one answer's frames as the loop would, events to {@code emit}; returns the reading. */
    public Object read(StreamChunk[] frames, boolean argumentEvents, Consumer<AgentEvent> emit) {
        AnswerReader reader = protocol.reader(tools, emit, argumentEvents);
        for (StreamChunk frame : frames) {
            reader.accept(frame);
        }
        return reader.read();
    }
}
