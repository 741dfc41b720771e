package dev.bellows.agent;

import dev.bellows.json.internal.Jackson;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import tools.jackson.databind.node.ObjectNode;
import dev.bellows.event.AgentEvent;
import dev.bellows.event.EventJson;
import dev.bellows.tool.LoopEndReason;
import dev.bellows.event.LoopEvent;
import dev.bellows.event.StreamEvent;
import dev.bellows.plan.Plan;
import dev.bellows.plan.PlanStatus;
import dev.bellows.plan.PlanStep;
import dev.bellows.prompt.internal.PromptBuilder;
import dev.bellows.prompt.ToolCallFormat;
import dev.bellows.provider.ChatRequest;
import dev.bellows.provider.ChatStream;
import dev.bellows.provider.Message;
import dev.bellows.provider.Provider;
import dev.bellows.provider.RetryPolicy;
import dev.bellows.stream.StreamOptions;
import dev.bellows.tool.Tool;
import dev.bellows.tool.ToolRegistry;
import dev.bellows.tool.ToolResult;
import dev.bellows.tool.TypedTool;
import dev.bellows.testkit.MockScript;
import dev.bellows.testkit.MockTurn;
import dev.bellows.testkit.ScriptedProvider;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Flow;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/**
 * The agent loop of cli.md, driven in-process by {@link ScriptedProvider}. What was sent to the
 * model is compared with what a {@link PromptBuilder} of the same configuration assembles, so
 * these tests pin the loop's side (history, current turn, plan) and not the prompt texts.
 */
class DefaultAgentTest {

    static final String TASK = "What does a.txt say?";
    static final String INSTRUCTIONS = "Be useful.";
    static final RetryPolicy NO_WAIT = new RetryPolicy(3, Duration.ZERO, Duration.ZERO);

    record PathArguments(String path) {
    }

    record NoArguments() {
    }

    static final Tool READ_FILE = TypedTool.of("read_file", "Reads a file", PathArguments.class,
            (context, arguments) -> ToolResult.of("contents of " + arguments.path()));

    static String call(String tool, String arguments) {
        return "<tool>{\"tool_name\": \"" + tool + "\", \"arguments\": " + arguments + "}</tool>";
    }

    static String read(String path) {
        return call("read_file", "{\"path\": \"" + path + "\"}");
    }

    static String complete(String result) {
        return call("task_completion", "{\"result\": \"" + result + "\"}");
    }

    static String observation(String tool, String text) {
        return "<observation>\n<" + tool + ">\n" + text + "\n</" + tool + ">\n</observation>";
    }

    static ScriptedProvider provider(String... contents) {
        MockScript.Builder script = MockScript.builder();
        for (String content : contents) {
            script.turn(MockTurn.content(content));
        }
        return new ScriptedProvider(script.build());
    }

    static DefaultAgent.Builder agent(Provider provider, Tool... tools) {
        ToolRegistry registry = new ToolRegistry();
        for (Tool tool : tools) {
            registry.register(tool);
        }
        return DefaultAgent.builder().provider(provider).model("mock").instructions(INSTRUCTIONS)
                .retryPolicy(NO_WAIT).toolRegistry(registry);
    }

    /** What the agent's prompt builder assembles, for comparing with what was sent. */
    static PromptBuilder prompts(DefaultAgent agent) {
        return PromptBuilder.builder().instructions(INSTRUCTIONS).toolRegistry(agent.toolRegistry().orElseThrow())
                .toolCallFormat(ToolCallFormat.JSON).streamOptions(StreamOptions.defaults()).chainOfThought(true)
                .build();
    }

    static ObjectNode json(String text) {
        try {
            return (ObjectNode) Jackson.JSON.readTree(text);
        } catch (Exception e) {
            throw new IllegalArgumentException(e);
        }
    }

    static List<AgentEvent> events(AgentRun run) {
        List<AgentEvent> events = run.events().toList();
        assertThat(run.isDone()).isTrue();
        return events;
    }

    static List<LoopEvent> loopEvents(List<AgentEvent> events) {
        return events.stream().filter(LoopEvent.class::isInstance).map(LoopEvent.class::cast).toList();
    }

    /** Event types without the content deltas, whose splitting is free. */
    static List<String> types(List<AgentEvent> events) {
        return events.stream().map(AgentEvent::type).filter(type -> !type.endsWith("_content")).toList();
    }

