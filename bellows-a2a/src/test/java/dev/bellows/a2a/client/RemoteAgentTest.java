package dev.bellows.a2a.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.bellows.a2a.TaskState;
import dev.bellows.agent.AgentResult;
import dev.bellows.agent.AgentRun;
import dev.bellows.agent.Decision;
import dev.bellows.agent.Session;
import dev.bellows.agent.WaitingCall;
import dev.bellows.event.AgentEvent;
import dev.bellows.event.EventJson;
import dev.bellows.tool.LoopEndReason;
import dev.bellows.event.StreamEvent;
import dev.bellows.testkit.A2aJs;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** A remote A2A agent as a Bellows {@code Agent}, against the official @a2a-js/sdk test agent. */
class RemoteAgentTest {

    private static A2aJs.Server server;

    @BeforeAll
    static void start() throws Exception {
        server = A2aJs.shared();
    }

    private static RemoteAgent agent(String url) {
        return RemoteAgent.of("echo", () -> A2aClient.builder(url).connect(), List.of());
    }

    private static List<String> types(AgentRun run) {
        List<String> types = new ArrayList<>();
        for (AgentEvent event : run) {
            types.add(event.type() + (event instanceof StreamEvent.MessageContent m ? ":" + m.content()
                    : event instanceof StreamEvent.ThinkingContent t ? ":" + t.content() : ""));
        }
        return types;
    }

    @Test
    void aRunReportsTheRemoteTaskAsALocalRunDoes() {
        try (RemoteAgent echo = agent(server.url())) {
            AgentRun run = echo.run("hello there");
            assertThat(types(run)).containsExactly("loop_start", "iteration_start", "thinking_start",
                    "thinking_content:working on it", "thinking_end", "message_start", "message_content:Echo: ",
                    "message_content:hello there", "message_content:!", "message_end", "loop_end");
            assertThat(run.await()).isEqualTo(new AgentResult(LoopEndReason.TASK_COMPLETION, "Echo: hello there!"));
            AgentEvent start = run.events().filter(e -> e instanceof StreamEvent.ThinkingStart).findFirst().orElseThrow();
            assertThat(EventJson.toJson(start, false).at("/attributes/state").asString()).isEqualTo("working");
            assertThat(EventJson.toJson(start, false).at("/attributes/task").asString()).isNotBlank();
        }
    }

    @Test
    void aFailedTaskEndsTheRunWithAnErrorSayingWhy() {
        try (RemoteAgent echo = agent(server.url())) {
            AgentResult result = echo.run("fail now").await();
            assertThat(result).isEqualTo(new AgentResult(LoopEndReason.ERROR,
                    "the remote agent echo's task ended failed: the agent failed on purpose"));
        }
    }

    @Test
    void anAgentThatDoesNotStreamIsFollowedAllTheSame() throws Exception {
        try (A2aJs.Server plain = A2aJs.startServer(Map.of("STREAMING", "false")); RemoteAgent echo = agent(plain.url())) {
            AgentRun run = echo.run("not streamed");
            assertThat(run.await()).isEqualTo(new AgentResult(LoopEndReason.TASK_COMPLETION, "Echo: not streamed!"));
            assertThat(types(run)).contains("message_content:Echo: not streamed!");
        }
    }

    @Test
    void aSessionIsOneConversationAndItsNextRunAnswersAQuestion() {
        try (RemoteAgent echo = agent(server.url())) {
            Session session = new Session();
            AgentResult asked = echo.run("ask me about the weather", session).await();
            assertThat(asked).isEqualTo(new AgentResult(LoopEndReason.ASK_QUESTION, "Which city?"));
            RemoteWait wait = echo.pendingInput(session).orElseThrow();
            assertThat(wait.question()).isEqualTo("Which city?");
            assertThat(echo.pendingInput(new Session())).isEmpty();
            AgentResult answered = echo.run("Oslo", session).await();
            assertThat(answered).isEqualTo(new AgentResult(LoopEndReason.TASK_COMPLETION, "Weather in Oslo: sunny"));
            assertThat(echo.pendingInput(session)).isEmpty();
        }
    }

    @Test
    void anInterruptingAgentWaitsWithOneCallThatAnyAgentOfTheNameResumes() throws Exception {
        WaitingCall waiting;
        try (RemoteAgent echo = agent(server.url()).interrupting()) {
            AgentResult asked = echo.run("ask me about the weather").await();
            assertThat(asked.reason()).isEqualTo(LoopEndReason.INTERRUPTED);
            assertThat(asked.result()).isEqualTo("Which city?");
            waiting = asked.waiting().getFirst();
            assertThat(waiting.id()).isEqualTo("input");
            assertThat(waiting.kind()).isEqualTo(WaitingCall.Kind.EXTERNAL);
            assertThat(waiting.serverName()).isEqualTo("a2a");
            assertThat(waiting.toolName()).isEqualTo("echo");
            assertThat(waiting.arguments().get("question").asString()).isEqualTo("Which city?");
        }
        // another agent of the name (another process, say) carries the task on from the call alone
        try (RemoteAgent again = agent(server.url())) {
            assertThatThrownBy(() -> again.resume(List.of(waiting), List.of(Decision.approve("input"))))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("answer it");
            AgentResult answered = again.resume(List.of(waiting), List.of(Decision.respond("input", "Bergen"))).await();
            assertThat(answered).isEqualTo(new AgentResult(LoopEndReason.TASK_COMPLETION, "Weather in Bergen: sunny"));
        }
    }

    @Test
    void aDeniedQuestionCancelsTheRemoteTask() throws Exception {
        try (RemoteAgent echo = agent(server.url()).interrupting()) {
            WaitingCall waiting = echo.run("ask me").await().waiting().getFirst();
            AgentResult denied = echo.resume(List.of(waiting), List.of(Decision.deny("input", "not now"))).await();
            assertThat(denied.reason()).isEqualTo(LoopEndReason.ERROR);
            assertThat(denied.result()).contains("was declined: not now");
            try (A2aClient client = A2aClient.builder(server.url()).connect()) {
                assertThat(client.getTask(waiting.arguments().get("task_id").asString()).status().state())
                        .isEqualTo(TaskState.CANCELED);
            }
        }
    }

    @Test
    void cancellingTheRunCancelsTheRemoteTaskBeforeTheRunEnds() throws Exception {
        try (RemoteAgent echo = agent(server.url())) {
            AgentRun run = echo.run("hold on");
            String task = null;
            for (AgentEvent event : run) {
                if (event instanceof StreamEvent.ThinkingStart start) {
                    task = start.attributes().get("task");
                    run.cancel();
                }
            }
            AgentResult result = run.await();
            assertThat(result.reason()).isEqualTo(LoopEndReason.CANCELLED);
            assertThat(result.result()).contains(task);
            try (A2aClient client = A2aClient.builder(server.url()).connect()) {
                assertThat(client.getTask(task).status().state()).isEqualTo(TaskState.CANCELED);
            }
        }
    }

    @Test
    void anAgentThatCannotBeReachedEndsTheRunWithAnErrorAndIsTriedAgain() {
        try (RemoteAgent nobody = agent("http://127.0.0.1:9")) {
            AgentResult result = nobody.run("hello").await();
            assertThat(result.reason()).isEqualTo(LoopEndReason.ERROR);
            assertThat(result.result()).startsWith("the remote agent echo could not be used: ");
            assertThat(nobody.run("hello").await().reason()).isEqualTo(LoopEndReason.ERROR);
        }
    }
}
