package dev.bellows.testkit.sessions;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.bellows.memory.ConversationMemory;
import dev.bellows.memory.StoredSession;
import dev.bellows.memory.SessionInUseException;
import dev.bellows.memory.SessionInfo;
import dev.bellows.memory.SessionStore;
import dev.bellows.memory.WaitingRun;
import dev.bellows.plan.Plan;
import dev.bellows.plan.PlanStatus;
import dev.bellows.plan.PlanStep;
import dev.bellows.provider.Message;
import dev.bellows.provider.NativeToolCall;
import dev.bellows.provider.Role;
import dev.bellows.provider.SignedThinking;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The tests every {@link SessionStore} passes. A store's test class extends this one and
 * says how to open another handle on its database (each test gets a fresh, empty database),
 * whether a session has one user at a time, and how to start the crash test's child process.
 *
 * <pre>{@code
 * class MyStoreTest extends SessionStoreContract {
 *     protected SessionStore newStore() { return MyStore.open(database); }
 *     protected boolean exclusiveSessions() { return false; }
 *     protected List<String> crashWriterCommand(String session) { return List.of(MyCrashMain.class.getName(), url, session); }
 * }
 * }</pre>
 */
public abstract class SessionStoreContract {

    private final List<AutoCloseable> opened = Collections.synchronizedList(new ArrayList<>());

    /**
     * Another handle on this test's database (a new connection, as another process would have):
     * every call of one test reaches the same data.
     */
    protected abstract SessionStore newStore();

    /** Whether a second user of an open session is refused ({@link SessionInUseException}). */
    protected abstract boolean exclusiveSessions();

    /**
     * The main class and arguments of a JVM that runs {@link CrashWriter#run} on this test's
     * database and that session; it runs with this JVM's class path.
     */
    protected abstract List<String> crashWriterCommand(String sessionName);

    @AfterEach
    void closeEverything() throws Exception {
        synchronized (opened) {
            for (int i = opened.size() - 1; i >= 0; i--) {
                try {
                    opened.get(i).close();
                } catch (IllegalStateException alreadyClosed) {
                    // a test closed it itself
                }
            }
            opened.clear();
        }
    }

    /** A store closed after the test. */
    protected final SessionStore store() {
        SessionStore store = newStore();
        opened.add(store);
        return store;
    }

    private StoredSession open(SessionStore store, String name) {
        StoredSession session = store.open(name);
        opened.add(session);
        return session;
    }

    // --- turns ---

    @Test
    void turnsComeBackWholeAndInOrderFromAnotherHandle() {
        List<List<Message>> turns = List.of(
                List.of(Message.user("What is 17 * 23?"), Message.assistant("<tool>calc</tool>"), Message.user("391")),
                List.of(Message.assistant("It is 391.")),
                List.of(Message.user("And 2 + 2?"), Message.assistant("4")));
        try (StoredSession session = store().open("order")) {
            assertThat(session.name()).isEqualTo("order");
            assertThat(session.turns()).isEmpty();
            turns.forEach(session::append);
            assertThat(session.turns()).isEqualTo(turns);
        }
        try (StoredSession again = store().open("order")) {
            assertThat(again.turns()).isEqualTo(turns);
            assertThat(store().turns("order")).as("read while open").contains(turns);
        }
        assertThat(store().turns("order")).contains(turns);
        assertThat(store().turns("no-such-session")).isEmpty();
    }

    @Test
    void messagesRoundTripExactly() {
        List<Message> turn = List.of(
                Message.system("system text is kept too"),
                Message.user(""),
                Message.assistant("<thinking>tags, \"quotes\", back\\slashes</thinking>\n<tool>{\"tool_name\": \"x\"}</tool>"),
                Message.user("line one\r\nline two\n\ttabbed\n"),
                Message.assistant("unicode: é ß 日本語 😀 \u2028 \uD83D\uDE80 end"),
                Message.user("  leading and trailing spaces  "),
                Message.assistant("big " + "0123456789".repeat(100_000)),
                Message.user("'; DROP TABLE messages; --"),
                Message.user("a NUL \u0000 from a binary file, and \u0001\u001b[2J controls"));
        try (StoredSession session = store().open("exact")) {
            session.append(turn);
        }
        try (StoredSession again = store().open("exact")) {
            List<List<Message>> turns = again.turns();
            assertThat(turns).hasSize(1);
            List<Message> read = turns.getFirst();
            assertThat(read).hasSize(turn.size());
            for (int i = 0; i < turn.size(); i++) {
                assertThat(read.get(i).role()).isEqualTo(turn.get(i).role());
                assertThat(read.get(i).content()).isEqualTo(turn.get(i).content());
            }
            assertThat(read).isEqualTo(turn);
        }
    }