    @Test
    void the_tool_catalog_is_the_json_schema_one_unless_signatures_are_asked_for() {
        for (dev.bellows.prompt.ToolCatalogStyle style : dev.bellows.prompt.ToolCatalogStyle.values()) {
            ScriptedProvider provider = provider(complete("done"));
            DefaultAgent.Builder builder = agent(provider, READ_FILE);
            DefaultAgent agent = (style == dev.bellows.prompt.ToolCatalogStyle.JSON_SCHEMA ? builder
                    : builder.toolCatalog(style)).build();

            assertThat(agent.run(TASK).await().result()).isEqualTo("done");
            Message system = provider.requests().get(0).messages().getFirst();
            assertThat(system).isEqualTo(PromptBuilder.builder().instructions(INSTRUCTIONS)
                    .toolRegistry(agent.toolRegistry().orElseThrow()).toolCatalog(style).build().systemMessage());
            if (style == dev.bellows.prompt.ToolCatalogStyle.JSON_SCHEMA) {
                assertThat(system.content()).contains("\nread_file: Reads a file\n" + READ_FILE.inputSchema() + "\n");
            } else {
                assertThat(system.content()).contains("\nread_file(path: string)\n").doesNotContain("server_name");
            }
        }
    }

    @Nested
    class Endings {

        @Test
        void task_completion_after_a_tool_call_with_every_event_in_order() {
            String first = "<thinking>I should read it.</thinking>\n" + read("a.txt");
            String second = "Done reading.\n" + complete("a.txt says hi");
            ScriptedProvider provider = provider(first, second);
            DefaultAgent agent = agent(provider, READ_FILE).build();

            Session session = new Session();   // the run's conversation, to look at afterwards
            AgentRun run = agent.run(TASK, session);
            List<AgentEvent> events = events(run);

            assertThat(run.await()).isEqualTo(new AgentResult(LoopEndReason.TASK_COMPLETION, "a.txt says hi"));
            assertThat(types(events)).containsExactly(
                    "loop_start",
                    "iteration_start", "thinking_start", "thinking_end",
                    "tool_call_start", "tool_call_name", "tool_call_argument", "tool_call_end", "tool_result",
                    "iteration_start", "message_start", "message_end",
                    "tool_call_start", "tool_call_name", "tool_call_argument", "tool_call_end", "tool_result",
                    "loop_end");
            assertThat(events).noneMatch(StreamEvent.Complete.class::isInstance);
            assertThat(loopEvents(events)).containsExactly(
                    new LoopEvent.LoopStart(TASK),
                    new LoopEvent.IterationStart(1),
                    new LoopEvent.ToolResultEvent("local", "read_file", json("{\"path\": \"a.txt\"}"),
                            "contents of a.txt", "call_1_1"),
                    new LoopEvent.IterationStart(2),
                    new LoopEvent.ToolResultEvent("local", "task_completion", json("{\"result\": \"a.txt says hi\"}"),
                            "a.txt says hi", "call_2_1"),
                    new LoopEvent.LoopEnd(LoopEndReason.TASK_COMPLETION, "a.txt says hi"));

            // Exactly what the model was sent: the assistant's raw output verbatim, the observation as a user message.
            PromptBuilder prompts = prompts(agent);
            List<ChatRequest> requests = provider.requests();
            assertThat(requests).hasSize(2);
            assertThat(requests).allSatisfy(r -> assertThat(r.model()).isEqualTo("mock"));
            assertThat(requests.get(0).messages())
                    .isEqualTo(prompts.build(List.of(), Message.user(TASK), Plan.empty(), Map.of()));
            assertThat(requests.get(1).messages()).isEqualTo(prompts.build(
                    List.of(Message.user(TASK), Message.assistant(first)),
                    Message.user(observation("read_file", "contents of a.txt")), Plan.empty(), Map.of()));
            assertThat(session.memory().messages()).containsExactly(
                    Message.user(TASK), Message.assistant(first),
                    Message.user(observation("read_file", "contents of a.txt")),
                    Message.assistant(second));
        }

        @Test
        void ask_question_ends_the_loop_with_the_question() {
            ScriptedProvider provider = provider(call("ask_question",
                    "{\"question\": \"Which file?\", \"suggestions\": [\"a.txt\", \"b.txt\"]}"));
            AgentResult result = agent(provider).build().run(TASK).await();
            assertThat(result).isEqualTo(new AgentResult(LoopEndReason.ASK_QUESTION, "Which file?"));
        }

        @Test
        void converse_ends_the_loop_with_the_reply() {
            ScriptedProvider provider = provider(call("converse", "{\"message\": \"Hello to you too!\"}"));
            AgentRun run = agent(provider).build().run("Hello!");
            assertThat(run.await()).isEqualTo(new AgentResult(LoopEndReason.CONVERSE, "Hello to you too!"));
            assertThat(loopEvents(events(run))).last().isEqualTo(
                    new LoopEvent.LoopEnd(LoopEndReason.CONVERSE, "Hello to you too!"));
        }

