package dev.bellows.memory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.bellows.provider.Message;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class ConversationMemoryTest {

    /** One token per character, so the sums in these tests can be read off the strings. */
    private static final TokenCounter CHARS = String::length;
    private static final int OVERHEAD = ConversationMemory.MESSAGE_OVERHEAD_TOKENS;

    private static List<Message> task(String text) {
        return List.of(Message.user(text));
    }

    private static List<Message> iteration(String answer, String observation) {
        return List.of(Message.assistant(answer), Message.user(observation));
    }

    @Test
    void withoutLimitsNothingIsCountedAndEveryTurnIsKeptAsAnUnchangeableList() {
        AtomicInteger counted = new AtomicInteger();
        ConversationMemory memory = ConversationMemory.builder()
                .tokenCounter(text -> counted.incrementAndGet()).build();
        memory.addTurn(task("task"));
        memory.addTurn(iteration("answer", "observation"));

        List<List<Message>> kept = memory.turnsWithin(Integer.MAX_VALUE);
        assertThat(kept).isEqualTo(memory.turns()).hasSize(2);
        assertThat(counted).as("the loops ask before every call; without a limit there is nothing to count").hasValue(0);
        assertThatThrownBy(() -> kept.add(task("more"))).isInstanceOf(UnsupportedOperationException.class);
        memory.addTurn(task("later"));
        assertThat(kept).as("a snapshot").hasSize(2);
    }

    @Test
    void withoutLimitsEveryMessageIsSentOldestFirst() {
        ConversationMemory memory = ConversationMemory.builder().build();
        memory.addTurn(task("task"));
        memory.addTurn(iteration("<tool>{\"tool_name\": \"a\"}</tool>", "<observation>1</observation>"));

        List<Message> expected = List.of(Message.user("task"), Message.assistant("<tool>{\"tool_name\": \"a\"}</tool>"),
                Message.user("<observation>1</observation>"));
        assertThat(memory.messages()).isEqualTo(expected);
        assertThat(memory.messagesWithin(0)).isEqualTo(expected);
        assertThat(memory.messagesWithin(1_000_000)).isEqualTo(expected);
        assertThat(memory.turns()).hasSize(2);
        assertThat(memory.maxMessages()).isEqualTo(Integer.MAX_VALUE);
        assertThat(memory.maxTokens()).isEqualTo(Integer.MAX_VALUE);
    }

    @Test
    void theMessageLimitDropsTheOldestWholeTurnsNeverHalfAnIteration() {
        ConversationMemory memory = ConversationMemory.builder().maxMessages(4).build();
        memory.addTurn(task("task"));
        memory.addTurn(iteration("call 1", "result 1"));
        memory.addTurn(iteration("call 2", "result 2"));

        // 5 messages stored; dropping the task alone gives 4: both iterations stay whole.
        assertThat(memory.messagesWithin(0)).extracting(Message::content)
                .containsExactly("call 1", "result 1", "call 2", "result 2");

        memory.addTurn(task("follow-up"));
        // 6 messages; dropping the task and the first iteration leaves 3. Never "result 1" without "call 1".
        assertThat(memory.messagesWithin(0)).extracting(Message::content)
                .containsExactly("call 2", "result 2", "follow-up");
        assertThat(memory.messages()).hasSize(6);
    }

    @Test
    void theTokenLimitCountsTheReservationAndTheOverheadPerMessage() {
        ConversationMemory memory = ConversationMemory.builder().tokenCounter(CHARS).maxTokens(100).build();
        memory.addTurn(task("a".repeat(20)));                      // 20 + 4 = 24
        memory.addTurn(iteration("b".repeat(10), "c".repeat(10))); // 10 + 4 + 10 + 4 = 28
        memory.addTurn(task("d".repeat(30)));                      // 34

        assertThat(memory.tokenCount()).isEqualTo(24 + 28 + 34);
        assertThat(memory.tokenCount(Message.user("xyz"))).isEqualTo(3 + OVERHEAD);
        assertThat(memory.messagesWithin(0)).hasSize(4);                       // 86 <= 100
        assertThat(memory.messagesWithin(14)).hasSize(4);                      // 100 <= 100
        assertThat(memory.messagesWithin(15)).extracting(Message::content)     // 101 > 100: the task goes
                .containsExactly("b".repeat(10), "c".repeat(10), "d".repeat(30));
        assertThat(memory.messagesWithin(38)).hasSize(3);                      // 28 + 34 + 38 = 100
        assertThat(memory.messagesWithin(39)).extracting(Message::content)     // only the newest turn fits
                .containsExactly("d".repeat(30));
    }

    @Test
    void theNewestTurnIsKeptEvenWhenItAloneBreaksTheLimits() {
        ConversationMemory memory = ConversationMemory.builder().tokenCounter(CHARS).maxTokens(10).maxMessages(1)
                .build();
        memory.addTurn(task("old"));
        memory.addTurn(iteration("a long answer that is far over the limit", "and its observation"));

        assertThat(memory.messagesWithin(1_000)).extracting(Message::content)
                .containsExactly("a long answer that is far over the limit", "and its observation");
    }

    @Test
    void anEmptyMemoryGivesNothing() {
        ConversationMemory memory = ConversationMemory.builder().maxTokens(1).build();

        assertThat(memory.messagesWithin(5)).isEmpty();
        assertThat(memory.messages()).isEmpty();
        assertThat(memory.tokenCount()).isZero();
    }

    @Test
    void clearForgetsEverythingAndCountsStartAgain() {
        ConversationMemory memory = ConversationMemory.builder().tokenCounter(CHARS).build();
        memory.addTurn(task("12345"));
        assertThat(memory.tokenCount()).isEqualTo(5 + OVERHEAD);

        memory.clear();
        assertThat(memory.messages()).isEmpty();
        assertThat(memory.tokenCount()).isZero();

        memory.addTurn(task("12"));
        assertThat(memory.tokenCount()).isEqualTo(2 + OVERHEAD);
    }

    @Test
    void badTurnsAndLimitsAreRefusedWithWhatToFix() {
        ConversationMemory memory = ConversationMemory.builder().build();

        assertThatThrownBy(() -> memory.addTurn(List.of())).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("at least one message");
        assertThatThrownBy(() -> memory.addTurn(List.of(Message.system("You are..."))))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("system message");
        assertThatThrownBy(() -> memory.messagesWithin(-1)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("reservedTokens");
        assertThatThrownBy(() -> ConversationMemory.builder().maxMessages(0))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("maxMessages must be at least 1");
        assertThatThrownBy(() -> ConversationMemory.builder().maxTokens(-5))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("maxTokens must be at least 1");
        assertThat(memory.messages()).isEmpty();
    }

    @Test
    void aTurnIsCopiedWhenAdded() {
        ConversationMemory memory = ConversationMemory.builder().build();
        List<Message> turn = new ArrayList<>(task("task"));
        memory.addTurn(turn);
        turn.add(Message.assistant("added later"));

        assertThat(memory.messages()).containsExactly(Message.user("task"));
    }

    @Test
    void eachMessageIsCountedOnceWhateverTheNumberOfCalls() {
        AtomicInteger calls = new AtomicInteger();
        ConversationMemory memory = ConversationMemory.builder()
                .tokenCounter(text -> {
                    calls.incrementAndGet();
                    return text.length();
                })
                .maxTokens(1_000).build();
        memory.addTurn(task("task"));
        memory.addTurn(iteration("call", "result"));
        for (int i = 0; i < 5; i++) {
            memory.messagesWithin(i);
            memory.tokenCount();
        }
        assertThat(calls).hasValue(3);
    }

    @Test
    void turnsGoToTheGivenStoreAndAStoreWithTurnsIsReadAsItIs() {
        RecordingStore store = new RecordingStore();
        store.append(task("from an earlier session"));
        ConversationMemory memory = ConversationMemory.builder().store(store).maxMessages(2).build();

        memory.addTurn(iteration("call", "result"));

        assertThat(store.appended).hasSize(2);
        assertThat(memory.messages()).extracting(Message::content)
                .containsExactly("from an earlier session", "call", "result");
        assertThat(memory.messagesWithin(0)).extracting(Message::content).containsExactly("call", "result");
        memory.clear();
        assertThat(store.turns()).isEmpty();
    }

    @Test
    void theTokenCacheNoticesAStoreClearedBehindItsBack() {
        InMemoryMemoryStore store = new InMemoryMemoryStore();
        ConversationMemory memory = ConversationMemory.builder().store(store).tokenCounter(CHARS).build();
        memory.addTurn(task("long long text"));
        memory.addTurn(task("more"));
        assertThat(memory.tokenCount()).isEqualTo(14 + 4 + 2 * OVERHEAD);

        store.clear();
        store.append(task("x"));
        assertThat(memory.tokenCount()).isEqualTo(1 + OVERHEAD);
    }

    @Test
    void turnsAddedFromManyThreadsAreAllKeptWhole() throws Exception {
        ConversationMemory memory = ConversationMemory.builder().maxMessages(50).build();
        int threads = 8;
        int perThread = 200;
        CountDownLatch start = new CountDownLatch(1);
        try (var executor = Executors.newVirtualThreadPerTaskExecutor()) {
            for (int t = 0; t < threads; t++) {
                int id = t;
                executor.submit(() -> {
                    start.await();
                    for (int i = 0; i < perThread; i++) {
                        memory.addTurn(iteration(id + ":" + i, id + ":" + i));
                        memory.messagesWithin(10);
                    }
                    return null;
                });
            }
            start.countDown();
        }
        assertThat(memory.turns()).hasSize(threads * perThread)
                .allSatisfy(turn -> assertThat(turn.get(0).content()).isEqualTo(turn.get(1).content()));
        List<Message> within = memory.messagesWithin(0);
        assertThat(within).hasSize(50);
        for (int i = 0; i < within.size(); i += 2) {
            assertThat(within.get(i).content()).isEqualTo(within.get(i + 1).content());
        }
    }

    /** A store that records what it was given, as a persistent one would. */
    private static final class RecordingStore implements MemoryStore {
        final List<List<Message>> appended = new CopyOnWriteArrayList<>();

        @Override
        public void append(List<Message> turn) {
            appended.add(turn);
        }

        @Override
        public List<List<Message>> turns() {
            return List.copyOf(appended);
        }

        @Override
        public void clear() {
            appended.clear();
        }
    }
}
