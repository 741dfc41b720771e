package dev.bellows.cli;

import dev.bellows.agent.AgentListener;
import dev.bellows.event.AgentEvent;
import dev.bellows.event.LoopEvent;
import dev.bellows.event.StreamEvent;
import dev.bellows.plan.PlanStep;
import dev.bellows.secret.Secrets;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code --output text}: the run's progress on standard error, as it happens. Thinking is
 * shown dim, {@code calling NAME…} the moment the tool's name is known, then the argument that
 * says what the call is about (a write's {@code path}, a search's {@code query}) the moment its
 * value is complete, long before a large call has finished streaming; each tool's result
 * or error in one line, retries, answers without a tool call, and the plan as a checklist,
 * written again only when it changed. The final result is not written here: it goes to
 * standard output.
 *
 * <p>On a terminal, thinking is ANSI dim and a spinner turns while tools run; otherwise the
 * same text comes plain, with no escape codes, so a log file reads cleanly. In an interactive
 * chat (a terminal of known width) the plan is one live block kept below everything else the
 * turn writes: each change redraws that block where it stands, so the screen holds one
 * checklist whose items change; when the turn ends the block stays, as the turn's last plan.
 *
 * <p>The block is always below the cursor, which stays where the turn's text goes on (at the
 * end of a line being streamed, or at the start of the empty row after a whole line): erasing
 * it is erasing everything below the cursor, and it is drawn with the cursor saved and
 * restored (room made first, so that drawing it never scrolls; each of its lines on one row,
 * line wrapping off). Nothing the renderer writes for the block counts rows or columns from
 * the terminal's width, so none of it goes wrong when the terminal's width is not the one the
 * renderer was last told: a terminal reflows its lines at once when resized, but the program
 * learns the new size later (SIGWINCH; tmux tells it at most every 250 ms, the last of several
 * quick resizes later still), and what it wrote meanwhile is laid out at a width it did not
 * know.
 *
 * <p>Events arrive on the run's thread; the spinner has its own, and both write under
 * {@code this}.
 */
final class TextRenderer implements AgentListener, AutoCloseable {

    static final String DIM = "\u001b[2m";
    static final String RESET = "\u001b[0m";
    static final int SUMMARY_LENGTH = 120;
    private static final String FRAMES = "|/-\\";

    private final PrintWriter err;
    private final boolean terminal;

    /** Whether the cursor is not at the start of a line. */
    private boolean midLine;
    /**
     * The current line's text since it began (escape sequences included), laid out again at
     * the terminal's width whenever the cursor's column is needed: a wide character that does
     * not fit at a row's end goes to the next row, and a resize rewraps the line.
     */
    private final StringBuilder lineText = new StringBuilder();
    private boolean inThinking;
    private Thread spinner;

    /**
     * The arguments that say what a call is about, in the order preferred: the first of them to
     * complete is shown under {@code calling NAME…}, once per call.
     */
    static final java.util.Set<String> HEADLINE_ARGUMENTS = java.util.Set.of("path", "file_path", "filepath",
            "filename", "file", "target_file", "query", "q", "search", "pattern", "url", "command", "cmd");
    /** Whether the current tool call's headline argument was shown. */
    private boolean headlineShown;

    /** Tools whose result an interactive chat shows otherwise: as the plan, or as the answer. */
    private static final java.util.Set<String> SHOWN_ELSEWHERE =
            java.util.Set.of("update_plan", "task_completion", "ask_question", "converse");

    /**
     * Terminal columns, to fold ended thinking into one line; 0: thinking stays as written.
     * Changed by {@link #resized} when the user resizes the terminal during the turn.
     */
    private int foldWidth;
    private final StringBuilder thought = new StringBuilder();

    /** Rows of the terminal, to keep the live plan within the screen (a cursor cannot move above it). */
    private int height;

    /** Whether colours (dim) may be written; false with {@code NO_COLOR}, cursor moves still allowed. */
    private final boolean color;

    /** The terminal's size now (columns, rows), asked before each event; null: the size given stays. */
    private java.util.function.Supplier<int[]> sizeNow;