        @Test
        void max_iterations_ends_a_loop_that_keeps_calling_tools() {
            ScriptedProvider provider = provider(read("a"), read("b"), read("c"));
            AgentRun run = agent(provider, READ_FILE).maxIterations(2).build().run(TASK);
            List<AgentEvent> events = events(run);
            assertThat(run.await().reason()).isEqualTo(LoopEndReason.MAX_ITERATIONS);
            assertThat(run.await().result()).isEqualTo("stopped after 2 iterations without the task being finished");
            assertThat(provider.requests()).hasSize(2);
            assertThat(loopEvents(events).stream().map(LoopEvent::type)).containsExactly(
                    "loop_start", "iteration_start", "tool_result", "iteration_start", "tool_result", "loop_end");
        }

        @Test
        void circuit_breaker_after_repeated_unknown_tools() {
            String unknown = call("read_fiel", "{\"path\": \"a.txt\"}");
            ScriptedProvider provider = provider(unknown, unknown, unknown, complete("never"));
            DefaultAgent agent = agent(provider, READ_FILE).build();
            AgentRun run = agent.run(TASK);
            List<LoopEvent> events = loopEvents(events(run));

            assertThat(run.await().reason()).isEqualTo(LoopEndReason.CIRCUIT_BREAKER);
            assertThat(provider.requests()).hasSize(3);
            List<LoopEvent.ToolResultError> errors = events.stream()
                    .filter(LoopEvent.ToolResultError.class::isInstance).map(LoopEvent.ToolResultError.class::cast).toList();
            assertThat(errors).hasSize(3).allSatisfy(e -> {
                assertThat(e.serverName()).isEqualTo("local");
                assertThat(e.toolName()).isEqualTo("read_fiel");
                // names the tool, suggests the right one and lists what exists
                assertThat(e.error()).contains("\"read_fiel\"", "did you mean \"read_file\"", "read_file",
                        "task_completion");
            });
            assertThat(run.await().result()).isEqualTo("stopped after 3 consecutive errors; the last: " + errors.get(2).error());
            // the error goes back to the model as the observation
            assertThat(provider.requests().get(1).messages()).isEqualTo(prompts(agent).build(
                    List.of(Message.user(TASK), Message.assistant(unknown)),
                    Message.user("<observation>\n<read_fiel>\n<error>\n" + errors.get(0).error()
                            + "\n</error>\n</read_fiel>\n</observation>"),
                    Plan.empty(), Map.of()));
        }

        @Test
        void circuit_breaker_after_repeated_answers_without_a_tool_call() {
            ScriptedProvider provider = provider("I think the answer is 42.", "Really, 42.", "42!", complete("42"));
            DefaultAgent agent = agent(provider).build();
            AgentRun run = agent.run(TASK);
            List<LoopEvent> events = loopEvents(events(run));

            assertThat(run.await().reason()).isEqualTo(LoopEndReason.CIRCUIT_BREAKER);
            assertThat(events).containsExactly(
                    new LoopEvent.LoopStart(TASK),
                    new LoopEvent.IterationStart(1), new LoopEvent.NoToolCall(1),
                    new LoopEvent.IterationStart(2), new LoopEvent.NoToolCall(2),
                    new LoopEvent.IterationStart(3), new LoopEvent.NoToolCall(3),
                    new LoopEvent.LoopEnd(LoopEndReason.CIRCUIT_BREAKER,
                            "stopped after 3 consecutive errors; the last: the answer called no tool"));
            // the reminder is the next user message
            PromptBuilder prompts = prompts(agent);
            Message reminder = Message.user(prompts.noToolCallReminder());
            assertThat(provider.requests().get(2).messages()).isEqualTo(prompts.build(
                    List.of(Message.user(TASK), Message.assistant("I think the answer is 42."), reminder,
                            Message.assistant("Really, 42.")),
                    reminder, Plan.empty(), Map.of()));
        }

        @Test
        void a_successful_call_resets_the_error_count() {
            String unknown = call("nope", "{}");
            ScriptedProvider provider = provider(unknown, "no call", read("a"), unknown, "no call", complete("ok"));
            AgentRun run = agent(provider, READ_FILE).build().run(TASK);
            assertThat(run.await()).isEqualTo(new AgentResult(LoopEndReason.TASK_COMPLETION, "ok"));
            assertThat(provider.requests()).hasSize(6);
        }

