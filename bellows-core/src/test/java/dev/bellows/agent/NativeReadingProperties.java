package dev.bellows.agent;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bellows.event.AgentEvent;
import dev.bellows.event.StreamEvent;
import dev.bellows.provider.ChatRequest;
import dev.bellows.provider.ChatStream;
import dev.bellows.provider.Message;
import dev.bellows.provider.Provider;
import dev.bellows.provider.SignedThinking;
import dev.bellows.stream.StreamChunk;
import dev.bellows.tool.ToolRegistry;
import dev.bellows.tool.ToolResult;
import dev.bellows.tool.TypedTool;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * The typed frames keep the chunk-boundary guarantees of the stream contract on the native
 * path, and the frames about an answer are invisible to its reading:
 * <ul>
 *   <li>wherever text, reasoning and a native call's arguments are cut into frames, the native
 *       reader gives the same events (content deltas merged, chunk indices aside) and the same
 *       reading: the assistant message (its text, calls and signed reasoning) and the step;</li>
 *   <li>{@code ResponseInfo} and {@code Usage} frames put anywhere change nothing at all, not
 *       even a chunk index, for the native reader, the tag reader and the stream processor;</li>
 *   <li>a signed reasoning block keeps its whole text however it was cut, in the tag protocol
 *       as in the native one.</li>
 * </ul>
 */
class NativeReadingProperties {

    record Path(String path) {
    }

    private static final Provider NEVER_CALLED = new Provider() {
        @Override
        public String name() {
            return "never";
        }

        @Override
        public ChatStream stream(ChatRequest request) {
            throw new AssertionError("the reader tests make no model call");
        }
    };

    static final ToolRegistry TOOLS = new ToolRegistry().register(
            TypedTool.of("read_file", "Reads a file", Path.class, (context, path) -> ToolResult.of("contents")));

    /** One part of an answer as the model produced it, before it is cut into frames. */
    sealed interface Part {
    }

    record Text(String text) implements Part {
    }

    record Reasoning(String text) implements Part {
    }

    record Call(String id, String name, String arguments) implements Part {
    }

    record Signature(String signature) implements Part {
    }

    private static final String[] WORDS = {"Reading", " the file", ".", " ", "\n", "a < b", "é😀", "<b>x</b>", "  \t"};

    @Provide
    Arbitrary<List<Part>> answers() {
        Arbitrary<String> words = Arbitraries.of(WORDS).list().ofMinSize(1).ofMaxSize(6).map(w -> String.join("", w));
        Arbitrary<String> arguments = Arbitraries.of("{\"path\": \"a.txt\"}", "{}", "", "{\"path\": \"é😀\\n\\\"q\\\"\"}",
                "not json", "[1, 2]", "{\"path\": ");
        Arbitrary<Part> part = Arbitraries.frequencyOf(
                net.jqwik.api.Tuple.of(3, words.map(Text::new)),
                net.jqwik.api.Tuple.of(2, words.map(Reasoning::new)),
                net.jqwik.api.Tuple.of(2, Combinators.combine(Arbitraries.of("read_file", "task_completion", ""), arguments)
                        .as((name, args) -> new Call(null, name, args))),
                net.jqwik.api.Tuple.of(1, Arbitraries.of("sig-1", "EqQBCgIYAh").map(Signature::new)));
        return part.list().ofMaxSize(7);
    }

    @Provide
    Arbitrary<List<Integer>> cuts() {
        return Arbitraries.integers().between(0, 10_000).list().ofMaxSize(20);
    }

    /** Each part as one frame: the reference chunking. */
    static List<StreamChunk> whole(List<Part> answer) {
        List<StreamChunk> frames = new ArrayList<>();
        int call = 0;
        for (Part part : answer) {
            switch (part) {
                case Text t -> frames.add(StreamChunk.message(t.text()));
                case Reasoning r -> frames.add(StreamChunk.thinking(r.text()));
                case Call c -> frames.add(new StreamChunk.ToolCallDelta(call, "call_" + call++, c.name(), c.arguments()));
                case Signature s -> frames.add(StreamChunk.ThinkingSignature.signed(s.signature()));
            }
        }
        return frames;
    }