    @Test
    void nativeToolCallsAndSignedThinkingRoundTrip() {
        List<Message> turn = List.of(
                Message.user("Read a.txt and b.txt"),
                Message.assistant("Reading both.", List.of(
                        new NativeToolCall("call_1", "read_file", "{\"path\": \"a.txt\"}"),
                        new NativeToolCall("toolu_02", "read_file", "{\"path\": \"b\\u0000.txt\"}")),
                        List.of(SignedThinking.signed("Two files: two calls.", "c2lnbmF0dXJl"),
                                SignedThinking.redacted("ZW5jcnlwdGVk"))),
                Message.toolResult("call_1", "contents of a"),
                Message.toolResult("toolu_02", "contents of b, with a NUL \u0000"));
        try (StoredSession session = store().open("native")) {
            session.append(turn);
        }
        try (StoredSession again = store().open("native")) {
            assertThat(again.turns()).containsExactly(turn);
        }
    }

    @Test
    void mediaOfUserAndToolMessagesRoundTrip() {
        byte[] png = {(byte) 0x89, 'P', 'N', 'G', 0, (byte) 0xFF, '\n'};
        List<Message> turn = List.of(
                Message.user("Look at the chart"),
                Message.assistant("Reading it.", List.of(new NativeToolCall("call_1", "screenshot", "{}")), List.of()),
                Message.toolResult("call_1", "(1 image attached: image/png, 7 bytes)",
                        List.of(dev.bellows.tool.Media.image(png, "image/png"))),
                Message.user("and this page", List.of(new dev.bellows.tool.Media("application/pdf", new byte[] {'%', 'P'}),
                        dev.bellows.tool.Media.image(new byte[0], "image/webp"))));
        try (StoredSession session = store().open("media")) {
            session.append(turn);
        }
        try (StoredSession again = store().open("media")) {
            assertThat(again.turns()).containsExactly(turn);
        }
    }

    @Test
    void aSessionIsTheStoreOfAConversationMemory() {
        try (StoredSession session = store().open("memory")) {
            ConversationMemory memory = ConversationMemory.builder().store(session).build();
            memory.addTurn(List.of(Message.user("task"), Message.assistant("answer")));
            assertThat(session.turns()).containsExactly(List.of(Message.user("task"), Message.assistant("answer")));
        }
        try (StoredSession again = store().open("memory")) {
            ConversationMemory memory = ConversationMemory.builder().store(again).build();
            assertThat(memory.messages()).containsExactly(Message.user("task"), Message.assistant("answer"));
        }
    }

    @Test
    void aTurnMustHoldAMessage() {
        StoredSession session = open(store(), "empty-turn");
        assertThatThrownBy(() -> session.append(List.of())).isInstanceOf(IllegalArgumentException.class);
        assertThat(session.turns()).isEmpty();
    }

    @Test
    void theCallersListIsCopied() {
        StoredSession session = open(store(), "copied");
        List<Message> turn = new ArrayList<>(List.of(Message.user("one")));
        session.append(turn);
        turn.add(Message.user("two"));
        assertThat(session.turns()).containsExactly(List.of(Message.user("one")));
    }

    // --- exchanges ---

    @Test
    void turnsOfAnExchangeAreSeenAtOnceAndStoredTogetherAtTheCommit() {
        SessionStore other = store();
        Plan plan = new Plan(List.of(new PlanStep("made during the exchange", PlanStatus.IN_PROGRESS)));
        List<Message> before = List.of(Message.user("an earlier request"), Message.assistant("its answer"));
        List<Message> first = List.of(Message.user("Read a.txt"), Message.assistant("<tool>read a.txt</tool>"),
                Message.user("contents of a"));
        List<Message> second = List.of(Message.assistant("<tool>task_completion</tool>"));
        StoredSession session = open(store(), "exchange");
        session.append(before);
        session.beginExchange();
        session.append(first);
        session.plan(plan);
        session.append(second);
        assertThat(session.turns()).containsExactly(before, first, second);
        assertThat(other.turns("exchange")).as("not stored before the commit").contains(List.of(before));
        assertThat(other.find("exchange").orElseThrow().turns()).isEqualTo(1);
        assertThat(other.find("exchange").orElseThrow().plan()).isEqualTo(Plan.empty());

        session.commitExchange();
        assertThat(session.turns()).containsExactly(before, first, second);
        assertThat(other.turns("exchange")).contains(List.of(before, first, second));
        SessionInfo info = other.find("exchange").orElseThrow();
        assertThat(info.turns()).isEqualTo(3);
        assertThat(info.requests()).as("the append before, and the exchange").isEqualTo(2);
        assertThat(other.exchanges("exchange")).contains(List.of(List.of(before), List.of(first, second)));
        assertThat(info.messages()).isEqualTo(6);
        assertThat(info.plan()).isEqualTo(plan);

        session.append(List.of(Message.user("outside an exchange: stored at once")));
        assertThat(other.find("exchange").orElseThrow().turns()).isEqualTo(4);
        session.close();
        try (StoredSession again = store().open("exchange")) {
            assertThat(again.turns()).hasSize(4).startsWith(before, first, second);
        }
    }