        @Test
        void a_client_error_ends_the_loop_with_the_providers_message_and_no_retry() {
            ScriptedProvider provider = new ScriptedProvider(MockScript.of(
                    MockTurn.status(401).errorMessage("Incorrect API key provided")));
            AgentRun run = agent(provider).build().run(TASK);
            List<AgentEvent> events = events(run);
            assertThat(run.await()).isEqualTo(new AgentResult(LoopEndReason.ERROR, "HTTP 401: Incorrect API key provided"));
            assertThat(types(events)).containsExactly("loop_start", "iteration_start", "loop_end");
            assertThat(provider.requests()).hasSize(1);
        }

        @Test
        void exhausted_retries_end_the_loop_with_an_error() {
            ScriptedProvider provider = new ScriptedProvider(MockScript.of(MockTurn.status(503), MockTurn.status(503),
                    MockTurn.status(503), MockTurn.status(503), MockTurn.content(complete("too late"))));
            AgentRun run = agent(provider).build().run(TASK);
            List<LoopEvent> events = loopEvents(events(run));
            assertThat(run.await().reason()).isEqualTo(LoopEndReason.ERROR);
            assertThat(run.await().result()).contains("HTTP 503", "gave up after 4 attempts");
            assertThat(events.stream().filter(LoopEvent.Retry.class::isInstance).map(e -> ((LoopEvent.Retry) e).attempt()))
                    .containsExactly(2, 3, 4);
        }

        @Test
        void an_exception_inside_the_loop_ends_it_as_an_error() {
            Provider broken = new Provider() {
                @Override
                public String name() {
                    return "broken";
                }

                @Override
                public ChatStream stream(ChatRequest request) {
                    throw new IllegalStateException("wires crossed");
                }
            };
            AgentRun run = agent(broken).build().run(TASK);
            List<AgentEvent> events = events(run);
            assertThat(run.await()).isEqualTo(new AgentResult(LoopEndReason.ERROR,
                    "internal error: IllegalStateException: wires crossed"));
            assertThat(types(events)).containsExactly("loop_start", "iteration_start", "loop_end");
        }
    }

    @Nested
    class Tools {

        @Test
        void a_tool_that_throws_is_an_error_for_the_model_and_the_loop_goes_on() {
            Tool boom = TypedTool.of("boom", "Fails", NoArguments.class, (context, arguments) -> {
                throw new IllegalStateException("kaput");
            });
            ScriptedProvider provider = provider(call("boom", "{}"), complete("recovered"));
            AgentRun run = agent(provider, boom).build().run(TASK);
            List<LoopEvent> events = loopEvents(events(run));
            assertThat(run.await()).isEqualTo(new AgentResult(LoopEndReason.TASK_COMPLETION, "recovered"));
            assertThat(events).contains(new LoopEvent.ToolResultError("local", "boom", "tool boom failed: IllegalStateException: kaput",
                    "call_1_1"));
            assertThat(provider.requests().get(1).messages()).anySatisfy(m ->
                    assertThat(m.content()).contains("<boom>\n<error>\ntool boom failed: IllegalStateException: kaput"));
        }

        @Test
        void bad_arguments_and_undecodable_calls_are_errors_without_crashing() {
            ScriptedProvider provider = provider(call("read_file", "{\"file\": 3}"), "<tool>{not json</tool>",
                    complete("fine"));
            AgentRun run = agent(provider, READ_FILE).build().run(TASK);
            List<LoopEvent> events = loopEvents(events(run));
            assertThat(run.await().reason()).isEqualTo(LoopEndReason.TASK_COMPLETION);
            List<LoopEvent.ToolResultError> errors = events.stream()
                    .filter(LoopEvent.ToolResultError.class::isInstance).map(LoopEvent.ToolResultError.class::cast).toList();
            assertThat(errors).hasSize(2);
            assertThat(errors.get(0).toolName()).isEqualTo("read_file");
            assertThat(errors.get(0).error()).contains("path");
            assertThat(errors.get(1).serverName()).isNull();
            assertThat(errors.get(1).toolName()).isNull();
            // a call that could not be read has no server or tool, but its place in the answer gives it an id
            assertThat(EventJson.toJson(errors.get(1)).propertyNames()).containsExactly("type", "error", "call_id");
            assertThat(errors.get(1).callId()).isEqualTo("call_2_1");
        }

        @Test
        void several_calls_run_in_order_and_go_back_as_one_observation() {
            String both = read("a") + "\n" + read("b");
            ScriptedProvider provider = provider(both, complete("done"));
            DefaultAgent agent = agent(provider, READ_FILE).build();
            AgentRun run = agent.run(TASK);
            List<LoopEvent> events = loopEvents(events(run));
            assertThat(events.stream().filter(LoopEvent.ToolResultEvent.class::isInstance)
                    .map(e -> ((LoopEvent.ToolResultEvent) e).result()))
                    .containsExactly("contents of a", "contents of b", "done");
            assertThat(provider.requests().get(1).messages()).isEqualTo(prompts(agent).build(
                    List.of(Message.user(TASK), Message.assistant(both)),
                    Message.user("<observation>\n<read_file>\ncontents of a\n</read_file>\n"
                            + "<read_file>\ncontents of b\n</read_file>\n</observation>"),
                    Plan.empty(), Map.of()));
        }

