package dev.bellows.temporal.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bellows.memory.EstimatingTokenCounter;
import dev.bellows.memory.ResultLimit;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** A tool result too large for a run's history: cut on the worker, counted on what the tool sent. */
class ToolResultCutTest {

    @Test
    void aResultWithinTheBoundIsRecordedAsItIs() {
        String text = "é".repeat(ToolActivitiesImpl.MAX_RESULT_BYTES / 2);
        assertThat(ToolActivitiesImpl.cut(text)).isSameAs(text);
        assertThat(ToolActivitiesImpl.cut(null)).isNull();
    }

    @Test
    void aLargerResultIsCutToTheBoundAtACharacterWithTheCountOfWhatTheToolSent() {
        // An MCP text cut as it arrived (its transport's note), then too large for the history.
        int arrived = 2_000_000;
        long sentByServer = 50_000_000;
        String text = "é".repeat(arrived) + ResultLimit.arrivalNote(sentByServer - arrived);

        String recorded = ToolActivitiesImpl.cut(text);

        assertThat(recorded.getBytes(StandardCharsets.UTF_8).length).isLessThanOrEqualTo(ToolActivitiesImpl.MAX_RESULT_BYTES);
        String kept = recorded.substring(0, recorded.indexOf("... ["));
        assertThat(kept).matches("é+");
        assertThat(recorded).endsWith(ResultLimit.arrivalNote(sentByServer - kept.length()));
        // The loop's limit, in the workflow, then tells the model the size the server sent.
        String seen = new ResultLimit(1000, new EstimatingTokenCounter()).apply(recorded);
        assertThat(seen).contains("of its 50,000,000 characters");
    }
}
