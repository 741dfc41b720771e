package dev.bellows.a2a.client;

import dev.bellows.json.internal.Jackson;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import tools.jackson.databind.ObjectMapper;
import dev.bellows.a2a.TaskState;
import dev.bellows.agent.AgentResult;
import dev.bellows.agent.Decision;
import dev.bellows.agent.DefaultAgent;
import dev.bellows.agent.Session;
import dev.bellows.agent.WaitingCall;
import dev.bellows.tool.LoopEndReason;
import dev.bellows.testkit.A2aJs;
import dev.bellows.testkit.MockScript;
import dev.bellows.testkit.MockTurn;
import dev.bellows.testkit.ScriptedProvider;
import dev.bellows.tool.ToolContext;
import dev.bellows.tool.ToolException;
import dev.bellows.tool.ToolRegistry;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A remote @a2a-js/sdk agent as a Bellows tool: its answer is the call's result, its events reach
 * the listener as they arrive, its question makes the run wait and the person's answer carries
 * the remote task and the run on, and a cancelled call cancels the remote task.
 */
class A2aAgentToolTest {

    private static final ObjectMapper JSON = Jackson.JSON;
    private static A2aJs.Server server;
    private static A2aClient client;

    @BeforeAll
    static void start() throws Exception {
        server = A2aJs.shared();
        client = A2aClient.builder(server.url()).connect();
    }

    @AfterAll
    static void stop() {
        if (client != null) {
            client.close();
        }
    }

    private static String call(String tool, String task) {
        return "<tool>{\"tool_name\": \"" + tool + "\", \"arguments\": {\"task\": \"" + task + "\"}}</tool>";
    }

    private static String complete(String result) {
        return "<tool>{\"tool_name\": \"task_completion\", \"arguments\": {\"result\": \"" + result + "\"}}</tool>";
    }

    private static ScriptedProvider provider(String... contents) {
        MockScript.Builder script = MockScript.builder();
        for (String content : contents) {
            script.turn(MockTurn.content(content));
        }
        return new ScriptedProvider(script.build());
    }

    private static DefaultAgent agent(ScriptedProvider provider, A2aAgentTool tool) {
        ToolRegistry registry = new ToolRegistry();
        registry.register(tool);
        return DefaultAgent.builder().provider(provider).model("mock").instructions("Delegate.").toolRegistry(registry)
                .toolInterceptor(tool.waitsForInput()).build();
    }

    @Test
    void theRemoteAnswerIsTheResultAndItsEventsArriveOnTheWay() {
        List<String> seen = new CopyOnWriteArrayList<>();
        A2aAgentTool tool = A2aAgentTool.of("echo", client, (agent, event) -> seen.add(agent + " " + A2aClientInteropTest.describe(event)));
        assertThat(tool.description()).contains("js-test-agent", "Echo (Echoes the text back.)");
        ScriptedProvider provider = provider(call("echo", "hello"), complete("done"));
        AgentResult result = agent(provider, tool).run("say hello through echo").await();
        assertThat(result.reason()).isEqualTo(LoopEndReason.TASK_COMPLETION);
        assertThat(provider.requests().get(1).messages().getLast().content()).contains("Echo: hello!");
        assertThat(seen).containsExactly("echo task:SUBMITTED", "echo WORKING", "echo artifact:Echo: ", "echo artifact:hello",
                "echo artifact:!", "echo COMPLETED");
    }