        @Test
        void update_plan_emits_plan_update_and_the_plan_is_in_every_later_prompt() {
            String plan = call("update_plan", "{\"steps\": [{\"description\": \"Read a.txt\", \"status\": \"completed\"},"
                    + " {\"description\": \"Write the answer\", \"status\": \"in_progress\"}]}");
            ScriptedProvider provider = provider(plan, read("a.txt"), complete("done"));
            DefaultAgent agent = agent(provider, READ_FILE).build();
            Session session = new Session();   // the run's conversation, to look at afterwards
            AgentRun run = agent.run(TASK, session);
            List<LoopEvent> events = loopEvents(events(run));

            List<PlanStep> steps = List.of(new PlanStep("Read a.txt", PlanStatus.COMPLETED),
                    new PlanStep("Write the answer", PlanStatus.IN_PROGRESS));
            assertThat(events).containsSubsequence(new LoopEvent.IterationStart(1), new LoopEvent.PlanUpdate(steps),
                    new LoopEvent.IterationStart(2));
            int toolResult = events.indexOf(events.stream().filter(LoopEvent.ToolResultEvent.class::isInstance)
                    .findFirst().orElseThrow());
            assertThat(events.get(toolResult + 1)).isEqualTo(new LoopEvent.PlanUpdate(steps));
            assertThat(EventJson.toJson(new LoopEvent.PlanUpdate(steps)).toString()).isEqualTo(
                    "{\"type\":\"plan_update\",\"steps\":[{\"description\":\"Read a.txt\",\"status\":\"completed\"},"
                            + "{\"description\":\"Write the answer\",\"status\":\"in_progress\"}]}");
            assertThat(session.plan()).isEqualTo(new Plan(steps));

            // the plan goes into every later prompt; the observation of update_plan is the plan as JSON
            PromptBuilder prompts = prompts(agent);
            Plan current = new Plan(steps);
            Message planObservation = Message.user(observation("update_plan",
                    "{\"steps\":[{\"description\":\"Read a.txt\",\"status\":\"completed\"},"
                            + "{\"description\":\"Write the answer\",\"status\":\"in_progress\"}]}"));
            List<ChatRequest> requests = provider.requests();
            assertThat(requests).hasSize(3);
            assertThat(requests.get(0).messages())
                    .isEqualTo(prompts.build(List.of(), Message.user(TASK), Plan.empty(), Map.of()));
            assertThat(requests.get(1).messages()).isEqualTo(prompts.build(
                    List.of(Message.user(TASK), Message.assistant(plan)), planObservation, current, Map.of()));
            assertThat(requests.get(2).messages()).isEqualTo(prompts.build(
                    List.of(Message.user(TASK), Message.assistant(plan), planObservation, Message.assistant(read("a.txt"))),
                    Message.user(observation("read_file", "contents of a.txt")), current, Map.of()));
            assertThat(requests.get(0).messages()).noneMatch(m -> m.content().contains("Write the answer"));
            assertThat(requests.get(1).messages().getLast().content()).contains("Write the answer");
            assertThat(requests.get(2).messages().getLast().content()).contains("Write the answer");
        }
    }

    @Nested
    class Retries {

        @Test
        void a_server_error_is_retried_and_the_run_goes_on() {
            ScriptedProvider provider = new ScriptedProvider(MockScript.of(
                    MockTurn.status(503).errorMessage("overloaded"), MockTurn.content(complete("fine"))));
            AgentRun run = agent(provider).build().run(TASK);
            List<AgentEvent> events = events(run);
            assertThat(run.await()).isEqualTo(new AgentResult(LoopEndReason.TASK_COMPLETION, "fine"));
            assertThat(types(events)).containsExactly("loop_start", "iteration_start", "retry",
                    "tool_call_start", "tool_call_name", "tool_call_argument", "tool_call_end", "tool_result", "loop_end");
            assertThat(loopEvents(events)).contains(new LoopEvent.Retry(2, "HTTP 503: overloaded", 0));
            assertThat(provider.requests()).hasSize(2);
            assertThat(provider.requests().get(1)).isEqualTo(provider.requests().get(0));
        }