    /**
     * The requests are the exchanges as they were written, whatever their turns hold: Java code
     * may store a turn that begins with a system message, a tool result or the model's answer,
     * or a run whose later turns begin with the user's role (observations).
     */
    @Test
    void requestsAreTheExchangesAsWrittenNotGuessedFromTheTurns() {
        List<Message> system = List.of(Message.system("you are terse"), Message.user("first task"),
                Message.assistant("<tool>read</tool>"));
        List<Message> observation = List.of(Message.user("observation: contents"), Message.assistant("<tool>x</tool>"));
        List<Message> answer = List.of(Message.assistant("done"));
        List<Message> note = List.of(Message.assistant("a note the application adds on its own"));
        List<Message> toolFirst = List.of(Message.toolResult("call_1", "late result"), Message.assistant("ok"));
        List<Message> userAgain = List.of(Message.user("second observation"));
        StoredSession session = open(store(), "counted");
        session.beginExchange();
        session.append(system);
        session.append(observation);
        session.append(answer);
        session.commitExchange();
        session.append(note);                   // outside an exchange: an exchange of its own
        session.beginExchange();
        session.append(toolFirst);
        session.append(userAgain);
        session.commitExchange();
        session.beginExchange();
        session.commitExchange();               // empty: nothing stored, nothing counted
        List<List<List<Message>>> expected = List.of(List.of(system, observation, answer), List.of(note),
                List.of(toolFirst, userAgain));

        SessionStore other = store();
        SessionInfo info = other.find("counted").orElseThrow();
        assertThat(info.requests()).isEqualTo(3);
        assertThat(info.turns()).isEqualTo(6);
        assertThat(other.list()).singleElement().extracting(SessionInfo::requests).isEqualTo(3);
        assertThat(other.exchanges("counted")).contains(expected);
        assertThat(other.exchanges("no-such-session")).isEmpty();
        session.close();
        try (StoredSession again = store().open("counted")) {
            assertThat(again.turns()).isEqualTo(expected.stream().flatMap(List::stream).toList());
            again.append(List.of(Message.user("one more")));
            assertThat(store().find("counted").orElseThrow().requests()).isEqualTo(4);
            again.clear();
            assertThat(store().find("counted").orElseThrow().requests()).isZero();
            assertThat(store().exchanges("counted")).contains(List.of());
            again.beginExchange();
            again.append(answer);
            again.commitExchange();
        }
        assertThat(store().find("counted").orElseThrow().requests()).isEqualTo(1);
        assertThat(store().exchanges("counted")).contains(List.of(List.of(answer)));
    }

    @Test
    void anExchangeLeftOpenStoresNothingOfIt() {
        Plan plan = new Plan(List.of(new PlanStep("from the lost exchange", PlanStatus.PENDING)));
        List<Message> kept = List.of(Message.user("kept"), Message.assistant("yes"));
        StoredSession session = store().open("abandoned");
        session.append(kept);
        session.beginExchange();
        session.append(List.of(Message.user("lost"), Message.assistant("<tool>x</tool>"), Message.user("observation")));
        session.plan(plan);
        session.close();
        try (StoredSession again = store().open("abandoned")) {
            assertThat(again.turns()).containsExactly(kept);
            assertThat(again.plan()).isEqualTo(Plan.empty());
            again.beginExchange();          // the next one starts afresh
            again.append(List.of(Message.user("next")));
            again.commitExchange();
        }
        assertThat(store().turns("abandoned")).contains(List.of(kept, List.of(Message.user("next"))));
    }

    @Test
    void anEmptyExchangeStoresNothingAndExchangesDoNotNest() {
        StoredSession session = open(store(), "nesting");
        assertThatThrownBy(session::commitExchange).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("no exchange open");
        session.beginExchange();
        assertThatThrownBy(session::beginExchange).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("already has an exchange open");
        session.commitExchange();
        assertThat(store().find("nesting").orElseThrow().turns()).isZero();
        assertThat(session.turns()).isEmpty();
    }

    @Test
    void clearInsideAnExchangeForgetsItsTurnsToo() {
        StoredSession session = open(store(), "clear-exchange");
        session.append(List.of(Message.user("old")));
        session.beginExchange();
        session.append(List.of(Message.user("held")));
        session.clear();
        assertThat(session.turns()).isEmpty();
        session.append(List.of(Message.user("after the clear")));
        session.commitExchange();
        assertThat(session.turns()).containsExactly(List.of(Message.user("after the clear")));
        assertThat(store().turns("clear-exchange")).contains(List.of(List.of(Message.user("after the clear"))));
    }

