package dev.bellows.agent;

import dev.bellows.json.internal.Jackson;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.node.ObjectNode;
import dev.bellows.event.AgentEvent;
import dev.bellows.tool.LoopEndReason;
import dev.bellows.event.LoopEvent;
import dev.bellows.provider.RetryPolicy;
import dev.bellows.provider.ToolSpec;
import dev.bellows.tool.ToolRegistry;
import dev.bellows.testkit.MockScript;
import dev.bellows.testkit.MockToolCall;
import dev.bellows.testkit.MockTurn;
import dev.bellows.testkit.ScriptedProvider;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** Typed final answers: the record's schema goes with task_completion, and a mismatch is an error to correct. */
class TypedAnswerTest {

    private static final ObjectMapper JSON = Jackson.JSON;
    static final RetryPolicy NO_WAIT = new RetryPolicy(3, Duration.ZERO, Duration.ZERO);

    record Summary(String title, List<String> points, int count) {
    }

    static MockTurn complete(ToolMode mode, String result) {
        String arguments = "{\"result\": " + result + "}";
        return mode == ToolMode.NATIVE
                ? MockTurn.toolCalls(MockToolCall.of("task_completion", arguments))
                : MockTurn.content("<tool>{\"tool_name\": \"task_completion\", \"arguments\": " + arguments + "}</tool>");
    }

    static DefaultAgent agent(ScriptedProvider provider, ToolMode mode) {
        return DefaultAgent.builder().provider(provider).model("mock").toolMode(mode).retryPolicy(NO_WAIT)
                .toolRegistry(new ToolRegistry()).build();
    }

    @ParameterizedTest
    @EnumSource(value = ToolMode.class, names = {"TAGS", "NATIVE"})
    void a_mismatched_answer_goes_back_as_an_error_and_the_corrected_one_is_the_record(ToolMode mode) throws Exception {
        ScriptedProvider provider = new ScriptedProvider(MockScript.of(
                complete(mode, "\"just text\""),
                complete(mode, "{\"title\": \"Bellows\", \"points\": [\"streams\", \"tools\"], \"count\": \"2\"}")));
        DefaultAgent agent = agent(provider, mode);
        TypedRun<Summary> run = agent.run("Summarise", Summary.class);
        List<AgentEvent> events = run.events().toList();

        assertThat(run.answer()).isEqualTo(new Summary("Bellows", List.of("streams", "tools"), 2));
        assertThat(run.await().result()).isEqualTo("{\"title\":\"Bellows\",\"points\":[\"streams\",\"tools\"],\"count\":2}");
        LoopEvent.ToolResultError error = events.stream().filter(LoopEvent.ToolResultError.class::isInstance)
                .map(LoopEvent.ToolResultError.class::cast).findFirst().orElseThrow();
        assertThat(error.toolName()).isEqualTo("task_completion");
        assertThat(error.error()).contains("result");
        if (mode == ToolMode.NATIVE) {
            ToolSpec completion = provider.requests().get(0).tools().stream()
                    .filter(t -> t.name().equals("task_completion")).findFirst().orElseThrow();
            assertThat(completion.parameters().at("/properties/result/properties/points/type").asString()).isEqualTo("array");
        } else {
            // the catalog line after "task_completion: ..." is its schema, now with the record's shape
            List<String> lines = provider.requests().get(0).messages().getFirst().content().lines().toList();
            int head = lines.indexOf(lines.stream().filter(l -> l.startsWith("task_completion: ")).findFirst().orElseThrow());
            assertThat(JSON.readTree(lines.get(head + 1)).at("/properties/result/properties/points/type").asString())
                    .isEqualTo("array");
        }
        // the agent's own runs stay untyped
        assertThat(agent.toolRegistry().orElseThrow().find("local", "task_completion").orElseThrow().inputSchema()
                .toString()).doesNotContain("points");
    }

    @Test
    void an_answer_schema_for_every_run_and_a_run_that_ends_otherwise() throws Exception {
        ObjectNode schema = (ObjectNode) Jackson.JSON.readTree(
                "{\"type\": \"object\", \"properties\": {\"n\": {\"type\": \"integer\"}}, \"required\": [\"n\"]}");
        ScriptedProvider provider = new ScriptedProvider(MockScript.of(complete(ToolMode.TAGS, "{\"n\": 7}")));
        DefaultAgent agent = DefaultAgent.builder().provider(provider).model("mock").retryPolicy(NO_WAIT)
                .toolRegistry(new ToolRegistry()).answerSchema(schema).build();
        assertThat(agent.run("Count").await()).isEqualTo(new AgentResult(LoopEndReason.TASK_COMPLETION, "{\"n\":7}"));

        ScriptedProvider asks = new ScriptedProvider(MockScript.of(MockTurn.content(
                "<tool>{\"tool_name\": \"ask_question\", \"arguments\": {\"question\": \"Which file?\"}}</tool>")));
        TypedRun<Summary> run = agent(asks, ToolMode.TAGS).run("Summarise", Summary.class);
        assertThatThrownBy(run::answer).isInstanceOf(IllegalStateException.class)
                .hasMessage("the run ended ask_question without an answer: Which file?");
    }
}
