package dev.bellows.eval.report;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.StringWriter;
import org.junit.jupiter.api.Test;

/** The page's builder written out part after part, reused: the same text as a fresh builder's. */
class HtmlTest {

    @Test
    void writeToGivesWhatTakeGivesAndLeavesTheBuilderEmptyForTheNextPart() throws Exception {
        Html reused = new Html();
        StringWriter written = new StringWriter();
        StringBuilder expected = new StringBuilder();
        // parts shorter and longer than the 8,192-character window, Latin-1 and wider text, a pair split at the window's end
        String[] parts = {"<tr>" + "a".repeat(100), "x".repeat(8191) + "\uD83D\uDE00" + "y".repeat(9000), "caf\u00e9 \u2014 <b>",
                "z".repeat(20_000), ""};
        for (String part : parts) {
            Html fresh = new Html();
            fresh.raw(part).text(part);
            expected.append(fresh.take());
            reused.raw(part).text(part);
            reused.writeTo(written);
            assertThat(reused.length()).isZero();
        }
        assertThat(written.toString()).isEqualTo(expected.toString());
    }
}
