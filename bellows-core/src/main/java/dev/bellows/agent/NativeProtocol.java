package dev.bellows.agent;

import dev.bellows.json.internal.FrozenTreeReader;
import dev.bellows.json.internal.Jackson;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.node.ObjectNode;
import dev.bellows.event.AgentEvent;
import dev.bellows.event.StreamEvent;
import dev.bellows.tool.ToolCallOutcome;
import dev.bellows.format.TextFormat;
import dev.bellows.tool.chain.internal.Calls;
import dev.bellows.tool.chain.ToolChainResult;
import dev.bellows.plan.Plan;
import dev.bellows.prompt.internal.NativePrompts;
import dev.bellows.provider.Message;
import dev.bellows.provider.NativeToolCall;
import dev.bellows.provider.ToolSpec;
import dev.bellows.stream.ArgumentStream;
import dev.bellows.stream.StreamChunk;
import dev.bellows.tool.DecodedToolCall;
import dev.bellows.tool.ToolCall;
import dev.bellows.tool.ToolCallError;
import dev.bellows.tool.ToolRegistry;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * Native tool calling: the tools go in the request, the calls come as structured deltas
 * ({@link StreamChunk.ToolCallDelta} frames), each mapped onto the same events as a tool tag:
 * {@code tool_call_start} when a call begins, {@code tool_call_name} at the first delta that
 * carries its name, {@code tool_call_content} for each piece of its arguments,
 * {@code tool_call_argument} for each member of its arguments in the delta that completes its
 * value (with {@code argument-events}, which the loop turns on; read by {@link ArgumentStream}),
 * {@code tool_call_end} with the decoded call when the next call begins or the answer ends.
 * Results go back as one tool message per call, with the media its tool returned. Text and
 * provider thinking go through the stream processor as in the tag protocol; signed thinking
 * blocks are kept with the answer.
 */
final class NativeProtocol implements Protocol {

    /** The name {@code tool_call_start} carries: there is no tag. */
    static final String BLOCK_NAME = "tool_call";

    private static final ObjectMapper JSON = Jackson.JSON;

    private final AgentOptions options;
    private final NativePrompts prompts;
    private final String reminder;
    /** The names and specs of the last snapshot, built once rather than per call and per reader. */
    private volatile Offer last;

    private record Offer(ToolRegistry tools, FunctionNames names, List<ToolSpec> specs) {
    }

    NativeProtocol(AgentOptions options) {
        this.options = options;
        this.prompts = new NativePrompts(options.instructions);
        this.reminder = prompts.noToolCallReminder();
    }

    @Override
    public Frame frame(ToolRegistry tools, List<Message> pending, Plan plan) {
        return new Frame(prompts.systemMessage(plan), pending);
    }

    private Offer offer(ToolRegistry tools) {
        Offer cached = last;
        if (cached != null && cached.tools() == tools) {
            return cached;
        }
        FunctionNames names = new FunctionNames(tools);
        Offer offer = new Offer(tools, names, List.copyOf(names.specs()));
        last = offer;
        return offer;
    }