    /**
     * The parts cut at the given code-point offsets (taken modulo each text's length): text and
     * reasoning into several frames, a call into its first delta (id and name, no arguments)
     * and its arguments in pieces, as the APIs stream them.
     */
    static List<StreamChunk> cut(List<Part> answer, List<Integer> seeds) {
        List<StreamChunk> frames = new ArrayList<>();
        int call = 0;
        for (Part part : answer) {
            switch (part) {
                case Text t -> pieces(t.text(), seeds).forEach(piece -> frames.add(StreamChunk.message(piece)));
                case Reasoning r -> pieces(r.text(), seeds).forEach(piece -> frames.add(StreamChunk.thinking(piece)));
                case Call c -> {
                    int index = call++;
                    frames.add(new StreamChunk.ToolCallDelta(index, "call_" + index, c.name(), ""));
                    if (!c.arguments().isEmpty()) {
                        pieces(c.arguments(), seeds).forEach(piece ->
                                frames.add(new StreamChunk.ToolCallDelta(index, null, null, piece)));
                    }
                }
                case Signature s -> frames.add(StreamChunk.ThinkingSignature.signed(s.signature()));
            }
        }
        return frames;
    }

    private static List<String> pieces(String text, List<Integer> seeds) {
        int[] codePoints = text.codePoints().toArray();
        TreeSet<Integer> at = new TreeSet<>();
        for (int seed : seeds) {
            int position = Math.floorMod(seed, codePoints.length + 1);
            if (position > 0 && position < codePoints.length) {
                at.add(position);
            }
        }
        List<String> pieces = new ArrayList<>();
        int from = 0;
        for (int to : at) {
            pieces.add(new String(codePoints, from, to - from));
            from = to;
        }
        pieces.add(new String(codePoints, from, codePoints.length - from));
        return pieces;
    }

    record Outcome(List<AgentEvent> events, AnswerReader.Reading reading) {
    }

    static Protocol protocol(ToolMode mode) {
        return DefaultAgent.builder().provider(NEVER_CALLED).model("m").toolMode(mode).toolRegistry(TOOLS).build().protocol;
    }

    static Outcome read(Protocol protocol, List<StreamChunk> frames) {
        List<AgentEvent> events = new ArrayList<>();
        AnswerReader reader = protocol.reader(TOOLS, events::add);
        frames.forEach(reader::accept);
        return new Outcome(events, reader.read());
    }

    /**
     * The events without chunk indices, content deltas merged into one per block (their split is
     * free), the argument events listed last (each comes in the chunk completing its value, so
     * among the content deltas where the arguments were cut; their order is checked elsewhere).
     */
    static List<String> merged(List<AgentEvent> events) {
        List<String> out = new ArrayList<>();
        List<String> arguments = new ArrayList<>();
        StringBuilder content = null;
        String contentType = null;
        for (AgentEvent event : events) {
            if (event instanceof StreamEvent.ToolCallArgument a) {
                arguments.add(a.name() + "=" + a.value());
                continue;
            }
            String delta = switch (event) {
                case StreamEvent.MessageContent m -> m.content();
                case StreamEvent.ThinkingContent t -> t.content();
                case StreamEvent.ToolCallContent t -> t.content();
                default -> null;
            };
            if (delta != null) {
                if (content == null) {
                    content = new StringBuilder();
                    contentType = event.type();
                }
                content.append(delta);
                continue;
            }
            if (content != null) {
                out.add(contentType + " " + content);
                content = null;
            }
            out.add(switch (event) {
                case StreamEvent.ToolCallStart s -> s.type() + " " + s.name() + " " + s.attributes();
                case StreamEvent.ToolCallName n -> n.type() + " " + n.toolName();
                case StreamEvent.ToolCallEnd e -> e.type() + " " + e.content() + " " + e.call();
                case StreamEvent.MessageEnd m -> m.type() + " " + m.content();
                case StreamEvent.ThinkingEnd t -> t.type() + " " + t.content();
                case StreamEvent.ThinkingStart t -> t.type() + " " + t.name();
                default -> event.type();
            });
        }
        if (content != null) {
            out.add(contentType + " " + content);
        }
        out.add("arguments " + arguments);
        return out;
    }