    /** The plan last shown; null before the first. */
    private List<PlanStep> shownPlan;
    /** The live plan block's lines (an interactive chat); null while there is no plan. */
    private List<String> liveLines;
    /**
     * Whether the live block is on the screen, below the cursor: under the line being written
     * (the cursor at its end), or under the empty row where the next line goes (the cursor at
     * its start, where the spinner turns).
     */
    private boolean liveShown;

    TextRenderer(PrintWriter err, boolean terminal) {
        this(err, terminal, 0, 0);
    }

    TextRenderer(PrintWriter err, boolean terminal, int foldWidth) {
        this(err, terminal, foldWidth, 0);
    }

    /**
     * @param foldWidth the terminal's width in columns: on a terminal, thinking that has ended
     *                  is replaced by one dim line (its start) and the plan is one live block;
     *                  0 keeps thinking as streamed and writes each new plan after the rest
     * @param height    the terminal's height in rows; 0 when unknown (24 is assumed)
     */
    TextRenderer(PrintWriter err, boolean terminal, int foldWidth, int height) {
        this(err, terminal, terminal, foldWidth, height);
    }

    /**
     * @param color whether colours may be written too (not with {@code NO_COLOR}: thinking is
     *              then marked {@code thinking: } as in plain text)
     */
    TextRenderer(PrintWriter err, boolean terminal, boolean color, int foldWidth, int height) {
        this.err = err;
        this.terminal = terminal;
        this.color = terminal && color;
        this.foldWidth = Math.max(0, foldWidth);
        this.height = height > 0 ? height : 24;
    }

    /**
     * The terminal now has {@code width} columns and {@code height} rows: the live plan is
     * drawn again at once, cut to the new width, and what is written from now on is laid out
     * for it. Terminals that rewrap their lines on a resize (tmux, VTE, kitty, iTerm2, Windows
     * Terminal) may have wrapped the block's lines: erasing everything below the cursor erases
     * them however many rows they take now.
     */
    synchronized void resized(int width, int height) {
        applySize(width, height);
    }

    /**
     * The terminal was resized (JLine's WINCH): as {@link #resized(int, int)} with the size
     * {@link #followSize} gives, asked under the renderer's lock, so that of two signals
     * handled out of order the older size is never applied last.
     */
    synchronized void resized() {
        if (sizeNow != null) {
            int[] size = sizeNow.get();
            applySize(size[0], size[1]);
        }
    }

    /**
     * Asks {@code size} for the terminal's size (columns, rows) before each event, so that a
     * resize whose signal has not been handled yet is laid out for all the same: a redraw at
     * the old width is what leaves a stale block. A terminal answers in microseconds.
     */
    synchronized TextRenderer followSize(java.util.function.Supplier<int[]> size) {
        this.sizeNow = size;
        return this;
    }

    private void applySize(int width, int height) {
        if (!live() || width <= 0 || (width == foldWidth && height == this.height)) {
            return;
        }
        hideLive(); // the block, however the terminal rewrapped its lines
        foldWidth = width;
        this.height = height > 0 ? height : this.height;
        if (shownPlan != null && liveLines != null) {
            liveLines = checklist(shownPlan, Math.max(2, this.height - 2));
        }
        showLive();
        err.flush();
    }

    /** Streamed thinking and answer text, redacted though a secret be split between chunks. */
    private final Secrets.Streaming streamed = Secrets.streaming();

    /** Whether anything of the current model answer was shown, so a retry must disown it. */
    private boolean shownOfThisAttempt;

