package dev.bellows.sessions.sqlite;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.bellows.agent.AgentResult;
import dev.bellows.agent.DefaultAgent;
import dev.bellows.agent.Session;
import dev.bellows.tool.LoopEndReason;
import dev.bellows.event.LoopEvent;
import dev.bellows.memory.ConversationMemory;
import dev.bellows.memory.StoredSession;
import dev.bellows.plan.PlanStatus;
import dev.bellows.provider.ChatRequest;
import dev.bellows.provider.Message;
import dev.bellows.provider.RetryPolicy;
import dev.bellows.testkit.MockScript;
import dev.bellows.testkit.MockTurn;
import dev.bellows.testkit.ScriptedProvider;
import dev.bellows.tool.ToolRegistry;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The agent's {@link Session} kept in a real SQLite session: a conversation and its plan
 * outlive the store that held them, and the next run picks both up.
 */
class StoredAgentSessionTest {

    @TempDir
    Path directory;

    private static final String PLAN = "<tool>{\"tool_name\": \"update_plan\", \"arguments\": {\"steps\": "
            + "[{\"description\": \"multiply\", \"status\": \"completed\"}, {\"description\": \"add one\", \"status\": \"pending\"}]}}</tool>";

    private static String done(String result) {
        return "<tool>{\"tool_name\": \"task_completion\", \"arguments\": {\"result\": \"" + result + "\"}}</tool>";
    }

    private static DefaultAgent agent(ScriptedProvider provider) {
        return DefaultAgent.builder().provider(provider).model("mock").toolRegistry(new ToolRegistry())
                .retryPolicy(RetryPolicy.defaults().withMaxRetries(0)).build();
    }

    @Test
    void theTurnsAndThePlanOfOneProcessAreThereForTheNext() throws Exception {
        try (SqliteSessionStore store = SqliteSessionStore.open(directory);
             StoredSession stored = store.open("math")) {
            ScriptedProvider provider = new ScriptedProvider(MockScript.builder()
                    .turn(MockTurn.content(PLAN)).turn(MockTurn.content(done("391"))).build());
            AgentResult result = agent(provider).run("What is 17 * 23?", Session.of(stored)).await();
            assertThat(result.reason()).isEqualTo(LoopEndReason.TASK_COMPLETION);
        }

        try (SqliteSessionStore store = SqliteSessionStore.open(directory);
             StoredSession stored = store.open("math")) {
            Session session = Session.of(stored);
            assertThat(session.plan().steps()).extracting(step -> step.description() + ":" + step.status())
                    .containsExactly("multiply:" + PlanStatus.COMPLETED, "add one:" + PlanStatus.PENDING);

            ScriptedProvider provider = new ScriptedProvider(MockScript.builder().turn(MockTurn.content(done("392"))).build());
            assertThat(agent(provider).run("And plus one?", session).await().result()).isEqualTo("392");

            ChatRequest sent = provider.requests().getFirst();
            assertThat(sent.messages()).extracting(Message::content)
                    .anySatisfy(content -> assertThat(content).contains("What is 17 * 23?"))
                    .anySatisfy(content -> assertThat(content).isEqualTo(PLAN))
                    .anySatisfy(content -> assertThat(content).contains("add one"));
        }
    }

    @Test
    void aRunIsOneExchangeStoredWhenItEndsHoweverItEnds() throws Exception {
        try (SqliteSessionStore store = SqliteSessionStore.open(directory);
             SqliteSessionStore reader = SqliteSessionStore.open(directory);
             StoredSession stored = store.open("atomic")) {
            List<Integer> storedAtIterationTwo = new CopyOnWriteArrayList<>();
            List<Integer> storedAtLoopEnd = new CopyOnWriteArrayList<>();
            ScriptedProvider provider = new ScriptedProvider(MockScript.builder()
                    .turn(MockTurn.content(PLAN)).turn(MockTurn.content(done("391"))).build());
            Session session = Session.of(stored);
            DefaultAgent agent = DefaultAgent.builder().provider(provider).model("mock").toolRegistry(new ToolRegistry())
                    .retryPolicy(RetryPolicy.defaults().withMaxRetries(0))
                    .listener(event -> {
                        if (event instanceof LoopEvent.IterationStart start && start.iteration() == 2) {
                            assertThat(session.memory().turns()).as("seen at once").hasSize(1);
                            storedAtIterationTwo.add(reader.find("atomic").orElseThrow().turns());
                        } else if (event instanceof LoopEvent.LoopEnd) {
                            storedAtLoopEnd.add(reader.find("atomic").orElseThrow().turns());
                        }
                    })
                    .build();
            assertThat(agent.run("What is 17 * 23?", session).await().result()).isEqualTo("391");
            assertThat(storedAtIterationTwo).as("nothing stored while the run goes on").containsExactly(0);
            assertThat(storedAtLoopEnd).as("nor when the listeners see loop_end").containsExactly(0);
            assertThat(reader.find("atomic").orElseThrow().turns()).as("both iterations once await returned").isEqualTo(2);
            assertThat(reader.find("atomic").orElseThrow().plan().steps()).hasSize(2);

            // A run that fails after an iteration (the script has no second answer) keeps that iteration.
            ScriptedProvider failing = new ScriptedProvider(MockScript.builder().turn(MockTurn.content(PLAN)).build());
            AgentResult failed = agent(failing).run("Again", session).await();
            assertThat(failed.reason()).isNotEqualTo(LoopEndReason.TASK_COMPLETION);
            assertThat(reader.turns("atomic").orElseThrow()).hasSize(3).last()
                    .satisfies(turn -> assertThat(turn.getFirst()).isEqualTo(Message.user("Again")));
        }
    }

    @Test
    void aMemoryThatKeepsItsTurnsElsewhereIsRefused() {
        try (SqliteSessionStore store = SqliteSessionStore.open(directory);
             StoredSession stored = store.open("other")) {
            assertThatThrownBy(() -> new Session(ConversationMemory.builder().build(), stored))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("ConversationMemory.builder().store(stored)");
        }
    }
}