        @Test
        void a_broken_stream_is_retried_and_nothing_of_it_reaches_memory_or_the_model() {
            String partial = "Let me look at the file first, then";
            ScriptedProvider provider = new ScriptedProvider(MockScript.of(
                    MockTurn.content(partial + " " + read("a.txt")).cutAfter(20),
                    MockTurn.content("Reading.\n" + read("a.txt")),
                    MockTurn.content(complete("a.txt holds its contents"))));
            DefaultAgent agent = agent(provider, READ_FILE).build();
            Session session = new Session();   // the run's conversation, to look at afterwards
            AgentRun run = agent.run(TASK, session);
            List<AgentEvent> events = events(run);

            assertThat(run.await().reason()).isEqualTo(LoopEndReason.TASK_COMPLETION);
            // the broken attempt's events, then retry, then the new attempt's from its start
            assertThat(types(events)).containsExactly("loop_start", "iteration_start",
                    "message_start", "retry",
                    "message_start", "message_end", "tool_call_start", "tool_call_name", "tool_call_argument", "tool_call_end",
                    "tool_result", "iteration_start", "tool_call_start", "tool_call_name", "tool_call_argument", "tool_call_end",
                    "tool_result", "loop_end");
            LoopEvent.Retry retry = (LoopEvent.Retry) events.stream().filter(LoopEvent.Retry.class::isInstance)
                    .findFirst().orElseThrow();
            assertThat(retry.attempt()).isEqualTo(2);
            assertThat(retry.reason()).contains("broke off");

            List<ChatRequest> requests = provider.requests();
            assertThat(requests).hasSize(3);
            assertThat(requests.get(1)).isEqualTo(requests.get(0));
            assertThat(requests.get(2).messages()).isEqualTo(prompts(agent).build(
                    List.of(Message.user(TASK), Message.assistant("Reading.\n" + read("a.txt"))),
                    Message.user(observation("read_file", "contents of a.txt")), Plan.empty(), Map.of()));
            assertThat(requests.get(2).messages()).noneMatch(m -> m.content().contains("Let me look"));
            assertThat(session.memory().messages()).noneMatch(m -> m.content().contains("Let me look"));
        }
    }

    @Nested
    class Cancellation {

        @Test
        void cancelling_while_a_tool_runs_interrupts_it_and_ends_the_run_cancelled() throws Exception {
            CountDownLatch entered = new CountDownLatch(1);
            CountDownLatch never = new CountDownLatch(1);
            AtomicBoolean interrupted = new AtomicBoolean();
            AtomicBoolean sawCancelled = new AtomicBoolean();
            Tool wait = TypedTool.of("wait", "Waits forever", NoArguments.class, (context, arguments) -> {
                entered.countDown();
                try {
                    never.await();
                } catch (InterruptedException e) {
                    interrupted.set(true);
                    sawCancelled.set(context.isCancelled());
                    throw e;
                }
                return ToolResult.of("woke up");
            });
            ScriptedProvider provider = provider(call("wait", "{}"), complete("never"));
            DefaultAgent agent = agent(provider, wait).build();
            Session session = new Session();   // the run's conversation, to look at afterwards
            AgentRun run = agent.run(TASK, session);
            assertThat(entered.await(30, TimeUnit.SECONDS)).isTrue();
            assertThatThrownBy(() -> agent.run("another", session)).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("still running");

            run.cancel();

            assertThat(run.await()).isEqualTo(new AgentResult(LoopEndReason.CANCELLED, "cancelled"));
            assertThat(interrupted).isTrue();
            assertThat(sawCancelled).isTrue();
            assertThat(types(events(run))).containsExactly("loop_start", "iteration_start",
                    "tool_call_start", "tool_call_name", "tool_call_end", "loop_end");
            assertThat(provider.requests()).hasSize(1);
            // an iteration cancelled while its tools ran leaves no trace in memory
            assertThat(session.memory().messages()).isEmpty();
            run.cancel(); // after the end: nothing happens
            assertThat(run.await().reason()).isEqualTo(LoopEndReason.CANCELLED);
        }

        @Test
        void cancelling_while_the_model_streams_aborts_the_call() throws Exception {
            CountDownLatch firstText = new CountDownLatch(1);
            ScriptedProvider provider = new ScriptedProvider(MockScript.of(
                    MockTurn.content("Hello, this takes a while").chunkSize(1).delayMs(600_000)));
            DefaultAgent agent = agent(provider).listener(event -> {
                if (event instanceof StreamEvent.MessageContent) {
                    firstText.countDown();
                }
            }).build();
            Session session = new Session();   // the run's conversation, to look at afterwards
            AgentRun run = agent.run(TASK, session);
            assertThat(firstText.await(30, TimeUnit.SECONDS)).isTrue();

            run.cancel();

            assertThat(run.await().reason()).isEqualTo(LoopEndReason.CANCELLED);
            assertThat(loopEvents(events(run))).last().isEqualTo(new LoopEvent.LoopEnd(LoopEndReason.CANCELLED, "cancelled"));
            assertThat(session.memory().messages()).isEmpty();
        }
    }

