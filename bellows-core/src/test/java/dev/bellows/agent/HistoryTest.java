package dev.bellows.agent;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bellows.memory.ConversationMemory;
import dev.bellows.provider.Message;
import java.util.List;
import org.junit.jupiter.api.Test;

/** What the loops send from memory: whole turns, the task kept in sight, a user message first. */
class HistoryTest {

    // One token a character, plus 4 a message: "a1" costs 6.
    static ConversationMemory memory(int maxTokens) {
        return ConversationMemory.builder().tokenCounter(String::length).maxTokens(maxTokens).build();
    }

    static final Message SYSTEM = Message.system("sys");      // 7
    static final Message TASK = Message.user("task");         // 8

    /** A run of {@code iterations}: [task, a1, o1], [a2, o2], ... as the loops store it. */
    static void addRun(ConversationMemory memory, Message task, String prefix, int iterations) {
        memory.addTurn(List.of(task, Message.assistant(prefix + "a1"), Message.user(prefix + "o1")));
        for (int i = 2; i <= iterations; i++) {
            memory.addTurn(List.of(Message.assistant(prefix + "a" + i), Message.user(prefix + "o" + i)));
        }
    }

    static List<String> contents(List<Message> messages) {
        return messages.stream().map(Message::content).toList();
    }

    @Test
    void without_a_token_limit_everything_is_sent() {
        ConversationMemory memory = ConversationMemory.builder().build();
        addRun(memory, TASK, "", 4);
        Message pending = Message.user("o4");
        assertThat(contents(History.within(memory, 0, TASK, List.of(SYSTEM, pending), List.of(pending))))
                .containsExactly("task", "a1", "o1", "a2", "o2", "a3", "o3", "a4", "o4");
    }

    @Test
    void when_the_first_turn_is_dropped_the_task_is_still_sent_first() {
        // frame: system 7 + current "o4" 6 = 13, minus the pending o4 counted in memory: reserve 7.
        // turns: [task,a1,o1] = 8+6+6 = 20, then 12 each. 7 + 12*3 = 43; + task 8 = 51.
        ConversationMemory memory = memory(51);
        addRun(memory, TASK, "", 4);
        Message pending = Message.user("o4");
        List<Message> sent = History.within(memory, 0, TASK, List.of(SYSTEM, pending), List.of(pending));
        assertThat(contents(sent)).containsExactly("task", "a2", "o2", "a3", "o3", "a4", "o4");
    }

    @Test
    void the_task_tokens_are_reserved_when_it_is_pinned() {
        ConversationMemory memory = memory(50); // one less: a2's turn no longer fits beside the task
        addRun(memory, TASK, "", 4);
        Message pending = Message.user("o4");
        List<Message> sent = History.within(memory, 0, TASK, List.of(SYSTEM, pending), List.of(pending));
        assertThat(contents(sent)).containsExactly("task", "a3", "o3", "a4", "o4");
    }

    @Test
    void the_newest_turn_is_sent_whatever_the_limit() {
        ConversationMemory memory = memory(1);
        addRun(memory, TASK, "", 3);
        Message pending = Message.user("o3");
        assertThat(contents(History.within(memory, 0, TASK, List.of(SYSTEM, pending), List.of(pending))))
                .containsExactly("task", "a3", "o3");
    }

    @Test
    void an_earlier_run_is_cut_at_a_user_message_never_starting_with_an_answer() {
        ConversationMemory memory = memory(7 + 12 + 20 + 12 + 8);
        Message oldTask = Message.user("old!");
        addRun(memory, oldTask, "x", 3);             // turns 0..2
        int runStart = memory.turns().size();
        addRun(memory, TASK, "", 2);                 // turns 3..4
        Message pending = Message.user("o2");
        // the budget reaches into the old run's last turn [xa3, xo3], which starts with an answer
        List<Message> sent = History.within(memory, runStart, TASK, List.of(SYSTEM, pending), List.of(pending));
        assertThat(contents(sent)).containsExactly("task", "a1", "o1", "a2", "o2");
    }

    @Test
    void on_a_run_s_first_call_earlier_runs_are_cut_the_same_way() {
        ConversationMemory memory = memory(7 + 8 + 12 + 12);
        Message oldTask = Message.user("old!");
        addRun(memory, oldTask, "x", 3);
        int runStart = memory.turns().size();
        // the task is the current turn, not yet in memory
        List<Message> sent = History.within(memory, runStart, TASK, List.of(SYSTEM, TASK), List.of());
        assertThat(sent).isEmpty();
        ConversationMemory roomy = memory(1000);
        addRun(roomy, oldTask, "x", 3);
        assertThat(contents(History.within(roomy, runStart, TASK, List.of(SYSTEM, TASK), List.of())))
                .containsExactly("old!", "xa1", "xo1", "xa2", "xo2", "xa3", "xo3");
    }
}
