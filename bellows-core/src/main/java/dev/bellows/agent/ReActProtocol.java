package dev.bellows.agent;

import dev.bellows.event.AgentEvent;
import dev.bellows.event.StreamEvent;
import dev.bellows.format.SectionListener;
import dev.bellows.format.SectionReader;
import dev.bellows.format.TextFormatException;
import dev.bellows.format.TextFormat;
import dev.bellows.tool.chain.internal.Calls;
import dev.bellows.plan.Plan;
import dev.bellows.prompt.ReActPrompts;
import dev.bellows.provider.Message;
import dev.bellows.stream.internal.ActionDecoder;
import dev.bellows.stream.StreamChunk;
import dev.bellows.stream.internal.ToolNameReader;
import dev.bellows.tool.DecodedToolCall;
import dev.bellows.tool.ToolCallError;
import dev.bellows.tool.ToolRegistry;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * ReAct sections: the answer's message text (thinking taken out by the stream processor) is
 * read by the text format's {@link SectionReader} as it streams. Each complete section is a
 * {@code section} event in the chunk that completes it, and the first call's tool name in an
 * {@code action} section a {@code tool_call_name} event the moment it is known.
 */
final class ReActProtocol implements Protocol {

    private final AgentOptions options;
    private final String noActionReminder;
    private final String answerIgnoredNote;
    /** The system message of the last snapshot, rendered once rather than per call. */
    private volatile SystemText last;

    private record SystemText(ToolRegistry tools, Message message) {
    }

    ReActProtocol(AgentOptions options) {
        this.options = options;
        ReActPrompts texts = prompts(new ToolRegistry());
        this.noActionReminder = texts.noActionReminder();
        this.answerIgnoredNote = texts.answerIgnoredNote();
    }

    ReActPrompts prompts(ToolRegistry tools) {
        return new ReActPrompts(options.instructions, options.textFormat, options.actionFormat, tools, options.toolCatalog);
    }

    @Override
    public Frame frame(ToolRegistry tools, List<Message> pending, Plan plan) {
        SystemText cached = last;
        if (cached == null || cached.tools() != tools) {
            cached = new SystemText(tools, prompts(tools).systemMessage());
            last = cached;
        }
        return new Frame(cached.message(), pending);
    }

    @Override
    public Calls toolChain(ToolRegistry tools) {
        return new Calls(tools, options.outputFormat, dev.bellows.memory.ResultLimit.NONE);
    }

    @Override
    public TextFormat observationFormat() {
        return options.textFormat;
    }

    @Override
    public AnswerReader reader(ToolRegistry tools, int turn, Consumer<AgentEvent> emit) {
        return new ReActReader(CallIds.emitting(turn, emit));
    }

    private final class ReActReader implements AnswerReader, SectionListener {
        private final Consumer<AgentEvent> emit;
        private final StreamedAnswer answer;
        private final SectionReader sections;
        private int chunk;                  // the chunk of the message text being read
        private ToolNameReader actionName;  // while an action section is open and its name unknown

        ReActReader(Consumer<AgentEvent> emit) {
            this.emit = emit;
            this.sections = options.textFormat.reader(this);
            this.answer = new StreamedAnswer(options.streamOptions, emit, null, event -> {
                if (event instanceof StreamEvent.MessageContent text) {
                    chunk = text.chunk();
                    sections.append(text.content());
                }
            });
        }

        @Override
        public void accept(StreamChunk streamed) {
            answer.accept(streamed);
        }

        @Override
        public void opened(String name) {
            actionName = name.equals(ReActPrompts.ACTION) ? new ToolNameReader() : null;
        }

        @Override
        public void content(String name, CharSequence text) {
            if (actionName != null && name.equals(ReActPrompts.ACTION)) {
                String toolName = actionName.feed(text);
                if (toolName != null) {
                    emit.accept(new StreamEvent.ToolCallName(chunk, toolName));
                    actionName = null;
                }
            }
        }

        @Override
        public void completed(String name, String content) {
            emit.accept(new StreamEvent.Section(chunk, name, content));
        }

        @Override
        public Reading read() {
            StreamEvent.Complete complete = answer.finish();
            chunk = complete.chunk();
            Message assistant = answer.assistant();
            Map<String, List<String>> found;
            try {
                found = sections.finish();
            } catch (TextFormatException e) {
                return new Reading(assistant, new Step.NoAction(e.getMessage(), e.getMessage()), complete.message());
            }
            return new Reading(assistant, step(found), complete.message());
        }

        private Step step(Map<String, List<String>> found) {
            List<String> actions = found.getOrDefault(ReActPrompts.ACTION, List.of());
            List<String> answers = found.getOrDefault(ReActPrompts.ANSWER, List.of());
            if (actions.isEmpty() && !answers.isEmpty()) {
                return new Step.Finish(String.join("\n\n", answers));
            }
            if (actions.isEmpty()) {
                return new Step.NoAction("the answer has neither an action nor an answer", noActionReminder);
            }
            List<DecodedToolCall> calls = new ArrayList<>();
            List<String> unreadable = new ArrayList<>();
            for (String action : actions) {
                try {
                    calls.addAll(ActionDecoder.decode(action, options.actionFormat));
                } catch (ActionDecoder.ActionException e) {
                    calls.add(new ToolCallError(action, e.getMessage()));
                    unreadable.add(e.getMessage());
                }
            }
            if (unreadable.size() == calls.size()) {
                return new Step.Unreadable(unreadable);
            }
            // An answer written beside an action was written before its results: the action wins.
            return new Step.Act(calls, answers.isEmpty() ? "" : answerIgnoredNote);
        }
    }
}
