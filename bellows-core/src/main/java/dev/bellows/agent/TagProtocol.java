package dev.bellows.agent;

import dev.bellows.event.AgentEvent;
import dev.bellows.event.StreamEvent;
import dev.bellows.format.TextFormat;
import dev.bellows.tool.chain.internal.Calls;
import dev.bellows.plan.Plan;
import dev.bellows.prompt.internal.PromptBuilder;
import dev.bellows.provider.Message;
import dev.bellows.stream.StreamChunk;
import dev.bellows.stream.StreamOptions;
import dev.bellows.tool.ToolRegistry;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/** The tag protocol: tool calls in {@code <tool>} blocks, read by the stream processor as they stream. */
final class TagProtocol implements Protocol {

    private final AgentOptions options;
    private final String reminder;
    /** The prompts of the last snapshot: its system message is rendered once, not per call. */
    private volatile Prompts last;

    private record Prompts(ToolRegistry tools, PromptBuilder builder) {
    }

    TagProtocol(AgentOptions options) {
        this.options = options;
        this.reminder = prompts(null).noToolCallReminder();
    }

    private PromptBuilder prompts(ToolRegistry tools) {
        return PromptBuilder.builder()
                .instructions(options.instructions)
                .toolRegistry(tools)
                .toolCallFormat(options.toolCallFormat)
                .toolCatalog(options.toolCatalog)
                .streamOptions(options.streamOptions)
                .chainOfThought(options.chainOfThought)
                .build();
    }

    /** The prompts for {@code tools}, kept while the loop's snapshot stays the same. */
    private PromptBuilder promptsFor(ToolRegistry tools) {
        Prompts cached = last;
        if (cached != null && cached.tools() == tools) {
            return cached.builder();
        }
        PromptBuilder builder = prompts(tools);
        last = new Prompts(tools, builder);
        return builder;
    }

    @Override
    public Frame frame(ToolRegistry tools, List<Message> pending, Plan plan) {
        List<Message> messages = promptsFor(tools).build(List.of(), pending.getFirst(), plan, Map.of());
        return new Frame(messages.getFirst(), List.of(messages.getLast()));
    }

    @Override
    public Calls toolChain(ToolRegistry tools) {
        return new Calls(tools, dev.bellows.format.OutputFormat.JSON, dev.bellows.memory.ResultLimit.NONE);
    }

    @Override
    public TextFormat observationFormat() {
        return options.observationFormat;
    }

    @Override
    public AnswerReader reader(ToolRegistry tools, int turn, Consumer<AgentEvent> emit) {
        return new TagReader(options.streamOptions, emit, CallIds.of(turn), reminder);
    }

    /** Reads an answer with the stream processor; its tool blocks are the calls. */
    static final class TagReader implements AnswerReader {
        private final StreamedAnswer answer;
        private final String reminder;

        TagReader(StreamOptions streamOptions, Consumer<AgentEvent> emit, CallIds ids, String reminder) {
            this.reminder = reminder;
            this.answer = new StreamedAnswer(streamOptions, emit, ids, event -> { });
        }

        @Override
        public void accept(StreamChunk chunk) {
            answer.accept(chunk);
        }

        @Override
        public Reading read() {
            StreamEvent.Complete complete = answer.finish();
            Step step = complete.toolCalls().isEmpty()
                    ? new Step.NoAction("the answer called no tool", reminder)
                    : new Step.Act(complete.toolCalls(), "");
            return new Reading(answer.assistant(), step, complete.message());
        }
    }
}
