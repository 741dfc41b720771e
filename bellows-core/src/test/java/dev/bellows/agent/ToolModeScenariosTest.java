package dev.bellows.agent;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bellows.event.AgentEvent;
import dev.bellows.tool.LoopEndReason;
import dev.bellows.event.LoopEvent;
import dev.bellows.event.StreamEvent;
import dev.bellows.provider.ChatRequest;
import dev.bellows.provider.ChatStream;
import dev.bellows.provider.Message;
import dev.bellows.provider.Provider;
import dev.bellows.provider.RetryPolicy;
import dev.bellows.provider.Role;
import dev.bellows.provider.TokenUsage;
import dev.bellows.provider.ToolSpec;
import dev.bellows.stream.StreamChunk;
import dev.bellows.tool.Tool;
import dev.bellows.tool.ToolRegistry;
import dev.bellows.tool.ToolResult;
import dev.bellows.tool.TypedTool;
import dev.bellows.testkit.MockScript;
import dev.bellows.testkit.MockToolCall;
import dev.bellows.testkit.MockTurn;
import dev.bellows.testkit.ScriptedProvider;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The loop's scenarios in both tool modes: the same logical answers written as {@code <tool>}
 * tags or as native tool calls must give the same loop events and results. Only how the calls
 * travel differs.
 */
class ToolModeScenariosTest {

    static final RetryPolicy NO_WAIT = new RetryPolicy(3, Duration.ZERO, Duration.ZERO);
    static final String TASK = "What does a.txt say?";

    record PathArguments(String path) {
    }

    static final Tool READ_FILE = TypedTool.of("read_file", "Reads a file", PathArguments.class,
            (context, arguments) -> ToolResult.of("contents of " + arguments.path()));

    /** One call as the model means it: the tool and its arguments' JSON text (maybe invalid). */
    record Call(String name, String arguments) {
    }

    /** One answer: some text, then calls; optionally broken off inside its first call. */
    record Answer(String text, List<Call> calls, boolean cutInFirstCall) {
        static Answer of(String text, Call... calls) {
            return new Answer(text, List.of(calls), false);
        }

        Answer brokenOff() {
            return new Answer(text, calls, true);
        }
    }

    static Call read(String path) {
        return new Call("read_file", "{\"path\": \"" + path + "\"}");
    }

    static Call complete(String result) {
        return new Call("task_completion", "{\"result\": \"" + result + "\"}");
    }

    static MockTurn turn(Answer answer, ToolMode mode) {
        if (mode == ToolMode.NATIVE) {
            MockToolCall[] calls = answer.calls().stream().map(c -> MockToolCall.of(c.name(), c.arguments()))
                    .toArray(MockToolCall[]::new);
            MockTurn turn = answer.text().isEmpty() ? MockTurn.toolCalls(calls)
                    : MockTurn.content(answer.text()).withToolCalls(calls);
            return (answer.cutInFirstCall() ? turn.cutAfter(answer.text().length() + 5) : turn).chunkSize(3);
        }
        StringBuilder content = new StringBuilder(answer.text());
        for (Call call : answer.calls()) {
            content.append("<tool>{\"tool_name\": \"").append(call.name()).append("\", \"arguments\": ")
                    .append(call.arguments()).append("}</tool>");
        }
        MockTurn turn = MockTurn.content(content.toString()).chunkSize(3);
        return answer.cutInFirstCall() ? turn.cutAfter(answer.text().length() + 20) : turn;
    }

    static ScriptedProvider provider(ToolMode mode, Answer... answers) {
        MockScript.Builder script = MockScript.builder();
        for (Answer answer : answers) {
            script.turn(turn(answer, mode));
        }
        return new ScriptedProvider(script.build());
    }

    static DefaultAgent agent(ScriptedProvider provider, ToolMode mode) {
        return DefaultAgent.builder().provider(provider).model("mock").instructions("Be useful.").retryPolicy(NO_WAIT)
                .toolMode(mode).toolRegistry(new ToolRegistry().register(READ_FILE)).build();
    }

