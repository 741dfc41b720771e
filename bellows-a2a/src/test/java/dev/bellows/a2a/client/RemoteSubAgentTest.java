package dev.bellows.a2a.client;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bellows.a2a.Message;
import dev.bellows.a2a.Task;
import dev.bellows.a2a.TaskState;
import dev.bellows.agent.AgentResult;
import dev.bellows.agent.AgentTool;
import dev.bellows.agent.Decision;
import dev.bellows.agent.DefaultAgent;
import dev.bellows.agent.Resumption;
import dev.bellows.agent.Session;
import dev.bellows.agent.WaitingCall;
import dev.bellows.testkit.A2aJs;
import dev.bellows.testkit.MockScript;
import dev.bellows.testkit.MockTurn;
import dev.bellows.testkit.ScriptedProvider;
import dev.bellows.tool.LoopEndReason;
import dev.bellows.tool.ToolRegistry;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * A remote agent that asks for input, run as a sub-agent ({@link AgentTool}): its question makes
 * the whole calling run wait, and the answer carries the remote task on, exactly once. Against
 * the official @a2a-js/sdk test agent.
 */
class RemoteSubAgentTest {

    private static A2aJs.Server server;

    @BeforeAll
    static void start() throws Exception {
        server = A2aJs.shared();
    }

    private static RemoteAgent weather() {
        return RemoteAgent.of("weather", () -> A2aClient.builder(server.url()).connect(), List.of()).interrupting();
    }

    private static DefaultAgent lead(ScriptedProvider model, RemoteAgent weather) {
        return DefaultAgent.builder().provider(model).model("mock")
                .toolRegistry(new ToolRegistry().register(AgentTool.of("weather", "Knows the weather", weather)))
                .build();
    }

    private static ScriptedProvider model(String then) {
        return new ScriptedProvider(MockScript.of(
                MockTurn.content("<tool>{\"tool_name\": \"weather\", \"arguments\": {\"task\": \"ask me about the weather\"}}</tool>"),
                MockTurn.content("<tool>{\"tool_name\": \"task_completion\", \"arguments\": {\"result\": \"" + then + "\"}}</tool>")));
    }

    /** The user messages of the remote task's history whose text is {@code text}. */
    private static long times(String taskId, String text) {
        try (A2aClient client = A2aClient.builder(server.url()).connect()) {
            Task task = client.getTask(taskId);
            return task.history().stream().filter(m -> A2aAgentTool.text(m.parts()).equals(text)).count();
        }
    }

    private static TaskState state(String taskId) {
        try (A2aClient client = A2aClient.builder(server.url()).connect()) {
            return client.getTask(taskId).status().state();
        }
    }

    @Test
    void aRemoteQuestionMakesTheCallingRunWaitAndItsAnswerGoesToTheSameRemoteTask() {
        ScriptedProvider model = model("sunny in Oslo");
        Session session = new Session();
        AgentResult stopped;
        try (RemoteAgent weather = weather()) {
            stopped = lead(model, weather).run("What is the weather?", session).await();
        }
        assertThat(stopped.reason()).as(stopped.result()).isEqualTo(LoopEndReason.INTERRUPTED);
        WaitingCall waiting = stopped.waiting().getFirst();
        assertThat(stopped.waiting()).hasSize(1);
        assertThat(waiting.id()).isEqualTo("call_1_1/input");
        assertThat(waiting.kind()).isEqualTo(WaitingCall.Kind.EXTERNAL);
        assertThat(waiting.serverName()).isEqualTo(RemoteAgent.SERVER);
        assertThat(waiting.arguments().get("question").asString()).isEqualTo("Which city?");
        String taskId = waiting.arguments().get("task_id").asString();
        assertThat(state(taskId)).isEqualTo(TaskState.INPUT_REQUIRED);

        // another agent of the name, which knows nothing of the task, carries it on from the session
        try (RemoteAgent weather = weather()) {
            AgentResult done = lead(model, weather).resume(session, List.of(Decision.respond("call_1_1/input", "Oslo")))
                    .await();
            assertThat(done).isEqualTo(new AgentResult(LoopEndReason.TASK_COMPLETION, "sunny in Oslo"));
        }
        assertThat(model.requests().getLast().messages().toString()).contains("Weather in Oslo: sunny");
        assertThat(state(taskId)).isEqualTo(TaskState.COMPLETED);
        assertThat(times(taskId, "Oslo")).as("the answer was sent once, in the task").isEqualTo(1);
    }

