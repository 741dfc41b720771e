package dev.bellows.agent;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bellows.event.AgentEvent;
import dev.bellows.tool.LoopEndReason;
import dev.bellows.event.LoopEvent;
import dev.bellows.event.StreamEvent;
import dev.bellows.format.ActionFormat;
import dev.bellows.format.XmlFormat;
import dev.bellows.provider.ChatRequest;
import dev.bellows.provider.Message;
import dev.bellows.provider.Provider;
import dev.bellows.provider.RetryPolicy;
import dev.bellows.tool.Tool;
import dev.bellows.tool.ToolRegistry;
import dev.bellows.tool.ToolResult;
import dev.bellows.tool.TypedTool;
import dev.bellows.testkit.MockScript;
import dev.bellows.testkit.MockTurn;
import dev.bellows.testkit.ScriptedProvider;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The ReAct loop, driven in-process by {@link ScriptedProvider}. */
class ReActAgentTest {

    static final String TASK = "What does a.txt say?";
    static final RetryPolicy NO_WAIT = new RetryPolicy(3, Duration.ZERO, Duration.ZERO);

    record PathArguments(String path) {
    }

    static final Tool READ_FILE = TypedTool.of("read_file", "Reads a file", PathArguments.class,
            (context, arguments) -> ToolResult.of("contents of " + arguments.path()));

    static final String READ_JSON = "{\"tool_name\": \"read_file\", \"arguments\": {\"path\": \"a.txt\"}}";

    static ScriptedProvider provider(String... contents) {
        MockScript.Builder script = MockScript.builder();
        for (String content : contents) {
            script.turn(MockTurn.content(content));
        }
        return new ScriptedProvider(script.build());
    }

    static ReActAgent.Builder agent(Provider provider) {
        return ReActAgent.builder().provider(provider).model("mock").instructions("Be useful.")
                .retryPolicy(NO_WAIT).toolRegistry(new ToolRegistry().register(READ_FILE));
    }

    static List<AgentEvent> events(AgentRun run) {
        List<AgentEvent> events = run.events().toList();
        assertThat(run.isDone()).isTrue();
        return events;
    }

    /** Event types, stream events left out: the loop's side only. */
    static List<String> loopTypes(List<AgentEvent> events) {
        return events.stream().filter(LoopEvent.class::isInstance).map(AgentEvent::type).toList();
    }

    static Message lastSent(ScriptedProvider provider, int request) {
        return provider.requests().get(request).messages().getLast();
    }

    @Test
    void an_answer_on_the_first_turn_ends_the_loop_with_its_text() {
        ScriptedProvider provider = provider("# thought\nI know this.\n\n# answer\nIt says hello.");
        ReActAgent agent = agent(provider).build();
        AgentRun run = agent.run(TASK);
        List<AgentEvent> events = events(run);

        assertThat(run.await()).isEqualTo(new AgentResult(LoopEndReason.TASK_COMPLETION, "It says hello."));
        assertThat(loopTypes(events)).containsExactly("loop_start", "iteration_start", "loop_end");
        assertThat(events).anyMatch(StreamEvent.MessageContent.class::isInstance);
        ChatRequest request = provider.requests().get(0);
        assertThat(request.messages()).containsExactly(agent.prompts().systemMessage(), Message.user(TASK));
        String system = request.messages().get(0).content();
        assertThat(system).startsWith("Be useful.").contains("# thought", "# action", "# answer",
                "\nserver_name \"local\":\nread_file: Reads a file\n" + READ_FILE.inputSchema() + "\n",
                "{\"tool_name\":\"read_file\",\"arguments\":{\"path\":\"…\"}}");
        assertThat(agent(provider).toolCatalog(dev.bellows.prompt.ToolCatalogStyle.SIGNATURES).build().prompts()
                .systemMessage().content()).contains("\nTools:\n// Reads a file\nread_file(path: string)")
                .doesNotContain("server_name");
    }

    @Test
    void action_then_observation_then_answer_sends_exactly_the_observation_section() {
        String first = "# thought\nRead it.\n\n# action\n" + READ_JSON;
        ScriptedProvider provider = provider(first, "# answer\nIt holds its contents.");
        ReActAgent agent = agent(provider).build();
        AgentRun run = agent.run(TASK);
        List<AgentEvent> events = events(run);

        assertThat(run.await()).isEqualTo(new AgentResult(LoopEndReason.TASK_COMPLETION, "It holds its contents."));
        assertThat(loopTypes(events)).containsExactly("loop_start", "iteration_start", "tool_result",
                "iteration_start", "loop_end");
        LoopEvent.ToolResultEvent result = events.stream().filter(LoopEvent.ToolResultEvent.class::isInstance)
                .map(LoopEvent.ToolResultEvent.class::cast).findFirst().orElseThrow();
        assertThat(result.toolName()).isEqualTo("read_file");
        assertThat(result.serverName()).isEqualTo("local");
        assertThat(result.result()).isEqualTo("contents of a.txt");

        assertThat(provider.requests().get(1).messages()).containsExactly(agent.prompts().systemMessage(),
                Message.user(TASK), Message.assistant(first),
                Message.user("# observation\n\n## read_file\ncontents of a.txt"));
    }

