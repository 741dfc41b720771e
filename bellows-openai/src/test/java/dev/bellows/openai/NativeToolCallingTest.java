package dev.bellows.openai;

import static org.assertj.core.api.Assertions.assertThat;

import tools.jackson.databind.JsonNode;
import dev.bellows.agent.AgentResult;
import dev.bellows.agent.DefaultAgent;
import dev.bellows.agent.Session;
import dev.bellows.agent.ToolMode;
import dev.bellows.event.AgentEvent;
import dev.bellows.tool.LoopEndReason;
import dev.bellows.event.LoopEvent;
import dev.bellows.event.StreamEvent;
import tools.jackson.databind.node.JsonNodeFactory;
import dev.bellows.provider.RetryPolicy;
import dev.bellows.testkit.MockLlmServer;
import dev.bellows.testkit.MockScript;
import dev.bellows.tool.ToolRegistry;
import dev.bellows.tool.ToolResult;
import dev.bellows.tool.TypedTool;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * An agent in native tool-calling mode over real HTTP: the OpenAI-compatible provider against
 * MockLlmServer streaming {@code tool_calls} deltas (two calls in one message, arguments in
 * pieces), and what goes back on the wire.
 */
class NativeToolCallingTest {

    record PathArguments(String path) {
    }

    @Test
    void toolCallsStreamInPiecesAndTheirResultsGoBackAsToolMessages() throws Exception {
        MockScript script = MockScript.parse("""
                {"turns": [
                  {"content": "Reading both.", "chunk_size": 3, "tool_calls": [
                    {"id": "call_a", "name": "read_file", "arguments": {"path": "a.txt"}},
                    {"id": "call_b", "name": "read_file", "arguments": "{\\"path\\": \\"b.txt\\"}"}]},
                  {"tool_calls": [{"name": "task_completion", "arguments": {"result": "a and b"}}]}
                ]}""");
        var readFile = TypedTool.of("read_file", "Reads a file", PathArguments.class,
                (context, arguments) -> ToolResult.of("contents of " + arguments.path()));
        try (MockLlmServer server = MockLlmServer.start(script);
             OpenAiProvider provider = OpenAiProvider.builder().baseUrl(server.baseUrl()).build()) {
            DefaultAgent agent = DefaultAgent.builder().provider(provider).model("gpt-test").toolMode(ToolMode.NATIVE)
                    .retryPolicy(new RetryPolicy(0, Duration.ZERO, Duration.ZERO))
                    .toolRegistry(new ToolRegistry().register(readFile)).build();
            Session session = new Session();
            List<AgentEvent> events = agent.run("Read a.txt and b.txt", session).events().toList();

            assertThat(events).filteredOn(LoopEvent.class::isInstance).map(AgentEvent::type).containsExactly(
                    "loop_start", "iteration_start", "tool_result", "tool_result", "iteration_start", "tool_result",
                    "loop_end");
            assertThat(events.getLast()).isEqualTo(new LoopEvent.LoopEnd(LoopEndReason.TASK_COMPLETION, "a and b"));
            // every call answered, the loop-breaking one too: the next run can continue the conversation
            assertThat(session.memory().messages()).hasSize(6);
            assertThat(session.memory().messages().getLast().toolCallId()).isEqualTo("call_1");

            JsonNode first = server.requests().get(0).body();
            assertThat(first.path("tools")).hasSize(5);
            assertThat(first.path("tools").get(0).path("type").asString()).isEqualTo("function");
            assertThat(first.path("tools").get(0).path("function").path("name").asString()).isEqualTo("read_file");
            assertThat(first.path("tools").get(0).path("function").path("parameters").path("type").asString())
                    .isEqualTo("object");

            JsonNode messages = server.requests().get(1).body().path("messages");
            JsonNode assistant = messages.get(messages.size() - 3);
            assertThat(assistant.path("role").asString()).isEqualTo("assistant");
            assertThat(assistant.path("content").asString()).isEqualTo("Reading both.");
            assertThat(assistant.path("tool_calls")).hasSize(2);
            assertThat(assistant.path("tool_calls").get(1).path("id").asString()).isEqualTo("call_b");
            assertThat(assistant.path("tool_calls").get(1).path("function").path("arguments").asString())
                    .isEqualTo("{\"path\": \"b.txt\"}");
            JsonNode resultA = messages.get(messages.size() - 2);
            assertThat(resultA.path("role").asString()).isEqualTo("tool");
            assertThat(resultA.path("tool_call_id").asString()).isEqualTo("call_a");
            assertThat(resultA.path("content").asString()).isEqualTo("contents of a.txt");
            assertThat(messages.get(messages.size() - 1).path("tool_call_id").asString()).isEqualTo("call_b");
        }
    }

    record WriteArguments(String path, String content) {
    }