    // --- a waiting run ---

    @Test
    void aWaitingRunIsStoredWithItsExchangeAndItsLogEntriesAtOnce() {
        SessionStore other = store();
        StoredSession session = open(store(), "waits");
        assertThat(session.waitingRun()).isEmpty();
        List<Message> turn = List.of(Message.user("delete the logs"), Message.assistant("<tool>rm</tool>"));
        session.beginExchange();
        session.append(turn);
        session.waitingRun("{\"calls\": [\"call_1_1\"]}");
        assertThat(session.waitingRun()).contains(new WaitingRun("{\"calls\": [\"call_1_1\"]}", List.of()));
        assertThat(other.waitingRun("waits")).as("not stored before the exchange is").isEmpty();
        assertThatThrownBy(() -> session.logWaitingRun(List.of("{}"))).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("no waiting run stored");
        session.commitExchange();
        assertThat(other.waitingRun("waits")).contains(new WaitingRun("{\"calls\": [\"call_1_1\"]}", List.of()));
        assertThat(other.turns("waits")).contains(List.of(turn));

        session.logWaitingRun(List.of("{\"decided\": \"call_1_1\"}"));
        session.logWaitingRun(List.of("{\"started\": \"call_1_1\"}", "{\"finished\": \"call_1_1\"}"));
        List<String> log = List.of("{\"decided\": \"call_1_1\"}", "{\"started\": \"call_1_1\"}",
                "{\"finished\": \"call_1_1\"}");
        assertThat(other.waitingRun("waits")).contains(new WaitingRun("{\"calls\": [\"call_1_1\"]}", log));
        assertThat(session.waitingRun()).contains(new WaitingRun("{\"calls\": [\"call_1_1\"]}", log));

        // the run goes on past it: removed with the next exchange, not before
        session.beginExchange();
        session.append(List.of(Message.user("observation"), Message.assistant("done")));
        session.waitingRun(null);
        assertThat(session.waitingRun()).isEmpty();
        assertThat(other.waitingRun("waits")).isPresent();
        session.commitExchange();
        assertThat(other.waitingRun("waits")).isEmpty();
        assertThat(other.find("waits").orElseThrow().requests()).isEqualTo(2);
    }

    @Test
    void anExchangeThatCarriesOnTheLastOneIsCountedWithIt() {
        List<Message> asked = List.of(Message.user("the task"), Message.assistant("<tool>read</tool>"));
        List<Message> waited = List.of(Message.user("observation: contents"), Message.assistant("<tool>write</tool>"));
        List<Message> done = List.of(Message.assistant("done"));
        StoredSession session = open(store(), "carried");
        session.continueExchange();             // nothing stored to carry on: an exchange of its own
        session.append(asked);
        session.commitExchange();
        session.continueExchange();             // a resume: the same request
        session.append(waited);
        session.append(done);
        session.commitExchange();

        SessionStore other = store();
        SessionInfo info = other.find("carried").orElseThrow();
        assertThat(info.requests()).isEqualTo(1);
        assertThat(info.turns()).isEqualTo(3);
        assertThat(other.exchanges("carried")).contains(List.of(List.of(asked, waited, done)));
        session.beginExchange();
        session.append(done);
        session.commitExchange();
        assertThat(other.find("carried").orElseThrow().requests()).isEqualTo(2);
        assertThat(other.exchanges("carried")).contains(List.of(List.of(asked, waited, done), List.of(done)));
    }