    @Test
    void aRemoteQuestionMakesTheRunWaitAndTheAnswerCarriesBothOn() throws Exception {
        A2aAgentTool tool = A2aAgentTool.of("weather", client, A2aAgentTool.Listener.NONE);
        ScriptedProvider provider = provider(call("weather", "ask me about the weather"), complete("done"));
        DefaultAgent agent = agent(provider, tool);
        Session session = new Session();
        AgentResult stopped = agent.run("the weather, please", session).await();
        assertThat(stopped.reason()).isEqualTo(LoopEndReason.INTERRUPTED);
        WaitingCall waiting = stopped.waiting().getFirst();
        assertThat(waiting.kind()).isEqualTo(WaitingCall.Kind.EXTERNAL);
        RemoteWait wait = tool.pendingInput(waiting.id()).orElseThrow();
        assertThat(wait.question()).isEqualTo("Which city?");
        assertThat(client.getTask(wait.taskId()).status().state()).isEqualTo(TaskState.INPUT_REQUIRED);

        String answered = tool.answer(wait, "Oslo", ToolContext.of("local", "weather"));
        assertThat(answered).isEqualTo("Weather in Oslo: sunny");
        AgentResult resumed = agent.resume(session, List.of(Decision.respond(waiting.id(), answered))).await();
        assertThat(resumed.reason()).isEqualTo(LoopEndReason.TASK_COMPLETION);
        assertThat(provider.requests().get(1).messages().getLast().content()).contains("Weather in Oslo: sunny");
    }

    @Test
    void aFailedRemoteTaskIsAnErrorTheModelReads() {
        A2aAgentTool tool = A2aAgentTool.of("echo", client, A2aAgentTool.Listener.NONE);
        assertThatThrownBy(() -> tool.call(ToolContext.of("local", "echo"), JSON.readTree("{\"task\": \"fail\"}")))
                .isInstanceOf(ToolException.class).isNotInstanceOf(RemoteInputRequired.class)
                .hasMessage("the remote agent echo's task ended TASK_STATE_FAILED: the agent failed on purpose");
        assertThatThrownBy(() -> tool.call(ToolContext.of("local", "echo"), JSON.readTree("{\"task\": \" \"}")))
                .isInstanceOf(ToolException.class).hasMessageContaining("non-empty string");
    }

    @Test
    void cancellingTheCallCancelsTheRemoteTask() throws Exception {
        AtomicReference<String> taskId = new AtomicReference<>();
        Thread caller = Thread.currentThread();
        A2aAgentTool tool = A2aAgentTool.of("holder", client, (agent, event) -> {
            if (event.task() != null) {
                taskId.set(event.task().id());
            }
            if (event.statusUpdate() != null && event.statusUpdate().status().state() == TaskState.WORKING) {
                caller.interrupt();     // as a cancelled run interrupts its tool calls
            }
        });
        assertThatThrownBy(() -> tool.call(ToolContext.of("local", "holder"), JSON.readTree("{\"task\": \"hold\"}")))
                .isInstanceOf(ToolException.class).hasMessageContaining("cancelled");
        assertThat(Thread.interrupted()).as("the interrupt is kept for the run").isTrue();
        assertThat(client.getTask(taskId.get()).status().state()).isEqualTo(TaskState.CANCELED);
    }

    @Test
    void aDirectMessageIsTheResult() throws Exception {
        A2aAgentTool tool = A2aAgentTool.of("echo", client, A2aAgentTool.Listener.NONE);
        assertThat(tool.call(ToolContext.of("local", "echo"), JSON.readTree("{\"task\": \"direct\"}")).output())
                .isEqualTo("Direct: direct");
    }

    @Test
    void anAgentThatDoesNotStreamIsSentToAndWaitedFor() throws Exception {
        try (A2aJs.Server plain = A2aJs.startServer(Map.of("STREAMING", "false"));
             A2aClient blocking = A2aClient.builder(plain.url()).connect()) {
            assertThat(blocking.streams()).isFalse();
            List<String> seen = new CopyOnWriteArrayList<>();
            A2aAgentTool tool = A2aAgentTool.of("echo", blocking, (agent, event) -> seen.add(A2aClientInteropTest.describe(event)));
            assertThat(tool.call(ToolContext.of("local", "echo"), JSON.readTree("{\"task\": \"hi\"}")).output())
                    .isEqualTo("Echo: hi!");
            assertThat(seen).containsExactly("task:COMPLETED");
            assertThatThrownBy(() -> tool.call(ToolContext.of("local", "echo"), JSON.readTree("{\"task\": \"ask\"}")))
                    .isInstanceOfSatisfying(RemoteInputRequired.class,
                            e -> assertThat(e.waiting().question()).isEqualTo("Which city?"));
        }
    }
}