    @Nested
    class PlainChat {

        @Test
        void without_a_registry_each_run_is_one_model_call_whose_text_is_the_result() {
            String answer = "<think>The user greets me.</think>Hello there!";
            ScriptedProvider provider = provider(answer, "Still here.");
            // A builder memory is the agent's conversation: run(task) continues it.
            DefaultAgent agent = DefaultAgent.builder().provider(provider).model("mock").instructions(INSTRUCTIONS)
                    .retryPolicy(NO_WAIT).memory(dev.bellows.memory.ConversationMemory.builder().build()).build();

            AgentRun run = agent.run("Hi");
            List<AgentEvent> events = events(run);
            assertThat(run.await()).isEqualTo(new AgentResult(LoopEndReason.CONVERSE, "Hello there!"));
            assertThat(types(events)).containsExactly("loop_start", "iteration_start",
                    "thinking_start", "thinking_end", "message_start", "message_end", "loop_end");
            assertThat(provider.requests().get(0).messages()).containsExactly(
                    Message.system(INSTRUCTIONS), Message.user("Hi"));

            assertThat(agent.run("Are you there?").await())
                    .isEqualTo(new AgentResult(LoopEndReason.CONVERSE, "Still here."));
            assertThat(provider.requests().get(1).messages()).containsExactly(
                    Message.system(INSTRUCTIONS), Message.user("Hi"), Message.assistant(answer),
                    Message.user("Are you there?"));
            assertThat(agent.toolRegistry()).isEmpty();
        }

        @Test
        void without_a_builder_memory_each_run_has_a_fresh_conversation() {
            ScriptedProvider provider = provider("Hello there!", "Hi again!");
            DefaultAgent agent = DefaultAgent.builder().provider(provider).model("mock").build();
            assertThat(agent.run("Hi").await().result()).isEqualTo("Hello there!");
            assertThat(agent.run("Hi").await().result()).isEqualTo("Hi again!");
            assertThat(provider.requests().get(1).messages()).containsExactly(Message.user("Hi"));
            assertThat(agent.memory().messages()).isEmpty();
        }

        @Test
        void without_instructions_there_is_no_system_message() {
            ScriptedProvider provider = provider("Hi!");
            DefaultAgent agent = DefaultAgent.builder().provider(provider).model("mock").build();
            assertThat(agent.run("Hello").await().result()).isEqualTo("Hi!");
            assertThat(provider.requests().get(0).messages()).containsExactly(Message.user("Hello"));
        }
    }

    @Nested
    class Consuming {

        @Test
        void listeners_iterators_streams_and_publishers_all_get_every_event_in_order() throws Exception {
            List<AgentEvent> heard = new CopyOnWriteArrayList<>();
            ScriptedProvider provider = provider("<thinking>hmm</thinking>" + read("a"), complete("done"));
            DefaultAgent agent = agent(provider, READ_FILE).listener(heard::add)
                    .listener(event -> {
                        throw new IllegalStateException("a broken listener changes nothing");
                    })
                    .build();
            AgentRun run = agent.run(TASK);

            CompletableFuture<List<AgentEvent>> published = subscribeOneByOne(run);
            List<AgentEvent> iterated = new ArrayList<>();
            run.forEach(iterated::add);
            List<AgentEvent> streamed = run.events().toList();
            AgentResult result = run.await();

            assertThat(result.reason()).isEqualTo(LoopEndReason.TASK_COMPLETION);
            assertThat(streamed).isEqualTo(iterated).isEqualTo(heard);
            assertThat(published.get(30, TimeUnit.SECONDS)).isEqualTo(streamed);
            assertThat(streamed.getFirst()).isEqualTo(new LoopEvent.LoopStart(TASK));
            assertThat(streamed.getLast()).isEqualTo(new LoopEvent.LoopEnd(LoopEndReason.TASK_COMPLETION, "done"));
            assertThat(streamed.stream().filter(e -> e instanceof LoopEvent.LoopStart || e instanceof LoopEvent.LoopEnd))
                    .hasSize(2);
            // a late subscriber still gets everything
            assertThat(subscribeOneByOne(run).get(30, TimeUnit.SECONDS)).isEqualTo(streamed);
            assertThat(run.await(Duration.ofSeconds(1))).contains(result);
        }

