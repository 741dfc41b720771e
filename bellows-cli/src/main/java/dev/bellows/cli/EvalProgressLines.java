package dev.bellows.cli;

import dev.bellows.eval.EvalProgress;
import java.io.PrintWriter;

/**
 * {@code bellows eval}'s progress on standard error: on a terminal one line redrawn in place, a
 * bar with the runs done and failed; otherwise one plain line per finished run, for logs.
 * The runner calls it one run at a time.
 */
final class EvalProgressLines implements EvalProgress {

    private static final int WIDTH = 30;

    private final PrintWriter stderr;
    private final boolean terminal;
    private int failed;

    EvalProgressLines(PrintWriter stderr, boolean terminal) {
        this.stderr = stderr;
        this.terminal = terminal;
    }

    @Override
    public void started(int runs) {
        if (terminal) {
            bar(0, runs);
        }
    }

    @Override
    public void finished(String caseId, int index, boolean passed, int done, int runs) {
        if (!passed) {
            failed++;
        }
        if (terminal) {
            bar(done, runs);
            if (done == runs) {
                stderr.print("\r\u001b[K");     // the bar gives way to the summary
            }
        } else {
            stderr.println("eval: " + done + "/" + runs + " " + Shown.text(caseId) + " #" + index + " "
                    + (passed ? "passed" : "FAILED"));
        }
        stderr.flush();
    }

    private void bar(int done, int runs) {
        int filled = runs == 0 ? WIDTH : done * WIDTH / runs;
        stderr.print("\r\u001b[K[" + "#".repeat(filled) + ".".repeat(WIDTH - filled) + "] " + done + "/" + runs
                + " runs" + (failed == 0 ? "" : ", " + failed + " failed"));
        stderr.flush();
    }
}
