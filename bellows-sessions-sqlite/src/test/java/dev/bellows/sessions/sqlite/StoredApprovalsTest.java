package dev.bellows.sessions.sqlite;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.bellows.agent.AgentResult;
import dev.bellows.agent.Decision;
import dev.bellows.agent.DefaultAgent;
import dev.bellows.agent.Session;
import dev.bellows.agent.WaitingCall;
import dev.bellows.tool.LoopEndReason;
import dev.bellows.memory.StoredSession;
import dev.bellows.memory.WaitingRun;
import dev.bellows.provider.Message;
import dev.bellows.provider.RetryPolicy;
import dev.bellows.testkit.MockScript;
import dev.bellows.testkit.MockTurn;
import dev.bellows.testkit.ScriptedProvider;
import dev.bellows.tool.ToolRegistry;
import dev.bellows.tool.ToolResult;
import dev.bellows.tool.TypedTool;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A run that waits for approval in a real SQLite session: it is there for a store opened
 * later (as another process would), the decisions and results are stored as the resume goes,
 * a damaged waiting run is reported, not guessed at.
 */
class StoredApprovalsTest {

    @TempDir
    Path directory;

    record Target(String path) {
    }

    final List<String> written = new CopyOnWriteArrayList<>();

    DefaultAgent agent(ScriptedProvider provider) {
        ToolRegistry tools = new ToolRegistry().register(TypedTool.of("write_file", "Writes", Target.class,
                (context, args) -> {
                    written.add(args.path());
                    return ToolResult.of("wrote " + args.path());
                }));
        return DefaultAgent.builder().provider(provider).model("mock").toolRegistry(tools)
                .retryPolicy(RetryPolicy.defaults().withMaxRetries(0)).requireApproval("local/write_file").build();
    }

    static String write(String path) {
        return "<tool>{\"tool_name\": \"write_file\", \"arguments\": {\"path\": \"" + path + "\"}}</tool>";
    }

    static ScriptedProvider provider() {
        return new ScriptedProvider(MockScript.of(MockTurn.content(write("a.txt") + write("b.txt")),
                MockTurn.content("<tool>{\"tool_name\": \"task_completion\", \"arguments\": {\"result\": \"ok\"}}</tool>")));
    }

    @Test
    void theWaitingRunOfOneStoreIsResumedFromAnother() {
        ScriptedProvider provider = provider();
        try (SqliteSessionStore store = SqliteSessionStore.open(directory); StoredSession stored = store.open("w")) {
            AgentResult stopped = agent(provider).run("write both", Session.of(stored)).await();
            assertThat(stopped.waiting()).extracting(WaitingCall::id).containsExactly("call_1_1", "call_1_2");
        }
        try (SqliteSessionStore store = SqliteSessionStore.open(directory)) {
            assertThat(store.waitingRun("w")).isPresent();
            assertThat(WaitingCall.of(store.waitingRun("w").orElseThrow())).extracting(WaitingCall::id)
                    .containsExactly("call_1_1", "call_1_2");
            try (StoredSession stored = store.open("w")) {
                Session session = Session.of(stored);
                assertThat(session.name()).contains("w");
                assertThat(session.waiting()).hasSize(2);
                AgentResult done = agent(provider).resume(session, List.of(Decision.approve("call_1_1"),
                        Decision.deny("call_1_2", "not b"))).await();
                assertThat(done).isEqualTo(new AgentResult(LoopEndReason.TASK_COMPLETION, "ok"));
            }
            assertThat(store.waitingRun("w")).isEmpty();
            assertThat(store.find("w").orElseThrow().requests()).as("the task's exchange, stored by the resume")
                    .isEqualTo(1);
            List<List<Message>> turns = store.turns("w").orElseThrow();
            assertThat(turns.getFirst().getFirst()).isEqualTo(Message.user("write both"));
            assertThat(turns.getFirst().getLast().content()).contains("wrote a.txt", "the user denied this call");
        }
        assertThat(written).containsExactly("a.txt");
    }

    @Test
    void aDamagedWaitingRunIsReportedAndNothingRuns() throws Exception {
        try (SqliteSessionStore store = SqliteSessionStore.open(directory); StoredSession stored = store.open("d")) {
            agent(provider()).run("write both", Session.of(stored)).await();
        }
        try (Connection db = DriverManager.getConnection("jdbc:sqlite:" + directory.resolve("sessions.db"));
             Statement statement = db.createStatement()) {
            statement.executeUpdate("UPDATE sessions SET waiting_run = '{\"version\": 1, \"task\": 7}' WHERE name = 'd'");
        }
        try (SqliteSessionStore store = SqliteSessionStore.open(directory); StoredSession stored = store.open("d")) {
            Session session = Session.of(stored);
            assertThatThrownBy(() -> agent(provider()).resume(session, List.of(Decision.approve("call_1_1"))))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessage("the waiting run stored in session \"d\" is damaged, so it cannot be resumed:"
                            + " \"head\" is missing or not an array");
            assertThatThrownBy(() -> agent(provider()).run("something else", session))
                    .isInstanceOf(IllegalStateException.class).hasMessageContaining("is damaged");
            assertThatThrownBy(() -> WaitingCall.of(new WaitingRun("not json", List.of())))
                    .isInstanceOf(IllegalStateException.class).hasMessageContaining("is not JSON");
        }
        assertThat(written).isEmpty();
    }
}