    @Override
    public synchronized void onEvent(AgentEvent event) {
        if (sizeNow != null) {
            int[] size = sizeNow.get();
            applySize(size[0], size[1]);
        }
        stopSpinner();
        if (event instanceof StreamEvent) {
            shownOfThisAttempt = true;
        }
        if (!(event instanceof StreamEvent.ThinkingContent || event instanceof StreamEvent.MessageContent)) {
            String held = Shown.controls(streamed.flush()); // the streamed text ended: what may have begun a secret
            if (!held.isEmpty()) {
                if (inThinking) {
                    thought.append(held);
                }
                write(held);
            }
        }
        switch (event) {
            case StreamEvent.ThinkingStart e -> {
                newLine();
                inThinking = true;
                thought.setLength(0);
                write(color ? DIM : "thinking: ");
            }
            case StreamEvent.ThinkingContent e -> {
                String content = Shown.controls(streamed.next(e.content()));
                thought.append(content);
                write(content);
            }
            case StreamEvent.ThinkingEnd e -> {
                inThinking = false;
                if (terminal && foldWidth > 0) {
                    hideLive();
                    fold();
                } else if (color) {
                    write(RESET);
                }
                newLine();
            }
            case StreamEvent.MessageStart e -> { }
            case StreamEvent.MessageContent e -> {
                if (!midLine && e.content().isBlank()) {
                    return; // no empty lines between blocks
                }
                write(Shown.controls(streamed.next(midLine ? e.content() : e.content().stripLeading())));
            }
            case StreamEvent.MessageEnd e -> newLine();
            case StreamEvent.ToolCallStart e -> {
                newLine();
                headlineShown = false;
            }
            case StreamEvent.ToolCallName e -> line("calling " + Shown.text(e.toolName()) + "\u2026");
            case StreamEvent.ToolCallArgument e -> {
                if (!headlineShown && HEADLINE_ARGUMENTS.contains(e.name()) && e.value().isString()
                        && !e.value().stringValue(null).isBlank()) {
                    headlineShown = true;
                    line(fit("  " + e.name() + ": " + Shown.text(summary(e.value().stringValue(null)))));
                }
            }
            case StreamEvent.ToolCallContent e -> { }
            case StreamEvent.Section e -> { }
            case StreamEvent.ToolCallEnd e -> {
                if (e.call() != null) {
                    newLine(); // the spinner turns at the start of a row of its own
                    startSpinner();
                }
            }
            case StreamEvent.Complete e -> { }
            case LoopEvent.SubAgentEvent e -> subAgent(e);
            case LoopEvent.LoopStart e -> { }
            case LoopEvent.IterationStart e -> {
                shownOfThisAttempt = false;
                if (e.iteration() > 1 && terminal) {
                    line(color ? DIM + "- iteration " + e.iteration() + RESET : "- iteration " + e.iteration());
                }
            }
            case LoopEvent.ToolResultEvent e -> {
                if (foldWidth > 0 && SHOWN_ELSEWHERE.contains(e.toolName())) {
                    break; // the checklist or the answer that follows says it better
                }
                line(fit("  \u2713 " + Shown.text(e.toolName()) + ": " + summary(e.result())));
            }
            case LoopEvent.ToolResultError e ->
                    line(fit("  \u2717 " + (e.toolName() == null ? "tool call" : Shown.text(e.toolName())) + ": "
                            + summary(e.error())));
            case LoopEvent.NoToolCall e -> line("  (no tool call in iteration " + e.iteration() + ": reminding the model)");
            case LoopEvent.PlanUpdate e -> {
                if (e.steps().equals(shownPlan)) {
                    break; // the same checklist again says nothing new
                }
                shownPlan = List.copyOf(e.steps());
                if (live()) {
                    hideLive();
                    liveLines = checklist(shownPlan, Math.max(2, height - 2));
                } else {
                    line(String.join(System.lineSeparator(), checklist(shownPlan, Integer.MAX_VALUE)));
                }
            }
            case LoopEvent.Retry e -> {
                line("retrying (attempt " + e.attempt() + ") in " + e.delayMs() + " ms: " + summary(e.reason())
                        + (shownOfThisAttempt ? "; the partial answer above is discarded" : ""));
                shownOfThisAttempt = false;
            }
            case LoopEvent.ApprovalRequired e ->
                    line(fit("  ? " + e.toolName() + " (" + e.serverName() + ") waits for approval: " + e.id()));
            case LoopEvent.Approval e -> line(fit(e.approved() ? "  approved " + e.id()
                    : "  denied " + e.id() + (e.reason().isBlank() ? "" : ": " + summary(e.reason()))));
            case LoopEvent.Handoff e -> {
                newLine();
                line(fit(Shown.text(e.from()) + " hands the conversation to " + Shown.text(e.to())));
            }
            case LoopEvent.LoopEnd e -> {
                if (inThinking && color) {
                    write(RESET);
                }
                newLine();
            }
        }
        showLive();
        err.flush();
    }

