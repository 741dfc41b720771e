package dev.bellows.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;

class EvalProgressLinesTest {

    @Test
    void withoutATerminalEachRunIsAPlainLine() {
        StringWriter text = new StringWriter();
        EvalProgressLines progress = new EvalProgressLines(new PrintWriter(text), false);
        progress.started(2);
        progress.finished("capital", 1, true, 1, 2);
        progress.finished("sum\u001b[2J", 1, false, 2, 2);
        assertThat(text.toString()).isEqualTo("eval: 1/2 capital #1 passed\neval: 2/2 sum^[[2J #1 FAILED\n"
                .replace("\n", System.lineSeparator()));
    }

    @Test
    void onATerminalOneBarIsRedrawnInPlaceThenCleared() {
        StringWriter text = new StringWriter();
        EvalProgressLines progress = new EvalProgressLines(new PrintWriter(text), true);
        progress.started(4);
        progress.finished("a", 1, true, 1, 4);
        progress.finished("a", 2, false, 2, 4);
        assertThat(text.toString()).isEqualTo("\r\u001b[K[" + ".".repeat(30) + "] 0/4 runs"
                + "\r\u001b[K[" + "#".repeat(7) + ".".repeat(23) + "] 1/4 runs"
                + "\r\u001b[K[" + "#".repeat(15) + ".".repeat(15) + "] 2/4 runs, 1 failed");
        progress.finished("b", 1, true, 3, 4);
        progress.finished("b", 2, true, 4, 4);
        assertThat(text.toString()).endsWith("] 4/4 runs, 1 failed\r\u001b[K").doesNotContain("\n");
    }
}