    /** The loop's side of a run, tool names and errors' presence kept, error texts (which differ by mode) left out. */
    static List<String> loop(List<AgentEvent> events) {
        List<String> out = new ArrayList<>();
        for (AgentEvent event : events) {
            switch (event) {
                case LoopEvent.ToolResultEvent r -> out.add("tool_result " + r.toolName() + " " + r.result());
                case LoopEvent.ToolResultError e -> out.add("tool_result_error " + e.toolName());
                case LoopEvent.LoopEnd end -> out.add("loop_end " + end.reason().wireName() + " " + end.result());
                case LoopEvent.Retry r -> out.add("retry");
                case LoopEvent l -> out.add(l.type());
                case StreamEvent.ToolCallName n -> out.add("tool_call_name " + n.toolName());
                case StreamEvent.ToolCallEnd e -> out.add("tool_call_end");
                default -> { }
            }
        }
        return out;
    }

    static List<String> run(ToolMode mode, Answer... answers) {
        ScriptedProvider provider = provider(mode, answers);
        return loop(agent(provider, mode).run(TASK).events().toList());
    }

    /**
     * A tool's media go back with its result: in the observation's user message in the tag
     * protocol, with the call's tool message in native mode; and they stay in memory with it.
     */
    @ParameterizedTest
    @EnumSource(value = ToolMode.class, names = {"TAGS", "NATIVE"})
    void a_tools_media_go_back_with_its_result(ToolMode mode) {
        dev.bellows.tool.Media png = dev.bellows.tool.Media.image(new byte[] {(byte) 0x89, 'P', 'N', 'G'}, "image/png");
        Tool camera = TypedTool.of("read_file", "Reads a file", PathArguments.class,
                (context, arguments) -> ToolResult.of("a picture of " + arguments.path(), png));
        ScriptedProvider provider = provider(mode, Answer.of("", read("a.png")), Answer.of("", complete("seen")));
        Session session = new Session();
        DefaultAgent agent = DefaultAgent.builder().provider(provider).model("mock").retryPolicy(NO_WAIT)
                .toolMode(mode).toolRegistry(new ToolRegistry().register(camera)).build();
        assertThat(agent.run(TASK, session).await().result()).isEqualTo("seen");

        Message result = provider.requests().get(1).messages().getLast();
        assertThat(result.role()).isEqualTo(mode == ToolMode.NATIVE ? Role.TOOL : Role.USER);
        assertThat(result.content()).contains("a picture of a.png", "(1 image attached: image/png, 4 bytes)");
        assertThat(result.media()).containsExactly(png);
        assertThat(session.memory().messages()).filteredOn(m -> !m.media().isEmpty()).hasSize(1);
    }

    @ParameterizedTest
    @EnumSource(value = ToolMode.class, names = {"TAGS", "NATIVE"})
    void a_tool_call_then_task_completion(ToolMode mode) {
        assertThat(run(mode, Answer.of("Let me look.", read("a.txt")), Answer.of("", complete("it says hi"))))
                .containsExactly("loop_start", "iteration_start", "tool_call_name read_file", "tool_call_end",
                        "tool_result read_file contents of a.txt", "iteration_start",
                        "tool_call_name task_completion", "tool_call_end", "tool_result task_completion it says hi",
                        "loop_end task_completion it says hi");
    }

    @ParameterizedTest
    @EnumSource(value = ToolMode.class, names = {"TAGS", "NATIVE"})
    void several_calls_in_one_answer_run_in_order(ToolMode mode) {
        assertThat(run(mode, Answer.of("", read("a"), read("b")), Answer.of("", complete("ok"))))
                .containsSubsequence("tool_call_name read_file", "tool_call_end", "tool_call_name read_file",
                        "tool_call_end", "tool_result read_file contents of a", "tool_result read_file contents of b",
                        "loop_end task_completion ok");
    }