    /**
     * Each member of a native call's arguments is reported while the arguments still stream: the
     * path of a write in the delta that completes it, long before the call's end, and a second
     * call's after the first call ended.
     */
    @Test
    void eachArgumentIsReportedInTheDeltaThatCompletesItBeforeTheCallEnds() throws Exception {
        String content = "abcd ".repeat(40);
        MockScript script = MockScript.parse("""
                {"turns": [
                  {"chunk_size": 5, "tool_calls": [
                    {"id": "call_w", "name": "write_file", "arguments": "{\\"path\\": \\"notes/today.md\\", \\"content\\": \\"%s\\"}"},
                    {"id": "call_r", "name": "read_file", "arguments": {"path": "a.txt"}}]},
                  {"tool_calls": [{"name": "task_completion", "arguments": {"result": "written"}}]}
                ]}""".formatted(content));
        var writeFile = TypedTool.of("write_file", "Writes a file", WriteArguments.class,
                (context, arguments) -> ToolResult.of("wrote " + arguments.content().length() + " characters"));
        var readFile = TypedTool.of("read_file", "Reads a file", PathArguments.class,
                (context, arguments) -> ToolResult.of("contents of " + arguments.path()));
        try (MockLlmServer server = MockLlmServer.start(script);
             OpenAiProvider provider = OpenAiProvider.builder().baseUrl(server.baseUrl()).build()) {
            DefaultAgent agent = DefaultAgent.builder().provider(provider).model("gpt-test").toolMode(ToolMode.NATIVE)
                    .retryPolicy(new RetryPolicy(0, Duration.ZERO, Duration.ZERO))
                    .toolRegistry(new ToolRegistry().register(writeFile).register(readFile)).build();
            List<AgentEvent> events = agent.run("Write today's notes", new Session()).events().toList();

            assertThat(events.getLast()).isEqualTo(new LoopEvent.LoopEnd(LoopEndReason.TASK_COMPLETION, "written"));
            List<StreamEvent> firstAnswer = events.stream().takeWhile(e -> !(e instanceof LoopEvent.ToolResultEvent))
                    .filter(StreamEvent.class::isInstance).map(StreamEvent.class::cast).toList();
            assertThat(firstAnswer).filteredOn(e -> !(e instanceof StreamEvent.ToolCallContent)).map(StreamEvent::type)
                    .containsExactly("tool_call_start", "tool_call_name", "tool_call_argument", "tool_call_argument",
                            "tool_call_end", "tool_call_start", "tool_call_name", "tool_call_argument", "tool_call_end");
            var nodes = JsonNodeFactory.instance;
            assertThat(firstAnswer).filteredOn(StreamEvent.ToolCallArgument.class::isInstance)
                    .map(e -> (StreamEvent.ToolCallArgument) e)
                    .extracting(StreamEvent.ToolCallArgument::name, StreamEvent.ToolCallArgument::value)
                    .containsExactly(org.assertj.core.groups.Tuple.tuple("path", nodes.stringNode("notes/today.md")),
                            org.assertj.core.groups.Tuple.tuple("content", nodes.stringNode(content)),
                            org.assertj.core.groups.Tuple.tuple("path", nodes.stringNode("a.txt")));
            // the path is known while the content still streams: more of the call's deltas follow it
            int path = firstAnswer.indexOf(firstAnswer.stream()
                    .filter(StreamEvent.ToolCallArgument.class::isInstance).findFirst().orElseThrow());
            assertThat(firstAnswer.subList(path, firstAnswer.size()).stream()
                    .takeWhile(e -> !(e instanceof StreamEvent.ToolCallEnd))
                    .filter(StreamEvent.ToolCallContent.class::isInstance).count()).isGreaterThan(40);
            StreamEvent.ToolCallArgument pathEvent = (StreamEvent.ToolCallArgument) firstAnswer.get(path);
            StreamEvent.ToolCallEnd end = (StreamEvent.ToolCallEnd) firstAnswer.stream()
                    .filter(StreamEvent.ToolCallEnd.class::isInstance).findFirst().orElseThrow();
            assertThat(pathEvent.chunk()).isLessThan(end.chunk() - 40);
            assertThat(events).filteredOn(LoopEvent.ToolResultEvent.class::isInstance).first()
                    .extracting(e -> ((LoopEvent.ToolResultEvent) e).result()).isEqualTo("wrote 200 characters");
        }
    }

    @Test
    void inTagModeNoToolsAreSent() throws Exception {
        MockScript script = MockScript.parse("""
                {"turns": [{"content": "<tool>{\\"tool_name\\": \\"converse\\", \\"arguments\\": {\\"message\\": \\"hi\\"}}</tool>"}]}""");
        try (MockLlmServer server = MockLlmServer.start(script);
             OpenAiProvider provider = OpenAiProvider.builder().baseUrl(server.baseUrl()).build()) {
            DefaultAgent agent = DefaultAgent.builder().provider(provider).model("gpt-test")
                    .toolRegistry(new ToolRegistry()).build();
            assertThat(agent.run("Hello").await()).isEqualTo(new AgentResult(LoopEndReason.CONVERSE, "hi"));
            assertThat(server.requests().get(0).body().has("tools")).isFalse();
        }
    }
}