    /**
     * A sub-agent's work, indented two spaces a level under a line naming it: its task, the tools
     * it calls, their results and its answer. Its streamed text is left out: its answer says it.
     */
    private void subAgent(LoopEvent.SubAgentEvent e) {
        String indent = "  ".repeat(e.depth());
        String agent = Shown.text(e.deepest().agent());
        String shown = switch (e.innermost()) {
            case LoopEvent.LoopStart start -> "agent " + agent + ": " + summary(start.task());
            case StreamEvent.ToolCallName name -> "  " + agent + " calls " + Shown.text(name.toolName()) + "\u2026";
            case LoopEvent.ToolResultEvent result ->
                    "  \u2713 " + Shown.text(result.toolName()) + ": " + summary(result.result());
            case LoopEvent.ToolResultError error -> "  \u2717 " + (error.toolName() == null ? "tool call"
                    : Shown.text(error.toolName())) + ": " + summary(error.error());
            case LoopEvent.ApprovalRequired waiting -> "  ? " + Shown.text(waiting.toolName()) + " ("
                    + Shown.text(waiting.serverName()) + ") waits for approval: " + waiting.id();
            case LoopEvent.Approval decided -> decided.approved() ? "  approved " + decided.id()
                    : "  denied " + decided.id();
            case LoopEvent.LoopEnd end -> "  " + agent + " " + end.reason().wireName() + ": " + summary(end.result());
            case LoopEvent.Handoff handoff -> "  " + Shown.text(handoff.from()) + " hands the conversation to "
                    + Shown.text(handoff.to());
            default -> null;
        };
        if (shown != null) {
            newLine();
            line(fit(indent + shown));
        }
    }

    @Override
    public synchronized void close() {
        stopSpinner();
        if (inThinking && color) {
            write(RESET);
        }
        newLine();
        hideLive();
        if (liveLines != null) { // the last plan stays, part of what the turn wrote, the cursor after it
            for (String line : liveLines) {
                err.print(line + System.lineSeparator());
            }
        }
        liveLines = null;
        err.flush();
    }

    /** Whether the plan is a live block: an interactive chat on a terminal of known width. */
    private boolean live() {
        return terminal && foldWidth > 0;
    }

    /**
     * The checklist's lines: a heading, then one line per step (cut to the terminal's width),
     * at most {@code maxLines} in all; steps beyond are counted on the last line.
     */
    private List<String> checklist(List<PlanStep> steps, int maxLines) {
        List<String> lines = new ArrayList<>();
        lines.add(steps.isEmpty() ? "plan: (no steps)" : "plan:");
        for (int i = 0; i < steps.size(); i++) {
            if (lines.size() == maxLines - 1 && i < steps.size() - 1) {
                lines.add("  \u2026 " + (steps.size() - i) + " more");
                break;
            }
            PlanStep step = steps.get(i);
            lines.add(fit("  " + step.status().checkbox() + ' ' + Shown.text(step.description())));
        }
        return lines;
    }

    /**
     * Erases the live plan block, so that what follows is written where it was (and the block
     * drawn again below): it is below the cursor, so everything below the cursor is erased,
     * however many rows a resize rewrapped it onto.
     */
    private void hideLive() {
        if (liveShown) {
            err.print("\u001b[J");
            liveShown = false;
        }
    }

