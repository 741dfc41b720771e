package dev.bellows.tool;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.bellows.memory.ResultLimit;
import dev.bellows.tool.chain.ToolChain;
import tools.jackson.databind.node.JsonNodeFactory;
import dev.bellows.memory.EstimatingTokenCounter;
import dev.bellows.tool.ToolCallOutcome.Failed;
import dev.bellows.tool.ToolCallOutcome.Succeeded;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * What the model reads of a result longer than the limit: its beginning and a note that says it
 * was cut and by how much, counted on what the tool sent, also when part of it was cut as it
 * arrived (an MCP transport's arrival note) and whatever the tool's origin or outcome.
 */
class ResultLimitTest {

    private static final EstimatingTokenCounter ESTIMATE = new EstimatingTokenCounter();
    private static final ResultLimit THOUSAND = new ResultLimit(1000, ESTIMATE);

    private static String note(String cut) {
        return cut.substring(cut.lastIndexOf("[this result was cut: "));
    }

    /** "[this result was cut: X of its Y characters ..." read back as {X, Y}. */
    private static long[] counts(String cut) {
        String note = cut.substring(cut.lastIndexOf("[this result was cut: "));
        String[] words = note.replace(",", "").split(" ");
        return new long[] {Long.parseLong(words[4]), Long.parseLong(words[7])};
    }

    @Test
    void a_text_within_the_limit_is_left_alone_with_any_arrival_note_in_it() {
        String text = "short" + ResultLimit.arrivalNote(12_345);
        assertThat(THOUSAND.apply(text)).isSameAs(text);
        assertThat(THOUSAND.apply(null)).isNull();
    }

    @Test
    void a_long_text_keeps_its_beginning_and_says_exactly_how_much_was_left_out() {
        String text = "line of text\n".repeat(10_000); // 130,000 characters, 32,500 tokens estimated
        String cut = THOUSAND.apply(text);
        assertThat(text).startsWith(cut.substring(0, cut.indexOf("\n\n[this result was cut")));
        int kept = cut.indexOf(System.lineSeparator() + System.lineSeparator() + "[this result was cut");
        assertThat(counts(cut)).containsExactly(text.length() - kept, text.length());
        assertThat(note(cut)).contains("(about 32,500 tokens in all)").endsWith("to keep it within 1,000 tokens;"
                + " ask for a smaller part if you need more]");
        assertThat(ESTIMATE.count(cut)).isLessThanOrEqualTo(1000);
    }

    @Test
    void a_text_cut_as_it_arrived_is_said_to_have_been_as_long_as_the_tool_sent_it() {
        // The transport kept 2,000,000 of 50,000,000 characters and said so at the text's end,
        // far beyond the part the limit keeps: that note is cut away, this one counts it.
        String arrived = "x".repeat(2_000_000) + ResultLimit.arrivalNote(48_000_000);
        String cut = THOUSAND.apply(arrived);
        long kept = cut.indexOf(System.lineSeparator() + System.lineSeparator() + "[this result was cut");
        assertThat(cut.contains("as they arrived")).isFalse();
        assertThat(counts(cut)).containsExactly(50_000_000 - kept, 50_000_000L);
        assertThat(note(cut)).contains("(about 12,500,0"); // 4 characters a token; the note's own words are counted in

        assertThat(ESTIMATE.count(cut)).isLessThanOrEqualTo(1000);
    }

    @Test
    void an_arrival_note_in_the_kept_part_stays_and_the_totals_count_it() {
        String note = ResultLimit.arrivalNote(5_000);
        String text = "first part" + note + "\nsecond part " + "y".repeat(10_000);
        String cut = THOUSAND.apply(text);
        assertThat(cut).contains("first part" + note + "\nsecond part");
        long sent = text.length() - note.length() + 5_000;
        long keptOfSent = cut.indexOf(System.lineSeparator() + System.lineSeparator() + "[this result was cut")
                - note.length();
        assertThat(counts(cut)).containsExactly(sent - keptOfSent, sent);
    }

    @Test
    void a_cut_that_would_fall_inside_an_arrival_note_falls_before_it() {
        String note = ResultLimit.arrivalNote(7_000_000);
        int movedBefore = 0;
        for (int before = 3_550; before <= 3_750; before += 3) { // around where 920 tokens (1,000 less the note's room) end
            String text = "z".repeat(before) + note + "w".repeat(20_000);
            String cut = THOUSAND.apply(text);
            String kept = cut.substring(0, cut.indexOf(System.lineSeparator() + System.lineSeparator() + "[this"));
            boolean wholeNote = kept.startsWith("z".repeat(before) + note);
            assertThat(wholeNote || kept.length() <= before).as("cut at %d: %s", before, kept).isTrue();
            if (kept.length() == before) {
                movedBefore++;
            }
            long sent = text.length() - note.length() + 7_000_000;
            long keptOfSent = wholeNote ? kept.length() - note.length() : kept.length();
            assertThat(counts(cut)).as("cut at %d", before).containsExactly(sent - keptOfSent, sent);
        }
        assertThat(movedBefore).as("cuts that fell inside the note and were moved before it").isPositive();
    }

    @Test
    void the_closing_words_without_a_number_are_the_result_s_own_text() {
        String text = "a" + " more characters cut by Bellows as they arrived]".repeat(2_000);
        String cut = THOUSAND.apply(text);
        long kept = cut.indexOf(System.lineSeparator() + System.lineSeparator() + "[this result was cut");
        assertThat(counts(cut)).containsExactly(text.length() - kept, text.length());
    }

    @Test
    void an_arrival_note_says_a_count_that_is_not_negative() {
        assertThat(ResultLimit.arrivalNote(0)).isEqualTo("... [0 more characters cut by Bellows as they arrived]");
        assertThatThrownBy(() -> ResultLimit.arrivalNote(-1)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void a_local_tool_s_result_and_its_error_both_reach_the_model_cut_with_the_note() {
        String big = "0123456789".repeat(100_000);
        ToolRegistry registry = new ToolRegistry()
                .register(TestTool.of("reads", (c, a) -> ToolResult.of(big)))
                .register(TestTool.of("fails", (c, a) -> {
                    throw new ToolException(big);
                }))
                .register(TestTool.of("throws", (c, a) -> {
                    throw new IllegalStateException(big);
                }));
        ToolChain chain = new ToolChain(registry).withResultLimit(THOUSAND);
        List<ToolCallOutcome> outcomes = chain.execute(List.of(
                new ToolCall(ToolCall.LOCAL_SERVER, "reads", JsonNodeFactory.instance.objectNode()),
                new ToolCall(ToolCall.LOCAL_SERVER, "fails", JsonNodeFactory.instance.objectNode()),
                new ToolCall(ToolCall.LOCAL_SERVER, "throws", JsonNodeFactory.instance.objectNode()))).outcomes();
        assertThat(outcomes.get(0)).isInstanceOf(Succeeded.class);
        assertThat(outcomes.get(1)).isInstanceOf(Failed.class);
        assertThat(outcomes.get(2)).isInstanceOf(Failed.class);
        for (ToolCallOutcome outcome : outcomes) {
            assertThat(outcome.text()).contains("[this result was cut: ").contains("to keep it within 1,000 tokens");
            assertThat(ESTIMATE.count(outcome.text())).isLessThanOrEqualTo(1000);
        }
        assertThat(counts(outcomes.get(0).text())[1]).isEqualTo(big.length());
        assertThat(counts(outcomes.get(1).text())[1]).isEqualTo(big.length());
        assertThat(outcomes.get(2).text()).startsWith("tool throws failed: IllegalStateException: 0123456789");
    }

    @Test
    void a_text_cut_as_it_arrived_keeps_the_count_of_what_its_dropped_notes_replaced() {
        // Two texts of a result, each already cut by a transport, then the whole cut again.
        String first = "a".repeat(500) + ResultLimit.arrivalNote(9_500);
        String second = "b".repeat(700) + ResultLimit.arrivalNote(99_300);
        String text = first + second;
        long sent = 10_000 + 100_000;

        String cut = ResultLimit.cutAsArrived(text, 520); // inside the first note: kept whole or not at all
        assertThat(cut).startsWith("a".repeat(500)).doesNotContain("bbb");
        assertThat(cut).isEqualTo("a".repeat(500) + ResultLimit.arrivalNote(sent - 500));
        assertThat(ResultLimit.cutAsArrived(text, text.length())).isSameAs(text);
        assertThatThrownBy(() -> ResultLimit.cutAsArrived(text, -1)).isInstanceOf(IllegalArgumentException.class);

        // The loop's limit after it still says what the tool sent.
        String twice = new ResultLimit(100, ESTIMATE).apply(ResultLimit.cutAsArrived(text, first.length() + 300));
        assertThat(counts(twice)[1]).isEqualTo(sent);
    }

    @Test
    void a_cut_as_it_arrived_never_splits_a_surrogate_pair() {
        String text = "x" + "\uD83D\uDE00".repeat(10);
        String cut = ResultLimit.cutAsArrived(text, 2);
        assertThat(cut).isEqualTo("x" + ResultLimit.arrivalNote(20));
    }
}