    @Test
    void aDeniedQuestionCancelsTheRemoteTaskAndTheCallingModelReadsWhy() {
        ScriptedProvider model = model("no weather then");
        Session session = new Session();
        try (RemoteAgent weather = weather()) {
            DefaultAgent lead = lead(model, weather);
            AgentResult stopped = lead.run("What is the weather?", session).await();
            String taskId = stopped.waiting().getFirst().arguments().get("task_id").asString();
            AgentResult done = lead.resume(session, List.of(Decision.deny("call_1_1/input", "not today"))).await();
            assertThat(done.result()).isEqualTo("no weather then");
            assertThat(state(taskId)).isEqualTo(TaskState.CANCELED);
            assertThat(model.requests().getLast().messages().toString()).contains("was declined: not today");
        }
    }

    @Test
    void givingTheWaitingRunUpCancelsTheRemoteTask() {
        ScriptedProvider model = model("unused");
        Session session = new Session();
        try (RemoteAgent weather = weather()) {
            DefaultAgent lead = lead(model, weather);
            AgentResult stopped = lead.run("What is the weather?", session).await();
            String taskId = stopped.waiting().getFirst().arguments().get("task_id").asString();
            lead.cancelWaiting(session, "the user pressed Ctrl-C");
            assertThat(state(taskId)).isEqualTo(TaskState.CANCELED);
            assertThat(session.hasWaitingRun()).isFalse();
            assertThat(model.requests()).as("nothing more went to the model").hasSize(1);
        }
    }

    /** A resumption as the loop gives one: the state, the decision, the notes kept so far. */
    private record Kept(JsonNode state, List<Decision> decisions, List<JsonNode> notes) implements Resumption {
        @Override
        public void note(JsonNode note) {
            notes.add(note);
        }
    }

    @Test
    void aResumeCutShortAfterItSentTheAnswerFollowsTheTaskOnWithoutSendingItAgain() {
        try (RemoteAgent weather = weather()) {
            AgentResult asked = weather.run("ask me about the weather", new Session()).await();
            JsonNode state = weather.waitingState(asked, new Session());
            String taskId = state.get("task_id").asString();
            List<Decision> answer = List.of(Decision.respond(RemoteAgent.INPUT_CALL, "Tromsø"));

            Kept first = new Kept(state, answer, new ArrayList<>());
            AgentResult done = weather.resume(first, new Session()).await();
            assertThat(done).isEqualTo(new AgentResult(LoopEndReason.TASK_COMPLETION, "Weather in Tromsø: sunny"));
            assertThat(first.notes()).as("noted before it was sent").hasSize(1);
            // the process was killed after the message went out, before the outcome was stored:
            // the resume is asked again with that note, and the task is not sent the answer twice
            AgentResult again = weather.resume(new Kept(state, answer, new ArrayList<>(first.notes())), new Session())
                    .await();
            assertThat(again).isEqualTo(new AgentResult(LoopEndReason.TASK_COMPLETION, "Weather in Tromsø: sunny"));
            assertThat(times(taskId, "Tromsø")).isEqualTo(1);
            try (A2aClient client = A2aClient.builder(server.url()).connect()) {
                Message sent = client.getTask(taskId).history().stream()
                        .filter(m -> A2aAgentTool.text(m.parts()).equals("Tromsø")).findFirst().orElseThrow();
                assertThat(sent.messageId()).isEqualTo(first.notes().getFirst().get("sent").asString());
            }
        }
    }

    @Test
    void aResumeCutShortBeforeTheAnswerWentOutSendsIt() {
        try (RemoteAgent weather = weather()) {
            AgentResult asked = weather.run("ask me about the weather", new Session()).await();
            JsonNode state = weather.waitingState(asked, new Session());
            String taskId = state.get("task_id").asString();
            List<JsonNode> notes = new ArrayList<>();
            notes.add(tools.jackson.databind.node.JsonNodeFactory.instance.objectNode().put("sent", "answer-1")
                    .put("task_id", taskId));
            AgentResult done = weather.resume(new Kept(state, List.of(Decision.respond(RemoteAgent.INPUT_CALL, "Bodø")),
                    notes), new Session()).await();
            assertThat(done).isEqualTo(new AgentResult(LoopEndReason.TASK_COMPLETION, "Weather in Bodø: sunny"));
            assertThat(times(taskId, "Bodø")).isEqualTo(1);
        }
    }
}