    @Test
    void yaml_actions_in_xml_sections_with_an_xml_observation() {
        String first = "<thought>Read it.</thought>\n<action>\ntool_name: read_file\narguments:\n  path: a.txt\n</action>";
        ScriptedProvider provider = provider(first, "<answer>Done.</answer>");
        ReActAgent agent = agent(provider).textFormat(new XmlFormat()).actionFormat(ActionFormat.YAML).build();
        AgentRun run = agent.run(TASK);

        assertThat(run.await()).isEqualTo(new AgentResult(LoopEndReason.TASK_COMPLETION, "Done."));
        assertThat(lastSent(provider, 1)).isEqualTo(
                Message.user("<observation>\n<read_file>\ncontents of a.txt\n</read_file>\n</observation>"));
        String system = provider.requests().get(0).messages().get(0).content();
        assertThat(system).contains("<action>", "tool_name: read_file\narguments:\n  path: …");
    }

    @Test
    void an_array_of_json_actions_runs_in_order_in_one_observation() {
        String first = "# action\n```json\n[" + READ_JSON
                + ", {\"name\": \"read_file\", \"server_name\": \"local\", \"arguments\": {\"path\": \"b.txt\"}}]\n```";
        ScriptedProvider provider = provider(first, "# answer\nBoth read.");
        AgentRun run = agent(provider).build().run(TASK);
        List<AgentEvent> events = events(run);

        assertThat(run.await().reason()).isEqualTo(LoopEndReason.TASK_COMPLETION);
        assertThat(events.stream().filter(LoopEvent.ToolResultEvent.class::isInstance)
                .map(e -> ((LoopEvent.ToolResultEvent) e).result()))
                .containsExactly("contents of a.txt", "contents of b.txt");
        assertThat(lastSent(provider, 1).content())
                .isEqualTo("# observation\n\n## read_file\ncontents of a.txt\n\n## read_file\ncontents of b.txt");
    }

    @Test
    void a_yaml_list_of_actions_runs_each_call() {
        String first = "# action\n- tool_name: read_file\n  arguments: {path: a.txt}\n- tool_name: read_file\n  arguments:\n    path: c.txt";
        ScriptedProvider provider = provider(first, "# answer\nok");
        AgentRun run = agent(provider).actionFormat(ActionFormat.YAML).build().run(TASK);
        assertThat(run.await().reason()).isEqualTo(LoopEndReason.TASK_COMPLETION);
        assertThat(lastSent(provider, 1).content()).contains("contents of a.txt", "contents of c.txt");
    }

    @Test
    void a_format_error_is_fed_back_and_the_model_recovers() {
        ScriptedProvider provider = provider("Just some prose, no sections.", "# answer\nRecovered.");
        AgentRun run = agent(provider).build().run(TASK);
        List<AgentEvent> events = events(run);

        assertThat(run.await()).isEqualTo(new AgentResult(LoopEndReason.TASK_COMPLETION, "Recovered."));
        assertThat(loopTypes(events)).containsExactly("loop_start", "iteration_start", "no_tool_call",
                "iteration_start", "loop_end");
        String feedback = lastSent(provider, 1).content();
        assertThat(feedback).startsWith("Your answer has no section.").contains("thought, action, answer");
    }

    @Test
    void an_unreadable_action_is_fed_back_as_the_decoder_message() {
        ScriptedProvider provider = provider("# action\n{\"tool_name\": \"read_file\",}", "# answer\nok");
        AgentRun run = agent(provider).build().run(TASK);
        List<AgentEvent> events = events(run);

        assertThat(run.await().reason()).isEqualTo(LoopEndReason.TASK_COMPLETION);
        LoopEvent.ToolResultError error = events.stream().filter(LoopEvent.ToolResultError.class::isInstance)
                .map(LoopEvent.ToolResultError.class::cast).findFirst().orElseThrow();
        assertThat(error.toolName()).isNull();
        assertThat(error.error()).startsWith("The action section is not valid JSON");
        assertThat(lastSent(provider, 1)).isEqualTo(Message.user(error.error()));
    }

    @Test
    void repeated_format_errors_trip_the_circuit_breaker() {
        ScriptedProvider provider = provider("prose", "# thought\nonly thinking", "# action\nnot json", "# answer\nnever");
        AgentRun run = agent(provider).maxConsecutiveErrors(3).build().run(TASK);
        List<AgentEvent> events = events(run);

        assertThat(run.await().reason()).isEqualTo(LoopEndReason.CIRCUIT_BREAKER);
        assertThat(run.await().result()).contains("3 consecutive errors");
        assertThat(loopTypes(events)).containsExactly("loop_start", "iteration_start", "no_tool_call",
                "iteration_start", "no_tool_call", "iteration_start", "tool_result_error", "loop_end");
        assertThat(provider.requests()).hasSize(3);
        assertThat(lastSent(provider, 2).content()).contains("neither an action section nor an answer section");
    }