    /**
     * Draws the live plan block below the cursor, which stays where it is: at the end of a line
     * still being written (a streaming answer), so the next text continues it, or at the start
     * of the empty row after a whole line. Room for the block is made first ({@code ESC D}
     * moves down a row, keeping the column, and scrolls at the bottom; then back up), so that
     * drawing it never scrolls and the saved cursor ({@code ESC 7}) is still on the text when
     * it is restored ({@code ESC 8}); each line takes one row (line wrapping off while it is
     * drawn). A line that has just filled its last column leaves the cursor waiting to wrap, a
     * place a restored cursor does not return to: the block waits for the next text or the
     * line's end then.
     */
    private void showLive() {
        if (liveLines == null || liveShown) {
            return;
        }
        if (midLine) {
            int at = layout(lineText, foldWidth)[1];
            if (at == 0 || at == foldWidth) {
                return;
            }
        }
        int rows = liveLines.size();
        StringBuilder block = new StringBuilder("\u001bD".repeat(rows)).append("\u001b[").append(rows).append('A')
                .append("\u001b7").append(inThinking && color ? RESET : "") // the plan is not dim with thinking
                .append("\u001b[?7l");
        for (String line : liveLines) {
            block.append('\r').append(System.lineSeparator()).append(line);
        }
        block.append("\u001b[?7h\u001b8").append(inThinking && color ? DIM : "");
        err.print(block);
        liveShown = true;
    }

    /** Whether {@code text} continues the current line within its row (no new line, no wrap). */
    private boolean fitsOnRow(String text) {
        return text.indexOf('\n') < 0 && text.indexOf('\r') < 0
                && layout(lineText, foldWidth)[1] + columns(text, 0) < foldWidth;
    }

    /**
     * The terminal columns {@code text} takes after {@code start} columns of its line, by the
     * width of each character (two for wide East Asian ones); escape sequences take none.
     */
    static int columns(String text, int start) {
        int at = start;
        for (int i = 0; i < text.length(); ) {
            int c = text.codePointAt(i);
            if (c == '\u001b' && i + 1 < text.length() && text.charAt(i + 1) == '[') {
                i += 2;
                while (i < text.length() && (text.charAt(i) < '@' || text.charAt(i) > '~')) {
                    i++;
                }
                i++;
                continue;
            }
            if (c == '\n' || c == '\r') {
                at = 0;
            } else {
                at += cells(c);
            }
            i += Character.charCount(c);
        }
        return at;
    }

    /**
     * Replaces the thinking just streamed (from the start of its first row) with one dim line:
     * the rows it took are counted from its lines and the terminal's width, the cursor moved up
     * to its first row, and everything below erased.
     */
    private void fold() {
        int rows = 0;
        // without colour the thinking was written after "thinking: ", on its first row
        for (String line : ((color ? "" : "thinking: ") + thought).split("\n", -1)) {
            rows += layout(line, foldWidth)[0] + 1; // wide characters take two
        }
        String text = thought.toString().strip();
        if (text.isEmpty()) {
            if (color) {
                err.print(RESET);
            }
            return;
        }
        String folded = cut("thinking: " + summary(text), Math.max(12, foldWidth - 1));
        err.print((color ? RESET : "") + "\r" + (rows > 1 ? "\u001b[" + (rows - 1) + "A" : "") + "\u001b[J"
                + (color ? DIM + folded + RESET : folded));
        midLine = true;
        lineText.setLength(0);
        lineText.append(folded);
    }

    /** {@code text} cut to the terminal's width (when known), so a result takes one row. */
    private String fit(String text) {
        return foldWidth <= 1 ? text : cut(text, foldWidth - 1);
    }

    /**
     * Where {@code text}, written from the start of a row of a terminal {@code width} columns
     * wide, leaves the cursor: the rows it went down and its column ({@code width} when the
     * last column was just filled and the cursor waits to wrap). A character that does not fit
     * in the rest of a row (a wide one in the last column) goes to the next row, as terminals
     * do; escape sequences take no room.
     */
    static int[] layout(CharSequence text, int width) {
        int row = 0;
        int at = 0;
        for (int i = 0; i < text.length(); ) {
            int c = Character.codePointAt(text, i);
            if (c == '\u001b' && i + 1 < text.length() && text.charAt(i + 1) == '[') {
                i += 2;
                while (i < text.length() && (text.charAt(i) < '@' || text.charAt(i) > '~')) {
                    i++;
                }
                i++;
                continue;
            }
            i += Character.charCount(c);
            if (c == '\r') {
                at = 0;
            } else if (c == '\n') {
                row++;
                at = 0;
            } else {
                int cells = cells(c);
                if (at + cells > width && width > 0) {
                    row++;
                    at = 0;
                }
                at += cells;
            }
        }
        return new int[] {row, at};
    }

