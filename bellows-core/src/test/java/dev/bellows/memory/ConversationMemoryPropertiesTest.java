package dev.bellows.memory;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bellows.provider.Message;
import java.util.ArrayList;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;

/**
 * For random sequences of turns, limits and reservations: what {@link ConversationMemory#messagesWithin}
 * gives is a suffix of whole turns, the newest always among them, within the limits unless the
 * newest turn alone breaks them, and as long as the limits allow (the next older turn would not fit).
 */
class ConversationMemoryPropertiesTest {

    private static final TokenCounter COUNTER = new EstimatingTokenCounter();

    @Provide
    Arbitrary<List<List<Message>>> turns() {
        Arbitrary<String> text = Arbitraries.strings().ofMaxLength(80);
        Arbitrary<List<Message>> task = text.map(t -> List.of(Message.user(t)));
        Arbitrary<List<Message>> iteration = Combinators.combine(text, text)
                .as((answer, observation) -> List.of(Message.assistant(answer), Message.user(observation)));
        Arbitrary<List<Message>> longer = text.list().ofMinSize(1).ofMaxSize(5)
                .map(texts -> texts.stream().map(Message::assistant).toList());
        return Arbitraries.frequencyOf(
                        net.jqwik.api.Tuple.of(3, task), net.jqwik.api.Tuple.of(6, iteration),
                        net.jqwik.api.Tuple.of(1, longer))
                .list().ofMaxSize(30);
    }

    @Property(tries = 500)
    void theResultIsASuffixOfWholeTurnsWithinTheLimits(
            @ForAll("turns") List<List<Message>> turns,
            @ForAll @IntRange(min = 1, max = 40) int maxMessages,
            @ForAll @IntRange(min = 1, max = 400) int maxTokens,
            @ForAll @IntRange(min = 0, max = 300) int reserved) {
        ConversationMemory memory = ConversationMemory.builder().maxMessages(maxMessages).maxTokens(maxTokens)
                .tokenCounter(COUNTER).build();
        turns.forEach(memory::addTurn);

        List<Message> within = memory.messagesWithin(reserved);

        // A suffix of whole turns: find how many of the newest turns it is made of.
        int kept = turnsInSuffix(turns, within);
        assertThat(kept).as("the result is a suffix of whole turns").isGreaterThanOrEqualTo(0);
        if (turns.isEmpty()) {
            assertThat(within).isEmpty();
            return;
        }
        assertThat(kept).as("the newest turn is always kept").isGreaterThanOrEqualTo(1);

        long tokens = within.stream().mapToLong(memory::tokenCount).sum();
        if (kept > 1) {
            assertThat(within.size()).isLessThanOrEqualTo(maxMessages);
            assertThat(tokens + reserved).isLessThanOrEqualTo(maxTokens);
        }
        if (kept < turns.size()) {
            List<Message> older = turns.get(turns.size() - kept - 1);
            long olderTokens = older.stream().mapToLong(memory::tokenCount).sum();
            boolean wouldFit = within.size() + older.size() <= maxMessages
                    && tokens + olderTokens + reserved <= maxTokens;
            assertThat(wouldFit).as("the next older turn was dropped only because it does not fit").isFalse();
        }
        assertThat(memory.messages()).as("the store keeps everything").hasSize(
                turns.stream().mapToInt(List::size).sum());
    }

    @Property(tries = 200)
    void unlimitedMemoryGivesEverything(@ForAll("turns") List<List<Message>> turns,
            @ForAll @IntRange(min = 0, max = 1_000_000) int reserved) {
        ConversationMemory memory = ConversationMemory.builder().build();
        turns.forEach(memory::addTurn);

        assertThat(memory.messagesWithin(reserved)).isEqualTo(turns.stream().flatMap(List::stream).toList());
    }

    @Property(tries = 200)
    void moreReservationNeverGivesMoreHistory(@ForAll("turns") List<List<Message>> turns,
            @ForAll @IntRange(min = 1, max = 400) int maxTokens,
            @ForAll @IntRange(min = 0, max = 300) int reserved,
            @ForAll @IntRange(min = 0, max = 300) int more) {
        ConversationMemory memory = ConversationMemory.builder().maxTokens(maxTokens).build();
        turns.forEach(memory::addTurn);

        assertThat(memory.messagesWithin(reserved + more).size())
                .isLessThanOrEqualTo(memory.messagesWithin(reserved).size());
    }

    /**
     * How many of the newest turns {@code within} is, concatenated; -1 when it is not such a suffix
     * (it splits a turn or skips one).
     */
    private static int turnsInSuffix(List<List<Message>> turns, List<Message> within) {
        List<Message> suffix = new ArrayList<>();
        for (int kept = 0; kept <= turns.size(); kept++) {
            if (suffix.equals(within)) {
                return kept;
            }
            if (kept < turns.size()) {
                suffix.addAll(0, turns.get(turns.size() - 1 - kept));
            }
        }
        return -1;
    }
}