    @Test
    void aWaitingRunOfAnExchangeWithoutTurnsCountsNoRequestAndOneOutsideIsStoredAtOnce() {
        SessionStore other = store();
        StoredSession session = open(store(), "waits-first");
        session.beginExchange();
        session.waitingRun("{\"first\": true}");
        session.commitExchange();
        assertThat(other.waitingRun("waits-first")).contains(new WaitingRun("{\"first\": true}", List.of()));
        assertThat(other.find("waits-first").orElseThrow().requests()).isZero();

        session.logWaitingRun(List.of("a"));
        session.waitingRun("{\"second\": true}");         // outside an exchange: at once, its log emptied
        assertThat(other.waitingRun("waits-first")).contains(new WaitingRun("{\"second\": true}", List.of()));
        session.waitingRun(null);
        assertThat(other.waitingRun("waits-first")).isEmpty();
        assertThatThrownBy(() -> session.logWaitingRun(List.of("b"))).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void anAbandonedExchangeDropsItsWaitingRunAndClearAndDeleteRemoveIt() {
        StoredSession session = store().open("waits-abandoned");
        session.beginExchange();
        session.append(List.of(Message.user("lost")));
        session.waitingRun("{\"lost\": true}");
        session.close();
        assertThat(store().waitingRun("waits-abandoned")).isEmpty();

        try (StoredSession again = store().open("waits-abandoned")) {
            again.waitingRun("{\"kept\": true}");
            again.logWaitingRun(List.of("x"));
        }
        try (StoredSession again = store().open("waits-abandoned")) {
            assertThat(again.waitingRun()).contains(new WaitingRun("{\"kept\": true}", List.of("x")));
            again.clear();
            assertThat(again.waitingRun()).isEmpty();
            again.waitingRun("{\"again\": true}");
        }
        assertThat(store().waitingRun("waits-abandoned")).isPresent();
        assertThat(store().delete("waits-abandoned")).isTrue();
        assertThat(store().waitingRun("waits-abandoned")).isEmpty();
        assertThat(store().waitingRun("never-was")).isEmpty();
    }

    /**
     * A child stores a waiting run, then log entries one at a time, and is killed with SIGKILL
     * while it logs; again, twice. Every entry the child reported stored is there, whole and in
     * order, after the waiting run, and at most the one being written besides.
     */
    @Test
    void aKilledResumeLosesNoLoggedStep() throws Exception {
        String name = CrashWriter.WAITING + "crash";
        int reported = 0;
        for (int round = 0; round < 3; round++) {
            Process child = startCrashWriter(name);
            try (BufferedReader lines = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8))) {
                String line = lines.readLine();
                assertThat(line).as("the child's first line (stderr: %s)", stderrOf(child, line)).isEqualTo("waiting");
                int seen = reported;
                while (seen < reported + 3 + round) {
                    line = lines.readLine();
                    assertThat(line).as("child output (stderr: %s)", stderrOf(child, line)).startsWith("logged ");
                    seen = Integer.parseInt(line.substring("logged ".length()));
                }
                child.toHandle().destroyForcibly();
                child.waitFor();
                for (String rest; (rest = lines.readLine()) != null; ) {
                    if (rest.startsWith("logged ")) {
                        seen = Integer.parseInt(rest.substring("logged ".length()));
                    }
                }
                reported = seen;
            }
            try (SessionStore store = newStore()) {
                WaitingRun waiting = store.waitingRun(name).orElseThrow();
                assertThat(waiting.state()).isEqualTo(CrashWriter.waitingState());
                assertThat(waiting.log().size()).as("entries after kill -9 (round %d)", round)
                        .isBetween(reported, reported + 1);
                for (int i = 0; i < waiting.log().size(); i++) {
                    assertThat(waiting.log().get(i)).as("entry %d", i).isEqualTo(CrashWriter.logEntry(i));
                }
                assertThat(store.turns(name)).contains(List.of(CrashWriter.turn(0, 0)));
                reported = waiting.log().size();
            }
        }
    }

    // --- plan and metadata ---

    @Test
    void thePlanIsStoredWithTheNextTurn() {
        SessionStore store = store();
        SessionStore other = store();
        Plan plan = new Plan(List.of(new PlanStep("Read the test", PlanStatus.COMPLETED),
                new PlanStep("Fix the parser", PlanStatus.IN_PROGRESS), new PlanStep("Ship \"it\" 🚀", PlanStatus.PENDING)));
        StoredSession session = open(store, "plan");
        assertThat(session.plan()).isEqualTo(Plan.empty());
        session.plan(plan);
        assertThat(session.plan()).isEqualTo(plan);
        assertThat(other.find("plan").orElseThrow().plan()).isEqualTo(Plan.empty());
        session.append(List.of(Message.user("update_plan called")));
        assertThat(other.find("plan").orElseThrow().plan()).isEqualTo(plan);
        session.close();
        try (StoredSession again = store().open("plan")) {
            assertThat(again.plan()).isEqualTo(plan);
        }
    }

    @Test
    void closingStoresAPlanThatNoTurnFollowed() {
        Plan plan = new Plan(List.of(new PlanStep("only step", PlanStatus.PENDING)));
        try (StoredSession session = store().open("plan-on-close")) {
            session.plan(plan);
        }
        assertThat(store().find("plan-on-close").orElseThrow().plan()).isEqualTo(plan);
    }

    @Test
    void metadataRoundTripsAndMerges() {
        try (StoredSession session = store().open("meta")) {
            assertThat(session.metadata()).isEmpty();
            session.putMetadata(Map.of(StoredSession.MODEL, "llama3.2", StoredSession.TOOL_MODE, "tags"));
            session.putMetadata(Map.of(StoredSession.MODEL, "qwen3", "note", "ünïcödé \"quoted\""));
            assertThat(session.metadata()).isEqualTo(
                    Map.of(StoredSession.MODEL, "qwen3", StoredSession.TOOL_MODE, "tags", "note", "ünïcödé \"quoted\""));
        }
        Map<String, String> expected = Map.of(StoredSession.MODEL, "qwen3", StoredSession.TOOL_MODE, "tags", "note", "ünïcödé \"quoted\"");
        assertThat(store().find("meta").orElseThrow().metadata()).isEqualTo(expected);
        try (StoredSession again = store().open("meta")) {
            assertThat(again.metadata()).isEqualTo(expected);
            Map<String, String> blankKey = new HashMap<>();
            blankKey.put(" ", "x");
            assertThatThrownBy(() -> again.putMetadata(blankKey)).isInstanceOf(IllegalArgumentException.class);
            Map<String, String> nullValue = new HashMap<>();
            nullValue.put("k", null);
            assertThatThrownBy(() -> again.putMetadata(nullValue)).isInstanceOf(IllegalArgumentException.class);
            assertThat(again.metadata()).isEqualTo(expected);
        }
    }

    // --- list, show, delete, clear ---

    @Test
    void listFindAndDelete() {
        SessionStore store = store();
        assertThat(store.list()).isEmpty();
        assertThat(store.find("alpha")).isEmpty();
        try (StoredSession alpha = store.open("alpha"); StoredSession beta = store.open("beta")) {
            alpha.append(List.of(Message.user("a1"), Message.assistant("a2")));
            alpha.append(List.of(Message.user("a3")));
            beta.putMetadata(Map.of(StoredSession.MODEL, "m"));
        }
        List<SessionInfo> sessions = store().list();
        assertThat(sessions).extracting(SessionInfo::name).containsExactly("alpha", "beta");
        SessionInfo alpha = sessions.getFirst();
        assertThat(alpha.turns()).isEqualTo(2);
        assertThat(alpha.messages()).isEqualTo(3);
        assertThat(alpha.updated()).isAfterOrEqualTo(alpha.created());
        assertThat(sessions.get(1).turns()).isZero();
        assertThat(sessions.get(1).metadata()).containsEntry(StoredSession.MODEL, "m");
        assertThat(store.find("alpha")).contains(alpha);

        assertThat(store.delete("alpha")).isTrue();
        assertThat(store.delete("alpha")).isFalse();
        assertThat(store.list()).extracting(SessionInfo::name).containsExactly("beta");
        assertThat(store.find("alpha")).isEmpty();
        try (StoredSession reborn = store.open("alpha")) {
            assertThat(reborn.turns()).isEmpty();
            assertThat(reborn.plan()).isEqualTo(Plan.empty());
        }
    }

    @Test
    void createdIsWhenTheSessionWasMadeAndUpdatedWhenItWasLastWritten() {
        SessionStore store = store();
        Instant beforeOpen = Instant.now().truncatedTo(ChronoUnit.MILLIS);   // a store may keep milliseconds
        try (StoredSession session = store.open("times")) {
            Instant afterOpen = Instant.now();
            SessionInfo made = store.find("times").orElseThrow();
            assertThat(made.created()).isBetween(beforeOpen, afterOpen);
            assertThat(made.updated()).isEqualTo(made.created());

            Instant beforeAppend = Instant.now().truncatedTo(ChronoUnit.MILLIS);
            session.append(List.of(Message.user("now")));
            Instant afterAppend = Instant.now();
            SessionInfo written = store.find("times").orElseThrow();
            assertThat(written.created()).isEqualTo(made.created());
            assertThat(written.updated()).isBetween(beforeAppend, afterAppend);
        }
    }

    @Test
    void clearForgetsTheTurnsOnly() {
        Plan plan = new Plan(List.of(new PlanStep("keep me", PlanStatus.PENDING)));
        try (StoredSession session = store().open("clear")) {
            session.plan(plan);
            session.append(List.of(Message.user("one")));
            session.append(List.of(Message.user("two")));
            session.putMetadata(Map.of("k", "v"));
            session.clear();
            assertThat(session.turns()).isEmpty();
            session.append(List.of(Message.user("three")));
            assertThat(session.turns()).containsExactly(List.of(Message.user("three")));
        }
        SessionInfo info = store().find("clear").orElseThrow();
        assertThat(info.turns()).isEqualTo(1);
        assertThat(info.messages()).isEqualTo(1);
        assertThat(info.plan()).isEqualTo(plan);
        assertThat(info.metadata()).containsEntry("k", "v");
        try (StoredSession again = store().open("clear")) {
            assertThat(again.turns()).containsExactly(List.of(Message.user("three")));
        }
    }

    @Test
    void badNamesAreRefusedWithTheRule() {
        SessionStore store = store();
        for (String name : new String[] {"", "../etc", "a/b", ".hidden", "-flag", "x".repeat(101), "new\nline"}) {
            assertThatThrownBy(() -> store.open(name)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("letters, digits");
            assertThatThrownBy(() -> store.find(name)).isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> store.delete(name)).isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> store.turns(name)).isInstanceOf(IllegalArgumentException.class);
        }
        assertThatThrownBy(() -> store.open(null)).isInstanceOf(IllegalArgumentException.class);
        assertThat(store.list()).isEmpty();
    }

    @Test
    void aClosedSessionRefusesUse() {
        StoredSession session = store().open("closed");
        session.close();
        session.close();
        assertThatThrownBy(session::turns).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> session.append(List.of(Message.user("late")))).isInstanceOf(IllegalStateException.class);
    }

    // --- several users ---

    @Test
    void aSecondUserOfAnOpenSessionIsRefusedOrShares() {
        SessionStore first = store();
        SessionStore second = store();
        StoredSession session = open(first, "shared");
        session.append(List.of(Message.user("from the first")));
        if (exclusiveSessions()) {
            assertThatThrownBy(() -> second.open("shared")).isInstanceOf(SessionInUseException.class)
                    .hasMessageContaining("\"shared\"");
            assertThatThrownBy(() -> first.open("shared")).isInstanceOf(SessionInUseException.class);
            assertThatThrownBy(() -> second.delete("shared")).isInstanceOf(SessionInUseException.class);
            session.close();
            try (StoredSession now = second.open("shared")) {
                assertThat(now.turns()).containsExactly(List.of(Message.user("from the first")));
            }
        } else {
            StoredSession other = open(second, "shared");
            assertThat(other.turns()).containsExactly(List.of(Message.user("from the first")));
            other.append(List.of(Message.user("from the second")));
            session.append(List.of(Message.user("from the first again")));
            List<List<Message>> expected = List.of(List.of(Message.user("from the first")),
                    List.of(Message.user("from the second")), List.of(Message.user("from the first again")));
            assertThat(session.turns()).isEqualTo(expected);
            assertThat(other.turns()).isEqualTo(expected);
        }
    }

    @Test
    void concurrentWritersOnOneSessionLoseAndInterleaveNothing() throws Exception {
        int writers = 8;
        int turnsEach = 25;
        StoredSession session = open(store(), "race");
        runConcurrently(writers, writer -> {
            for (int i = 0; i < turnsEach; i++) {
                session.append(raceTurn(writer, i));
            }
        });
        List<List<Message>> turns = session.turns();
        assertWholeAndOrdered(turns, writers, turnsEach);
        assertThat(store().find("race").orElseThrow().requests()).as("each append its own request")
                .isEqualTo(writers * turnsEach);
        try (SessionStore other = newStore()) {
            if (exclusiveSessions()) {
                session.close();
            }
            try (StoredSession again = other.open("race")) {
                assertThat(again.turns()).isEqualTo(turns);
            }
        }
    }

    @Test
    void manySessionsWrittenAtOnceFromSeparateHandles() throws Exception {
        int sessions = 6;
        int turnsEach = 20;
        runConcurrently(sessions, index -> {
            try (SessionStore store = newStore(); StoredSession session = store.open("many-" + index)) {
                for (int i = 0; i < turnsEach; i++) {
                    session.append(raceTurn(index, i));
                }
            }
        });
        SessionStore store = store();
        assertThat(store.list()).hasSize(sessions).allSatisfy(info -> assertThat(info.turns()).isEqualTo(turnsEach));
        for (int index = 0; index < sessions; index++) {
            try (StoredSession session = store.open("many-" + index)) {
                List<List<Message>> expected = new ArrayList<>();
                for (int i = 0; i < turnsEach; i++) {
                    expected.add(raceTurn(index, i));
                }
                assertThat(session.turns()).isEqualTo(expected);
            }
        }
    }

    /**
     * A child JVM stores exchanges of {@link CrashWriter#ITERATIONS} large turns each and is
     * killed with SIGKILL (no shutdown hooks, no finally blocks), three times over: twice
     * right after the first turn of an exchange (the run's first iteration), and once right
     * after it was let go on to commit one, most likely inside that transaction. Each time the
     * session must open with every exchange the child reported committed, each whole and in
     * order, possibly (only in the second case) the one it was committing, and nothing else.
     */
    @Test
    void aKilledWriterLosesTheExchangeInFlightWholeAndNeverPartOfOne() throws Exception {
        int reported = 0;
        for (int round = 0; round < 3; round++) {
            boolean midExchange = round != 1;
            Process child = startCrashWriter("crash");
            int inFlight;
            try (BufferedReader lines = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8));
                 OutputStream goAhead = child.getOutputStream()) {
                String line = lines.readLine();
                assertThat(line).as("the child's first line (stderr: %s)", stderrOf(child, line)).startsWith("ready ");
                int start = Integer.parseInt(line.substring("ready ".length()));
                assertThat(start).isGreaterThanOrEqualTo(reported);
                if (exclusiveSessions()) {
                    try (SessionStore other = newStore()) {
                        assertThatThrownBy(() -> other.open("crash")).isInstanceOf(SessionInUseException.class)
                                .hasMessageContaining("another process");
                    }
                }
                int seen = start;
                while (true) {
                    line = lines.readLine();
                    assertThat(line).as("child output (stderr: %s)", stderrOf(child, line)).isNotNull();
                    if (line.startsWith("committed ")) {
                        seen = Integer.parseInt(line.substring("committed ".length()));
                        continue;
                    }
                    assertThat(line).startsWith("iterated ");
                    if (midExchange && seen >= start + 2) {
                        break;                  // one turn of this exchange appended, the rest not
                    }
                    goAhead.write('\n');
                    goAhead.flush();
                    if (!midExchange && seen >= start + 4) {
                        break;                  // the fifth exchange is on its way to its commit
                    }
                }
                // Through the handle, which (unlike Process.destroyForcibly) leaves the pipe
                // open for what was printed.
                child.toHandle().destroyForcibly();
                child.waitFor();
                for (String rest; (rest = lines.readLine()) != null; ) {
                    if (rest.startsWith("committed ")) {
                        seen = Integer.parseInt(rest.substring("committed ".length()));
                    }
                }
                reported = seen;
                inFlight = midExchange ? 0 : 1;
            }
            try (SessionStore store = newStore(); StoredSession session = store.open("crash")) {
                List<List<Message>> turns = session.turns();
                assertThat(turns.size() % CrashWriter.ITERATIONS).as("whole exchanges only (round %d)", round).isZero();
                assertThat(turns.size() / CrashWriter.ITERATIONS).as("exchanges after kill -9 (round %d)", round)
                        .isBetween(reported, reported + inFlight);
                for (int i = 0; i < turns.size(); i++) {
                    assertThat(turns.get(i)).as("turn %d", i)
                            .isEqualTo(CrashWriter.turn(i / CrashWriter.ITERATIONS, i % CrashWriter.ITERATIONS));
                }
                assertThat(store.find("crash").orElseThrow().turns()).isEqualTo(turns.size());
                assertThat(store.find("crash").orElseThrow().requests()).as("one request per whole exchange")
                        .isEqualTo(turns.size() / CrashWriter.ITERATIONS);
                assertThat(store.exchanges("crash").orElseThrow())
                        .allSatisfy(exchange -> assertThat(exchange).hasSize(CrashWriter.ITERATIONS));
                reported = turns.size() / CrashWriter.ITERATIONS;
            }
        }
    }

    // --- helpers ---

    private Process startCrashWriter(String session) throws IOException {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        // a short-lived JVM: C1 alone and the serial collector start it with less CPU
        command.add("-XX:TieredStopAtLevel=1");
        command.add("-XX:+UseSerialGC");
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.addAll(crashWriterCommand(session));
        Process process = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.PIPE).start();
        opened.add(process::destroyForcibly);
        return process;
    }

    private static String stderrOf(Process child, String line) {
        if (line != null) {
            return "-";
        }
        try {
            child.waitFor();
            return new String(child.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException | InterruptedException e) {
            return "unreadable: " + e;
        }
    }

    private static List<Message> raceTurn(int writer, int index) {
        String id = "w" + writer + "-" + index;
        return List.of(Message.user(id + " question"), Message.assistant(id + " answer"), Message.user(id + " observation"));
    }

    private static void assertWholeAndOrdered(List<List<Message>> turns, int writers, int turnsEach) {
        assertThat(turns).hasSize(writers * turnsEach);
        int[] next = new int[writers];
        for (List<Message> turn : turns) {
            String id = turn.getFirst().content().substring(0, turn.getFirst().content().indexOf(' '));
            int writer = Integer.parseInt(id.substring(1, id.indexOf('-')));
            int index = Integer.parseInt(id.substring(id.indexOf('-') + 1));
            assertThat(index).as("turns of writer %d in order", writer).isEqualTo(next[writer]);
            next[writer]++;
            assertThat(turn).isEqualTo(raceTurn(writer, index));
            assertThat(turn).extracting(Message::role).containsExactly(Role.USER, Role.ASSISTANT, Role.USER);
        }
    }

    /** Runs the task once per index on its own thread, all released at once; rethrows the first failure. */
    protected static void runConcurrently(int count, IndexedTask task) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(count);
        try {
            CountDownLatch start = new CountDownLatch(1);
            List<Future<?>> futures = new ArrayList<>();
            for (int i = 0; i < count; i++) {
                int index = i;
                futures.add(pool.submit(() -> {
                    start.await();
                    task.run(index);
                    return null;
                }));
            }
            start.countDown();
            for (Future<?> future : futures) {
                future.get();
            }
        } finally {
            pool.shutdownNow();
        }
    }

    /** A piece of work for {@link #runConcurrently}. */
    @FunctionalInterface
    protected interface IndexedTask {
        void run(int index) throws Exception;
    }
}