    @Test
    void the_iteration_limit_ends_the_loop() {
        String act = "# action\n" + READ_JSON;
        ScriptedProvider provider = provider(act, act, act);
        AgentRun run = agent(provider).maxIterations(2).build().run(TASK);
        assertThat(run.await().reason()).isEqualTo(LoopEndReason.MAX_ITERATIONS);
        assertThat(provider.requests()).hasSize(2);
    }

    @Test
    void an_unknown_tool_is_an_error_in_the_observation() {
        ScriptedProvider provider = provider("# action\n{\"tool_name\": \"delete_all\", \"arguments\": {}}", "# answer\nok");
        AgentRun run = agent(provider).build().run(TASK);
        List<AgentEvent> events = events(run);

        assertThat(run.await().reason()).isEqualTo(LoopEndReason.TASK_COMPLETION);
        LoopEvent.ToolResultError error = events.stream().filter(LoopEvent.ToolResultError.class::isInstance)
                .map(LoopEvent.ToolResultError.class::cast).findFirst().orElseThrow();
        assertThat(error.toolName()).isEqualTo("delete_all");
        assertThat(lastSent(provider, 1).content()).startsWith("# observation\n\n## delete_all\n\n### error\n")
                .contains("read_file");
    }

    @Test
    void a_loop_breaking_tool_in_an_action_ends_the_loop() {
        ScriptedProvider provider = provider(
                "# action\n{\"tool_name\": \"ask_question\", \"arguments\": {\"question\": \"Which file?\"}}");
        AgentRun run = agent(provider).build().run(TASK);
        assertThat(run.await()).isEqualTo(new AgentResult(LoopEndReason.ASK_QUESTION, "Which file?"));
        assertThat(loopTypes(events(run))).containsExactly("loop_start", "iteration_start", "tool_result", "loop_end");
    }

    @Test
    void an_action_and_an_answer_together_run_the_action_and_ignore_the_answer() {
        ScriptedProvider provider = provider("# action\n" + READ_JSON + "\n\n# answer\nguessed", "# answer\nreal");
        ReActAgent agent = agent(provider).build();
        AgentRun run = agent.run(TASK);
        assertThat(run.await()).isEqualTo(new AgentResult(LoopEndReason.TASK_COMPLETION, "real"));
        assertThat(lastSent(provider, 1).content()).isEqualTo("# observation\n\n## read_file\ncontents of a.txt\n\n"
                + agent.prompts().answerIgnoredNote());
    }

    @Test
    void a_broken_stream_is_retried_and_its_partial_answer_is_dropped() {
        ScriptedProvider provider = new ScriptedProvider(MockScript.of(
                MockTurn.content("# thought\nLet me think about this for a while").cutAfter(20),
                MockTurn.content("# answer\nclean")));
        ReActAgent agent = agent(provider).build();
        Session session = new Session();
        AgentRun run = agent.run(TASK, session);
        List<AgentEvent> events = events(run);

        assertThat(run.await()).isEqualTo(new AgentResult(LoopEndReason.TASK_COMPLETION, "clean"));
        assertThat(loopTypes(events)).containsExactly("loop_start", "iteration_start", "retry", "loop_end");
        assertThat(provider.requests().get(1)).isEqualTo(provider.requests().get(0));
        assertThat(session.memory().messages()).containsExactly(Message.user(TASK), Message.assistant("# answer\nclean"));
    }

    @Test
    void cancelling_while_the_model_streams_ends_the_run_cancelled() throws Exception {
        CountDownLatch firstText = new CountDownLatch(1);
        ScriptedProvider provider = new ScriptedProvider(MockScript.of(
                MockTurn.content("# thought\nthis takes a while").chunkSize(1).delayMs(600_000)));
        ReActAgent agent = agent(provider).listener(event -> {
            if (event instanceof StreamEvent.MessageContent) {
                firstText.countDown();
            }
        }).build();
        AgentRun run = agent.run(TASK);
        assertThat(firstText.await(30, TimeUnit.SECONDS)).isTrue();

        run.cancel();

        assertThat(run.await()).isEqualTo(new AgentResult(LoopEndReason.CANCELLED, "cancelled"));
        assertThat(loopTypes(events(run))).containsExactly("loop_start", "iteration_start", "loop_end");
        assertThat(agent.memory().messages()).isEmpty();
    }

    @Test
    void events_come_in_order_with_stream_events_between_iteration_start_and_the_tool_result() {
        ScriptedProvider provider = provider("# action\n" + READ_JSON, "# answer\nok");
        List<String> types = events(agent(provider).build().run(TASK)).stream().map(AgentEvent::type)
                .filter(type -> !type.endsWith("_content")).toList();
        // the action's tool name as soon as it is written; each section once complete (here: at the end)
        assertThat(types).containsExactly("loop_start", "iteration_start", "message_start", "tool_call_name",
                "message_end", "section", "tool_result", "iteration_start", "message_start", "message_end", "section",
                "loop_end");
    }
}