    @ParameterizedTest
    @EnumSource(value = ToolMode.class, names = {"TAGS", "NATIVE"})
    void an_unknown_tool_and_malformed_arguments_are_errors_for_the_model(ToolMode mode) {
        List<String> events = run(mode, Answer.of("", new Call("read_fiel", "{\"path\": \"a\"}")),
                Answer.of("", new Call("read_file", "{\"path\": ")), Answer.of("", complete("recovered")));
        assertThat(events).contains("tool_result_error read_fiel", "loop_end task_completion recovered");
        // malformed arguments cannot be read as a call: no tool name in the error, in either mode
        assertThat(events).contains("tool_result_error null");
    }

    @ParameterizedTest
    @EnumSource(value = ToolMode.class, names = {"TAGS", "NATIVE"})
    void a_call_cut_off_by_a_broken_stream_is_retried_and_its_partial_output_dropped(ToolMode mode) {
        ScriptedProvider provider = provider(mode, Answer.of("Reading.", read("a.txt")).brokenOff(),
                Answer.of("Reading.", read("a.txt")), Answer.of("", complete("done")));
        DefaultAgent agent = agent(provider, mode);
        Session session = new Session();
        List<String> events = loop(agent.run(TASK, session).events().toList());
        assertThat(events).containsSubsequence("iteration_start", "retry", "tool_call_name read_file", "tool_call_end",
                "tool_result read_file contents of a.txt", "loop_end task_completion done");
        assertThat(provider.requests().get(1).messages()).isEqualTo(provider.requests().get(0).messages());
        assertThat(session.memory().messages()).filteredOn(m -> m.role() == Role.ASSISTANT).hasSize(2);
    }

    @ParameterizedTest
    @EnumSource(value = ToolMode.class, names = {"TAGS", "NATIVE"})
    void answers_without_a_call_are_reminded_then_trip_the_breaker(ToolMode mode) {
        assertThat(run(mode, Answer.of("Hmm."), Answer.of("Still thinking."), Answer.of("No idea.")))
                .containsExactly("loop_start", "iteration_start", "no_tool_call", "iteration_start", "no_tool_call",
                        "iteration_start", "no_tool_call", "loop_end circuit_breaker stopped after 3 consecutive errors;"
                                + " the last: the answer called no tool");
    }

    @ParameterizedTest
    @EnumSource(value = ToolMode.class, names = {"TAGS", "NATIVE"})
    void update_plan_and_the_loop_breaking_tools_are_offered_in_both_modes(ToolMode mode) {
        List<String> events = run(mode, Answer.of("", new Call("update_plan",
                        "{\"steps\": [{\"description\": \"read\", \"status\": \"in_progress\"}]}")),
                Answer.of("", new Call("ask_question", "{\"question\": \"Which file?\"}")));
        assertThat(events).contains("plan_update", "loop_end ask_question Which file?");
    }

    @Test
    void native_requests_carry_the_tools_and_the_calls_go_back_with_their_results() {
        ScriptedProvider provider = provider(ToolMode.NATIVE, Answer.of("Let me look.", read("a.txt")),
                Answer.of("", complete("hi")));
        DefaultAgent agent = agent(provider, ToolMode.NATIVE);
        assertThat(agent.run(TASK).await()).isEqualTo(new AgentResult(LoopEndReason.TASK_COMPLETION, "hi"));

        ChatRequest first = provider.requests().get(0);
        assertThat(first.tools()).extracting(ToolSpec::name)
                .containsExactly("read_file", "task_completion", "ask_question", "converse", "update_plan");
        assertThat(first.messages().getFirst().content()).startsWith("Be useful.").doesNotContain("tool_name \"read_file\"");
        assertThat(first.messages().getLast()).isEqualTo(Message.user(TASK));

        List<Message> second = provider.requests().get(1).messages();
        Message assistant = second.get(second.size() - 2);
        assertThat(assistant.role()).isEqualTo(Role.ASSISTANT);
        assertThat(assistant.content()).isEqualTo("Let me look.");
        assertThat(assistant.toolCalls()).singleElement().satisfies(call -> {
            assertThat(call.id()).isEqualTo("call_1");
            assertThat(call.name()).isEqualTo("read_file");
            assertThat(call.arguments()).isEqualTo("{\"path\": \"a.txt\"}");
        });
        assertThat(second.getLast()).isEqualTo(Message.toolResult("call_1", "contents of a.txt"));
    }