        @Test
        void a_bad_request_is_an_error_for_that_subscriber() throws Exception {
            AgentRun run = agent(provider(complete("x"))).build().run(TASK);
            CompletableFuture<Throwable> error = new CompletableFuture<>();
            run.publisher().subscribe(new Flow.Subscriber<>() {
                @Override
                public void onSubscribe(Flow.Subscription subscription) {
                    subscription.request(0);
                }

                @Override
                public void onNext(AgentEvent item) {
                    error.completeExceptionally(new AssertionError("no event was requested"));
                }

                @Override
                public void onError(Throwable throwable) {
                    error.complete(throwable);
                }

                @Override
                public void onComplete() {
                    error.completeExceptionally(new AssertionError("completed"));
                }
            });
            assertThat(error.get(30, TimeUnit.SECONDS)).isInstanceOf(IllegalArgumentException.class);
            assertThat(run.await().reason()).isEqualTo(LoopEndReason.TASK_COMPLETION);
        }

        @Test
        void the_jsonl_form_of_a_run_has_no_chunk_and_no_complete() {
            AgentRun run = agent(provider("Done.\n" + complete("ok"))).build().run(TASK);
            List<String> lines = run.events().map(e -> EventJson.toJson(e, false).toString()).toList();
            assertThat(lines).allSatisfy(line -> assertThat(line).doesNotContain("\"chunk\""));
            assertThat(lines.getFirst()).isEqualTo("{\"type\":\"loop_start\",\"task\":\"What does a.txt say?\"}");
            assertThat(lines).contains("{\"type\":\"iteration_start\",\"iteration\":1}",
                    "{\"type\":\"message_start\"}",
                    "{\"type\":\"tool_result\",\"server_name\":\"local\",\"tool_name\":\"task_completion\","
                            + "\"arguments\":{\"result\":\"ok\"},\"result\":\"ok\",\"call_id\":\"call_1_1\"}");
            assertThat(lines.getLast()).isEqualTo("{\"type\":\"loop_end\",\"reason\":\"task_completion\",\"result\":\"ok\"}");
        }

        private static CompletableFuture<List<AgentEvent>> subscribeOneByOne(AgentRun run) {
            CompletableFuture<List<AgentEvent>> done = new CompletableFuture<>();
            List<AgentEvent> received = new ArrayList<>();
            run.publisher().subscribe(new Flow.Subscriber<>() {
                private Flow.Subscription subscription;

                @Override
                public void onSubscribe(Flow.Subscription subscription) {
                    this.subscription = subscription;
                    subscription.request(1);
                }

                @Override
                public void onNext(AgentEvent item) {
                    received.add(item);
                    subscription.request(1);
                }

                @Override
                public void onError(Throwable throwable) {
                    done.completeExceptionally(throwable);
                }

                @Override
                public void onComplete() {
                    done.complete(List.copyOf(received));
                }
            });
            return done;
        }
    }

    @Nested
    class Configuration {

        @Test
        void provider_and_model_are_required() {
            assertThatThrownBy(() -> DefaultAgent.builder().model("m").build())
                    .isInstanceOf(IllegalStateException.class).hasMessageContaining("provider");
            assertThatThrownBy(() -> DefaultAgent.builder().provider(provider("x")).build())
                    .isInstanceOf(IllegalStateException.class).hasMessageContaining("model");
            assertThatThrownBy(() -> DefaultAgent.builder().maxIterations(0))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("maxIterations");
            assertThatThrownBy(() -> DefaultAgent.builder().maxConsecutiveErrors(0))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("maxConsecutiveErrors");
        }

        @Test
        void the_built_in_tools_are_offered_when_missing_and_the_registry_given_is_left_as_it_was() {
            ToolRegistry registry = new ToolRegistry().register(READ_FILE);
            DefaultAgent agent = DefaultAgent.builder().provider(provider("x")).model("m").toolRegistry(registry).build();
            assertThat(agent.toolRegistry().orElseThrow().tools().stream().map(t -> t.tool().name()))
                    .containsExactly("read_file", "task_completion", "ask_question", "converse", "update_plan");
            // the caller's registry is not changed: building a second agent on it sees the same
            assertThat(registry.tools()).hasSize(1);
            DefaultAgent.builder().provider(provider("x")).model("m").toolRegistry(registry).build();
            assertThat(registry.tools()).hasSize(1);
        }

        @Test
        void a_rejecting_executor_ends_the_run_at_once() {
            DefaultAgent agent = agent(provider("x")).executor(task -> {
                throw new java.util.concurrent.RejectedExecutionException("full");
            }).build();
            AgentRun run = agent.run(TASK);
            assertThat(run.isDone()).isTrue();
            assertThat(run.await().reason()).isEqualTo(LoopEndReason.ERROR);
            assertThat(types(run.events().toList())).containsExactly("loop_start", "loop_end");
        }
    }
}