    /** The frames with ResponseInfo and Usage frames put in at the given places (first and last included). */
    static List<StreamChunk> withFramesAbout(List<StreamChunk> frames, List<Integer> seeds) {
        List<StreamChunk> out = new ArrayList<>(frames);
        out.addFirst(new StreamChunk.ResponseInfo("chatcmpl-1", "gpt-4o-2024-08-06"));
        for (int i = 0; i < seeds.size(); i++) {
            int at = Math.floorMod(seeds.get(i), out.size() + 1);
            out.add(at, i % 2 == 0 ? new StreamChunk.Usage(i, 2L * i) : new StreamChunk.ResponseInfo(null, "m" + i));
        }
        out.add(new StreamChunk.Usage(12, 34));
        return out;
    }

    // ------------------------------------------------------------------ properties

    @Property(tries = 400)
    void theNativeReaderGivesTheSameEventsAndReadingWhereverTheAnswerIsCut(@ForAll("answers") List<Part> answer,
                                                                             @ForAll("cuts") List<Integer> cuts) {
        Protocol protocol = protocol(ToolMode.NATIVE);
        Outcome whole = read(protocol, whole(answer));
        Outcome cut = read(protocol, cut(answer, cuts));
        assertThat(merged(cut.events())).isEqualTo(merged(whole.events()));
        assertThat(cut.reading()).isEqualTo(whole.reading());
    }

    @Property(tries = 300)
    void framesAboutTheAnswerChangeNoEventAndNoReading(@ForAll("answers") List<Part> answer,
                                                       @ForAll("cuts") List<Integer> cuts,
                                                       @ForAll("cuts") List<Integer> places) {
        List<StreamChunk> frames = cut(answer, cuts);
        List<StreamChunk> withAbout = withFramesAbout(frames, places);
        for (ToolMode mode : List.of(ToolMode.NATIVE, ToolMode.TAGS)) {
            Protocol protocol = protocol(mode);
            Outcome plain = read(protocol, frames);
            Outcome about = read(protocol, withAbout);
            assertThat(about.events()).as("%s, chunk indices included", mode).isEqualTo(plain.events());
            assertThat(about.reading()).isEqualTo(plain.reading());
        }
        List<StreamEvent> processed = dev.bellows.stream.StreamProcessor.parse(frames,
                dev.bellows.stream.StreamOptions.defaults());
        assertThat(dev.bellows.stream.StreamProcessor.parse(withAbout, dev.bellows.stream.StreamOptions.defaults()))
                .isEqualTo(processed);
    }

    @Property(tries = 300)
    void aSignedReasoningBlockKeepsItsWholeTextInEveryToolMode(@ForAll("answers") List<Part> answer,
                                                               @ForAll("cuts") List<Integer> cuts) {
        List<SignedThinking> expected = new ArrayList<>();
        StringBuilder reasoning = new StringBuilder();
        for (Part part : answer) {
            if (part instanceof Reasoning r) {
                reasoning.append(r.text());
            } else if (part instanceof Signature s) {
                expected.add(SignedThinking.signed(reasoning.toString(), s.signature()));
                reasoning.setLength(0);
            }
        }
        for (ToolMode mode : List.of(ToolMode.NATIVE, ToolMode.TAGS, ToolMode.REACT)) {
            Message assistant = read(protocol(mode), cut(answer, cuts)).reading().assistant();
            assertThat(assistant.thinking()).as("%s", mode).isEqualTo(expected);
        }
    }

    @Example
    void aRestartIsTheModelCallsToHandleNotTheReaders() {
        Protocol protocol = protocol(ToolMode.NATIVE);
        AnswerReader reader = protocol.reader(TOOLS, event -> { });
        org.assertj.core.api.Assertions.assertThatThrownBy(() ->
                        reader.accept(new StreamChunk.Restart(2, "broke off", Duration.ZERO, true)))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