    @Test
    void the_native_tool_name_is_an_event_in_the_chunk_of_the_first_delta_that_carries_it() {
        ScriptedProvider provider = new ScriptedProvider(MockScript.of(
                MockTurn.content("Hi.").withToolCalls(MockToolCall.of("task_completion", "{\"result\": \"done\"}"))
                        .chunkSize(2)));
        List<AgentEvent> events = agent(provider, ToolMode.NATIVE).run(TASK).events().toList();
        // chunks: "Hi" 0, "." 1, the call's first delta (id, name) 2, then its arguments two characters a chunk
        assertThat(events).filteredOn(StreamEvent.class::isInstance).map(AgentEvent::type)
                .startsWith("message_start", "message_content", "message_content", "message_end", "tool_call_start",
                        "tool_call_name", "tool_call_content");
        assertThat(events).contains(new StreamEvent.ToolCallName(2, "task_completion"));
        StreamEvent.ToolCallEnd end = events.stream().filter(StreamEvent.ToolCallEnd.class::isInstance)
                .map(StreamEvent.ToolCallEnd.class::cast).findFirst().orElseThrow();
        assertThat(end.content()).isEqualTo("{\"result\": \"done\"}");
        assertThat(end.chunk()).isEqualTo(12);      // at the end of the stream: 2 + 1 + 9 pieces of arguments
    }

    /**
     * A call is read once for its {@code tool_call_end}; a piece that comes after the call ended
     * (text came between) still counts for the call that runs, so that reading is not reused.
     */
    @Test
    void a_late_piece_of_a_native_call_counts_for_the_call_that_runs() {
        List<StreamChunk> first = List.of(
                new StreamChunk.ToolCallDelta(0, "call_1", "read_file", "{\"path\": "),
                StreamChunk.message("Reading."),
                new StreamChunk.ToolCallDelta(0, null, null, "\"a.txt\"}"));
        List<StreamChunk> second = List.of(
                new StreamChunk.ToolCallDelta(0, "call_2", "task_completion", "{\"result\": \"hi\"}"));
        ChunksProvider provider = new ChunksProvider(List.of(first, second));
        DefaultAgent agent = DefaultAgent.builder().provider(provider).model("mock").retryPolicy(NO_WAIT)
                .toolMode(ToolMode.NATIVE).toolRegistry(new ToolRegistry().register(READ_FILE)).build();
        List<AgentEvent> events = agent.run(TASK).events().toList();

        StreamEvent.ToolCallEnd end = events.stream().filter(StreamEvent.ToolCallEnd.class::isInstance)
                .map(StreamEvent.ToolCallEnd.class::cast).findFirst().orElseThrow();
        assertThat(end.content()).as("what had come when the call ended").isEqualTo("{\"path\":");
        assertThat(loop(events)).contains("tool_result read_file contents of a.txt")
                .endsWith("loop_end task_completion hi");
    }

    /** A provider that streams the given chunks, one list per request. */
    private static final class ChunksProvider implements Provider {
        private final Iterator<List<StreamChunk>> answers;

        ChunksProvider(List<List<StreamChunk>> answers) {
            this.answers = answers.iterator();
        }

        @Override
        public String name() {
            return "chunks";
        }

        @Override
        public ChatStream stream(ChatRequest request) {
            Iterator<StreamChunk> chunks = answers.next().iterator();
            return new ChatStream() {
                @Override
                public StreamChunk next() {
                    return chunks.hasNext() ? chunks.next() : null;
                }

                @Override
                public Optional<String> finishReason() {
                    return Optional.of("tool_calls");
                }

                @Override
                public Optional<TokenUsage> usage() {
                    return Optional.empty();
                }

                @Override
                public void cancel() {
                }

                @Override
                public void close() {
                }
            };
        }
    }
}