    /**
     * The columns a terminal gives {@code c}: JLine's table (two for wide East Asian
     * characters, none for combining marks), and two for every emoji shown as one by default
     * ({@code ✅}, {@code ⌛}: JLine's older table gives some of them one, terminals two).
     */
    static int cells(int c) {
        return Character.isEmojiPresentation(c) ? 2 : Math.max(0, org.jline.utils.WCWidth.wcwidth(c));
    }

    /**
     * {@code text} in at most {@code room} terminal columns, by the width of each character
     * (an emoji or a wide East Asian character takes two): cut with an ellipsis when longer.
     */
    static String cut(String text, int room) {
        if (columns(text, 0) <= room) {
            return text;
        }
        int used = 0;
        int end = 0;
        while (end < text.length()) {
            int c = text.codePointAt(end);
            int cells = cells(c);
            if (used + cells > room - 1) { // one column left for the ellipsis
                break;
            }
            used += cells;
            end += Character.charCount(c);
        }
        return text.substring(0, end) + "\u2026";
    }

    /**
     * The first line of {@code text}, at most {@link #SUMMARY_LENGTH} characters, secrets
     * redacted and control characters made visible ({@link Shown}).
     */
    static String summary(String text) {
        String stripped = Shown.text(text.strip().replace("\r\n", "\n"));
        int end = stripped.indexOf('\n');
        String first = (end < 0 ? stripped : stripped.substring(0, end)).strip();
        boolean more = end >= 0 || first.length() > SUMMARY_LENGTH;
        if (first.length() > SUMMARY_LENGTH) {
            first = first.substring(0, SUMMARY_LENGTH);
        }
        return first + (more ? "\u2026" : "");
    }

    private void line(String text) {
        hideLive();
        newLine();
        err.print(text);
        err.println();
        midLine = false;
        lineText.setLength(0);
    }

    private void write(String text) {
        if (text.isEmpty()) {
            return;
        }
        if (!(liveShown && fitsOnRow(text))) {
            hideLive(); // else the text goes on within its row, above the block, which stays
        }
        err.print(text);
        midLine = !text.endsWith("\n");
        int end = text.lastIndexOf('\n');
        if (end >= 0) {
            lineText.setLength(0);
        }
        lineText.append(text, end + 1, text.length());
    }

    private void newLine() {
        if (midLine) {
            hideLive();
            err.println();
            midLine = false;
            lineText.setLength(0);
        }
    }

    /** A turning bar while tools run, on a terminal only; the next event stops it. */
    private void startSpinner() {
        if (!terminal || spinner != null) {
            return;
        }
        spinner = Thread.ofVirtual().name("bellows-spinner").start(() -> {
            int frame = 0;
            try {
                Thread.sleep(150);
                while (!Thread.currentThread().isInterrupted()) {
                    synchronized (this) {
                        if (spinner != Thread.currentThread()) {
                            return;
                        }
                        err.print("\r" + FRAMES.charAt(frame++ % FRAMES.length()) + " ");
                        err.flush();
                    }
                    Thread.sleep(100);
                }
            } catch (InterruptedException e) {
                // stopped
            }
        });
    }

    /**
     * Stops the spinner and erases the live plan while something else asks on the terminal (a
     * server's question); the next tool turns it again, the next event draws the plan again.
     */
    synchronized void pauseSpinner() {
        stopSpinner();
        hideLive(); // the question is written where the block was; the next event draws it again
        err.flush();
    }

    private void stopSpinner() {
        if (spinner != null) {
            spinner.interrupt();
            spinner = null;
            if (terminal) {
                err.print("\r\u001b[K"); // erase the spinner's frame
            }
        }
    }
}