    @Override
    public List<ToolSpec> toolSpecs(ToolRegistry tools) {
        return offer(tools).specs();
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
    public List<Message> observation(Message assistant, ToolChainResult result, String note) {
        List<Message> messages = new ArrayList<>();
        List<ToolCallOutcome> outcomes = result.outcomes();
        for (int i = 0; i < outcomes.size(); i++) {
            ToolCallOutcome outcome = outcomes.get(i);
            messages.add(Message.toolResult(assistant.toolCalls().get(i).id(), outcome.text(),
                    outcome instanceof ToolCallOutcome.Succeeded s ? s.result().media() : List.of()));
        }
        if (!note.isEmpty()) {
            messages.add(Message.user(note));
        }
        return messages;
    }

    /** The APIs refuse a tool call without its result, so a run ended by one keeps the results too. */
    @Override
    public List<Message> closing(Message assistant, ToolChainResult result) {
        return observation(assistant, result, "");
    }

    @Override
    public AnswerReader reader(ToolRegistry tools, int turn, Consumer<AgentEvent> emit) {
        return reader(tools, CallIds.emitting(turn, emit), options.streamOptions.argumentEvents());
    }

    /** A reader with {@code argument-events} as given, whatever the options say (the tests compare both). */
    AnswerReader reader(ToolRegistry tools, Consumer<AgentEvent> emit, boolean argumentEvents) {
        return new NativeReader(offer(tools).names(), emit, argumentEvents);
    }

    /** One native call as it arrives. */
    private static final class Call {
        String id;
        String function;
        final StringBuilder arguments = new StringBuilder();
        boolean ended;
        DecodedToolCall decoded;        // read once for tool_call_end, again only if a late piece came
        /**
         * Its arguments' members as they complete, from the delta that announced its name to its
         * end; null before the name, after the end, and without argument-events.
         */
        ArgumentStream members;
    }

    private final class NativeReader implements AnswerReader {
        private final FunctionNames names;
        private final Consumer<AgentEvent> emit;
        private final StreamedAnswer answer;
        private final List<Call> calls = new ArrayList<>();
        private final boolean argumentEvents;
        private Call open;
        private int chunk;

        NativeReader(FunctionNames names, Consumer<AgentEvent> emit, boolean argumentEvents) {
            this.names = names;
            this.emit = emit;
            this.argumentEvents = argumentEvents;
            this.answer = new StreamedAnswer(options.streamOptions, emit, null, event -> { });
        }

        @Override
        public void accept(StreamChunk streamed) {
            switch (streamed) {
                case StreamChunk.ToolCallDelta delta -> {
                    answer.accept(streamed);    // ends the message block and provider thinking first
                    delta(delta);
                }
                case StreamChunk.Reasoning thinking -> {
                    endOpenCall();
                    answer.accept(streamed);
                }
                case StreamChunk.Text text -> {
                    if (!text.text().isEmpty()) {
                        endOpenCall();          // blocks never overlap: text after a call ends it
                    }
                    answer.accept(streamed);
                }
                case StreamChunk.ThinkingSignature signature -> answer.accept(streamed);
                case StreamChunk.ResponseInfo info -> {
                    return;                     // about the answer: no chunk of it
                }
                case StreamChunk.Usage usage -> {
                    return;
                }
                case StreamChunk.Restart restart -> throw new IllegalArgumentException("a restart is the model call's to handle");
            }
            chunk++;
        }

        private void delta(StreamChunk.ToolCallDelta delta) {
            while (calls.size() <= delta.index()) {
                calls.add(null);
            }
            Call call = calls.get(delta.index());
            if (call == null) {
                endOpenCall();
                call = new Call();
                calls.set(delta.index(), call);
                open = call;
                emit.accept(new StreamEvent.ToolCallStart(chunk, BLOCK_NAME,
                        delta.id() == null ? Map.of() : Map.of("id", delta.id())));
            }
            if (call.id == null && delta.id() != null) {
                call.id = delta.id();
            }
            if (call.function == null && delta.name() != null && !delta.name().isEmpty()) {
                call.function = delta.name();
                call.decoded = null;
                if (call == open) {
                    emit.accept(new StreamEvent.ToolCallName(chunk, names.resolve(call.function)[1]));
                    if (argumentEvents) {
                        // Members come after the name: pieces that came before it are read now.
                        call.members = new ArgumentStream(this::argument);
                        call.members.feed(call.arguments);
                    }
                }
            }
            if (!delta.arguments().isEmpty()) {
                call.arguments.append(delta.arguments());
                call.decoded = null;
                if (call.members != null) {
                    call.members.feed(delta.arguments());
                }
            }
            if (call == open && !delta.arguments().isEmpty()) {
                emit.accept(new StreamEvent.ToolCallContent(chunk, delta.arguments()));
            }
            // A late piece of a call that already ended (the APIs send calls one after another)
            // still counts for its decoded call, though its events have gone out.
        }

        /** A member of the open call's arguments is complete. */
        private void argument(String name, JsonNode value) {
            emit.accept(new StreamEvent.ToolCallArgument(chunk, name, value));
        }

        private void endOpenCall() {
            if (open != null && !open.ended) {
                open.ended = true;
                open.members = null;    // a late piece after the end reports nothing
                emit.accept(new StreamEvent.ToolCallEnd(chunk, open.arguments.toString().strip(), decode(open)));
            }
            open = null;
        }

        @Override
        public Reading read() {
            endOpenCall();
            StreamEvent.Complete complete = answer.finish();
            List<DecodedToolCall> decoded = new ArrayList<>();
            List<NativeToolCall> made = new ArrayList<>();
            for (int i = 0; i < calls.size(); i++) {
                Call call = calls.get(i);
                if (call == null) {
                    continue;
                }
                decoded.add(decode(call));
                made.add(new NativeToolCall(call.id != null ? call.id : "call_" + i,
                        call.function != null ? call.function : "", call.arguments.toString()));
            }
            Message assistant = Message.assistant(answer.text(), made, answer.signed());
            Step step = decoded.isEmpty()
                    ? new Step.NoAction("the answer called no tool", reminder)
                    : new Step.Act(decoded, "");
            return new Reading(assistant, step, complete.message());
        }

        /** The call with its arguments read as they would be from a tool tag's JSON. */
        private DecodedToolCall decode(Call call) {
            if (call.decoded == null) {
                call.decoded = read(call);
            }
            return call.decoded;
        }

        private DecodedToolCall read(Call call) {
            String arguments = call.arguments.toString().strip();
            if (call.function == null) {
                return new ToolCallError(arguments, "a tool call came without a tool name; call one of the tools"
                        + " you are given by its name");
            }
            String[] tool = names.resolve(call.function);
            if (arguments.isEmpty()) {
                return new ToolCall(tool[0], tool[1], JSON.createObjectNode());
            }
            try {
                // Frozen as read (no tree for ToolCall to copy); anything unusual is Jackson's own read, for its value or error.
                JsonNode node = FrozenTreeReader.readWhole(arguments);
                if (node == null) {
                    node = JSON.readTree(arguments);
                }
                if (node instanceof ObjectNode object) {
                    return new ToolCall(tool[0], tool[1], object);
                }
                return new ToolCallError(arguments, "the arguments of your call to " + tool[1] + " are not a JSON"
                        + " object; send them as one object matching the tool's schema");
            } catch (JacksonException e) {
                return new ToolCallError(arguments, "the arguments of your call to " + tool[1] + " are not valid JSON ("
                        + e.getOriginalMessage() + "); send them as one JSON object matching the tool's schema");
            }
        }
    }
}
