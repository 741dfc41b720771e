package dev.bellows.cli;

import dev.bellows.json.internal.Jackson;
import static org.assertj.core.api.Assertions.assertThat;

import tools.jackson.databind.node.ObjectNode;
import dev.bellows.event.AgentEvent;
import dev.bellows.tool.LoopEndReason;
import dev.bellows.event.LoopEvent;
import dev.bellows.event.StreamEvent;
import dev.bellows.plan.PlanStatus;
import dev.bellows.plan.PlanStep;
import dev.bellows.tool.ToolCall;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Golden renderings of every event type, as {@code bellows chat} shows them: plain (a script,
 * a pipe) and ANSI (a terminal of 40 columns, thinking folded once it ends); and of a
 * Markdown answer both ways.
 */
class ChatRenderingTest {

    private static final String D = TextRenderer.DIM;
    private static final String R = TextRenderer.RESET;
    private static final ObjectNode ARGS = Jackson.JSON.createObjectNode().put("path", "a.txt");

    /** One of each event, in the order a turn with a tool, a plan, a retry and an answer has them. */
    private static final List<AgentEvent> TURN = List.of(
            new LoopEvent.LoopStart("read a.txt"),
            new LoopEvent.IterationStart(1),
            new StreamEvent.ThinkingStart(0, "thinking", Map.of()),
            new StreamEvent.ThinkingContent(0, "I should read\nthe file first"),
            new StreamEvent.ThinkingEnd(0, "I should read\nthe file first"),
            new StreamEvent.MessageStart(0),
            new StreamEvent.MessageContent(0, "Reading it."),
            new StreamEvent.MessageEnd(0, "Reading it."),
            new StreamEvent.ToolCallStart(1, "tool", Map.of()),
            new StreamEvent.ToolCallName(1, "read_file"),
            new StreamEvent.ToolCallContent(1, "{...}"),
            new StreamEvent.ToolCallEnd(1, "{...}", new ToolCall(ToolCall.LOCAL_SERVER, "read_file", ARGS)),
            new LoopEvent.ToolResultEvent(ToolCall.LOCAL_SERVER, "read_file", ARGS,
                    "line one of a rather long file that goes on\nline two"),
            new LoopEvent.ToolResultError(ToolCall.LOCAL_SERVER, "write_file", "no such directory"),
            new LoopEvent.PlanUpdate(List.of(new PlanStep("read", PlanStatus.COMPLETED),
                    new PlanStep("answer", PlanStatus.IN_PROGRESS))),
            new LoopEvent.IterationStart(2),
            new LoopEvent.NoToolCall(2),
            new LoopEvent.Retry(1, "HTTP 503", 500),
            new StreamEvent.Section(2, "answer", "x"),
            new LoopEvent.ToolResultEvent(ToolCall.LOCAL_SERVER, "task_completion", ARGS, "done"),
            new LoopEvent.LoopEnd(LoopEndReason.TASK_COMPLETION, "done"));

    private static String render(boolean terminal, int width) {
        StringWriter text = new StringWriter();
        try (TextRenderer renderer = new TextRenderer(new PrintWriter(text), terminal, width)) {
            TURN.forEach(renderer::onEvent);
        }
        // the spinner's frames depend on how long the tool "runs": only its erasing is certain
        return text.toString().replace(System.lineSeparator(), "\n").replaceAll("\r[|/\\\\-] ", "");
    }

    @Test
    void plainTextHasNoEscapesAndEveryEventInOneLine() {
        assertThat(render(false, 0)).isEqualTo("""
                thinking: I should read
                the file first
                Reading it.
                calling read_file\u2026
                  \u2713 read_file: line one of a rather long file that goes on\u2026
                  \u2717 write_file: no such directory
                plan:
                  [x] read
                  [>] answer
                  (no tool call in iteration 2: reminding the model)
                retrying (attempt 1) in 500 ms: HTTP 503
                  \u2713 task_completion: done
                """);
    }

    @Test
    void aTerminalFoldsThinkingCutsResultsToItsWidthAndLeavesOutWhatTheAnswerShows() {
        String folded = R + "\r\u001b[1A\u001b[J" + D + "thinking: I should read\u2026" + R;
        assertThat(render(true, 40)).isEqualTo(D + "I should read\nthe file first" + folded + "\n"
                + "Reading it.\n"
                + "calling read_file\u2026\n"
                + "\r\u001b[K" // the spinner, erased
                + "  \u2713 read_file: line one of a rather lo\u2026\n" // 39 columns: the 40th stays free
                + "  \u2717 write_file: no such directory\n"
                + LIVE // the live plan block, below the cursor and everything else
                + ERASE + D + "- iteration 2" + R + "\n" + LIVE // erased, the line written, drawn again
                + ERASE + "  (no tool call in iteration 2: reminding the model)\n" + LIVE
                + ERASE + "retrying (attempt 1) in 500 ms: HTTP 503\n" + LIVE
                + ERASE + PLAN); // the turn's last plan, where it was, the cursor after it
    }

    /** The plan of {@link #TURN}, as the turn leaves it. */
    private static final String PLAN = "plan:\n  [x] read\n  [>] answer\n";
    /**
     * The same as the live block while the turn runs: room made below the cursor (3 rows down,
     * scrolling if need be, and back up), the cursor saved, the lines drawn below it with line
     * wrapping off, the cursor restored; nothing in it depends on the terminal's width.
     */
    private static final String LIVE = "\u001bD\u001bD\u001bD\u001b[3A\u001b7\u001b[?7l"
            + "\r\nplan:\r\n  [x] read\r\n  [>] answer\u001b[?7h\u001b8";
    /** What erases the live block: everything below the cursor. */
    private static final String ERASE = "\u001b[J";

    // the path of a write (the query of a search...) the moment it is complete, under its call, once
    @Test
    void theArgumentThatSaysWhatACallIsAboutIsShownAsSoonAsItIsComplete() {
        var text = new StringWriter();
        var nodes = Jackson.JSON.getNodeFactory();
        try (TextRenderer renderer = new TextRenderer(new PrintWriter(text), false, 0)) {
            renderer.onEvent(new StreamEvent.ToolCallStart(0, "tool", Map.of()));
            renderer.onEvent(new StreamEvent.ToolCallName(0, "write_file"));
            renderer.onEvent(new StreamEvent.ToolCallArgument(1, "mode", nodes.stringNode("w")));
            renderer.onEvent(new StreamEvent.ToolCallArgument(1, "path", nodes.stringNode("src/Main.java")));
            renderer.onEvent(new StreamEvent.ToolCallArgument(2, "content", nodes.stringNode("x")));
            renderer.onEvent(new StreamEvent.ToolCallStart(3, "tool", Map.of()));
            renderer.onEvent(new StreamEvent.ToolCallName(3, "search"));
            renderer.onEvent(new StreamEvent.ToolCallArgument(3, "query", nodes.stringNode("jqwik\nchunks")));
            renderer.onEvent(new StreamEvent.ToolCallArgument(3, "path", nodes.stringNode("docs")));
        }
        assertThat(text.toString().replace(System.lineSeparator(), "\n"))
                .isEqualTo("calling write_file\u2026\n  path: src/Main.java\ncalling search\u2026\n  query: jqwik\u2026\n");
    }

    private static LoopEvent.PlanUpdate plan(PlanStatus first, PlanStatus second) {
        return new LoopEvent.PlanUpdate(List.of(new PlanStep("read a.txt", first), new PlanStep("answer", second)));
    }

    private static StreamEvent.ToolCallName calling(String tool) {
        return new StreamEvent.ToolCallName(1, tool);
    }

    private static LoopEvent.ToolResultEvent result(String tool, String text) {
        return new LoopEvent.ToolResultEvent(ToolCall.LOCAL_SERVER, tool, ARGS, text);
    }

    /** A turn whose plan changes twice (and is once written again unchanged) between other tools. */
    private static final List<AgentEvent> PLANNED = List.of(
            new LoopEvent.LoopStart("read a.txt"),
            calling("update_plan"), plan(PlanStatus.IN_PROGRESS, PlanStatus.PENDING),
            calling("read_file"), result("read_file", "hello"),
            calling("update_plan"), plan(PlanStatus.IN_PROGRESS, PlanStatus.PENDING),
            calling("update_plan"), plan(PlanStatus.COMPLETED, PlanStatus.IN_PROGRESS),
            new StreamEvent.MessageContent(0, "Answering"), new StreamEvent.MessageContent(0, " now."),
            new StreamEvent.MessageEnd(0, "Answering now."),
            calling("update_plan"), plan(PlanStatus.COMPLETED, PlanStatus.COMPLETED),
            calling("task_completion"),
            new LoopEvent.LoopEnd(LoopEndReason.TASK_COMPLETION, "done"));

    @Test
    void onATerminalThePlanIsOneChecklistRedrawnInPlace() {
        StringWriter text = new StringWriter();
        Screen screen = new Screen(40);
        try (TextRenderer renderer = new TextRenderer(new PrintWriter(text), true, 40, 20)) {
            for (AgentEvent event : PLANNED) {
                renderer.onEvent(event);
                screen.feed(text.getBuffer().toString());
                text.getBuffer().setLength(0);
                if (event == PLANNED.get(4)) {
                    assertThat(screen.text()).as("while the turn runs: the checklist below the tool lines and"
                                    + " the cursor's row, where the spinner turns and the next line goes")
                            .isEqualTo("calling update_plan\u2026\ncalling read_file\u2026\n"
                                    + "  \u2713 read_file: hello\n\nplan:\n  [>] read a.txt\n  [ ] answer\n");
                    assertThat(screen.beforeCursor()).isEmpty();
                }
                if (event == PLANNED.get(10)) {
                    assertThat(screen.text()).as("an answer streaming above the checklist, which stays")
                            .endsWith("calling update_plan\u2026\nAnswering now.\n"
                                    + "plan:\n  [x] read a.txt\n  [>] answer\n");
                    assertThat(screen.beforeCursor()).as("the cursor where the answer goes on")
                            .isEqualTo("Answering now.");
                }
            }
        }
        screen.feed(text.toString());
        assertThat(screen.text()).as("one checklist, its last state, after everything else the turn wrote")
                .isEqualTo("""
                        calling update_plan\u2026
                        calling read_file\u2026
                          \u2713 read_file: hello
                        calling update_plan\u2026
                        calling update_plan\u2026
                        Answering now.
                        calling update_plan\u2026
                        calling task_completion\u2026
                        plan:
                          [x] read a.txt
                          [x] answer
                        """);
    }

    @Test
    void aLineStreamingPastTheTerminalsWidthKeepsThePlanBelowIt() {
        StringWriter text = new StringWriter();
        Screen screen = new Screen(20);
        String streamed = "";
        try (TextRenderer renderer = new TextRenderer(new PrintWriter(text), true, 20, 20)) {
            renderer.onEvent(plan(PlanStatus.IN_PROGRESS, PlanStatus.PENDING));
            for (int i = 0; i < 9; i++) {
                String delta = i == 4 ? "\u4e2d\u6587 " : "abcdefgh ";     // two wide characters once
                renderer.onEvent(new StreamEvent.MessageContent(0, delta));
                streamed += delta;
                screen.feed(text.getBuffer().toString());
                text.getBuffer().setLength(0);
                String shown = screen.text();
                assertThat(shown).as("after %s", streamed).endsWith("plan:\n  [>] read a.txt\n  [ ] answer\n")
                        .containsOnlyOnce("plan:");
                assertThat(shown.replace("\n", "")).as("after %s", streamed).startsWith(streamed.strip());
                assertThat(screen.beforeCursor()).as("the cursor where the answer goes on")
                        .isEqualTo(shown.substring(0, shown.indexOf("plan:")).lines().reduce((x, y) -> y).orElseThrow());
            }
            renderer.onEvent(new StreamEvent.MessageEnd(0, streamed));
        }
        screen.feed(text.toString());
        assertThat(screen.text()).isEqualTo("""
                abcdefgh abcdefgh ab
                cdefgh abcdefgh \u4e2d\u6587
                 abcdefgh abcdefgh a
                bcdefgh abcdefgh\s
                plan:
                  [>] read a.txt
                  [ ] answer
                """);
    }

    @Test
    void thinkingStreamsAboveThePlanAndFoldsThere() {
        StringWriter text = new StringWriter();
        Screen screen = new Screen(30);
        try (TextRenderer renderer = new TextRenderer(new PrintWriter(text), true, 30, 20)) {
            renderer.onEvent(calling("update_plan"));
            renderer.onEvent(plan(PlanStatus.IN_PROGRESS, PlanStatus.PENDING));
            renderer.onEvent(new StreamEvent.ThinkingStart(0, "thinking", Map.of()));
            for (String delta : List.of("First I read the file,\n", "then I count its lines ", "and answer.")) {
                renderer.onEvent(new StreamEvent.ThinkingContent(0, delta));
                screen.feed(text.getBuffer().toString());
                text.getBuffer().setLength(0);
                assertThat(screen.text()).as("after %s", delta).containsOnlyOnce("plan:")
                        .endsWith("\nplan:\n  [>] read a.txt\n  [ ] answer\n");
            }
            assertThat(screen.text()).isEqualTo("""
                    calling update_plan\u2026
                    First I read the file,
                    then I count its lines and ans
                    wer.
                    plan:
                      [>] read a.txt
                      [ ] answer
                    """);
            renderer.onEvent(new StreamEvent.ThinkingEnd(0, "First I read the file,\nthen I count its lines and answer."));
        }
        screen.feed(text.toString());
        assertThat(screen.text()).as("the thinking folded to one line where it was, the plan below it")
                .isEqualTo("""
                        calling update_plan\u2026
                        thinking: First I read the f\u2026
                        plan:
                          [>] read a.txt
                          [ ] answer
                        """);
    }

    /** Feeds what {@code text} holds to {@code screen} and empties it. */
    private static void show(StringWriter text, Screen screen) {
        screen.feed(text.getBuffer().toString());
        text.getBuffer().setLength(0);
    }

    private static LoopEvent.PlanUpdate longPlan(PlanStatus first, PlanStatus second) {
        return new LoopEvent.PlanUpdate(List.of(new PlanStep("read the file a.txt and count its lines", first),
                new PlanStep("answer with the number \u2705 of lines", second)));
    }

    @Test
    void aNarrowerTerminalGetsThePlanRedrawnAtItsWidthWhereItsLinesWereRewrapped() {
        StringWriter text = new StringWriter();
        Screen screen = new Screen(40);
        try (TextRenderer renderer = new TextRenderer(new PrintWriter(text), true, 40, 20)) {
            renderer.onEvent(calling("update_plan"));
            renderer.onEvent(longPlan(PlanStatus.IN_PROGRESS, PlanStatus.PENDING));
            show(text, screen);
            assertThat(screen.text()).isEqualTo("calling update_plan\u2026\n\nplan:\n"
                    + "  [>] read the file a.txt and count it\u2026\n  [ ] answer with the number \u2705 of lin\u2026\n");
            screen.resize(20); // the terminal rewraps each 39-column line onto two rows
            assertThat(screen.text()).as("what a resize alone leaves").contains("  [>] read the file \na.txt");
            renderer.resized(20, 20);
            show(text, screen);
            assertThat(screen.text()).as("the block drawn again, cut to 20 columns, nothing of the old one left")
                    .isEqualTo("calling update_plan\u2026\n\nplan:\n  [>] read the fil\u2026\n  [ ] answer with \u2026\n");
            renderer.onEvent(calling("read_file"));
            renderer.onEvent(result("read_file", "hello"));
            renderer.onEvent(longPlan(PlanStatus.COMPLETED, PlanStatus.IN_PROGRESS));
        }
        show(text, screen);
        assertThat(screen.text()).isEqualTo("calling update_plan\u2026\ncalling read_file\u2026\n"
                + "  \u2713 read_file: hel\u2026\nplan:\n  [x] read the fil\u2026\n  [>] answer with \u2026\n");
    }

    /**
     * The renderer told a width the terminal does not have, as between a terminal's resize (its
     * lines reflowed at once) and the chat learning of it (SIGWINCH, tmux at most every 250 ms):
     * what it writes meanwhile must not depend on the width, neither below a line being streamed
     * nor after a whole line.
     */
    @Test
    void aWidthTheTerminalDoesNotHaveYetLeavesTheAnswerWholeAndOnePlan() {
        StringWriter text = new StringWriter();
        Screen screen = new Screen(40);
        try (TextRenderer renderer = new TextRenderer(new PrintWriter(text), true, 40, 20)) {
            renderer.onEvent(longPlan(PlanStatus.IN_PROGRESS, PlanStatus.PENDING));
            renderer.onEvent(new StreamEvent.MessageContent(0, "abcdefgh abcdefgh abcdefgh")); // 26 columns
            renderer.resized(20, 20); // the terminal is still 40 wide
            renderer.resized(40, 20);
            renderer.onEvent(new StreamEvent.MessageContent(0, " ijk"));
            renderer.onEvent(new StreamEvent.MessageContent(0, "\nsecond line\n"));
            show(text, screen);
            assertThat(screen.text()).as("below a line being streamed")
                    .isEqualTo("abcdefgh abcdefgh abcdefgh ijk\nsecond line\n\nplan:\n"
                            + "  [>] read the file a.txt and count it\u2026\n  [ ] answer with the number \u2705 of lin\u2026\n");
            renderer.resized(20, 20); // after a whole line: the cursor at the start of the row below it
            renderer.resized(40, 20);
            renderer.onEvent(new StreamEvent.MessageContent(0, "third"));
            renderer.onEvent(new StreamEvent.MessageEnd(0, ""));
        }
        show(text, screen);
        assertThat(screen.text()).as("after a whole line").isEqualTo("abcdefgh abcdefgh abcdefgh ijk\nsecond line\n"
                + "third\nplan:\n  [>] read the file a.txt and count it\u2026\n  [ ] answer with the number \u2705 of lin\u2026\n");
    }

    @Test
    void aWiderTerminalKeepsTheStreamingAnswerAboveOnePlan() {
        StringWriter text = new StringWriter();
        Screen screen = new Screen(20);
        try (TextRenderer renderer = new TextRenderer(new PrintWriter(text), true, 20, 20)) {
            renderer.onEvent(longPlan(PlanStatus.IN_PROGRESS, PlanStatus.PENDING));
            for (int i = 0; i < 4; i++) {
                renderer.onEvent(new StreamEvent.MessageContent(0, "abcdefgh "));
            }
            show(text, screen);
            assertThat(screen.text()).isEqualTo("abcdefgh abcdefgh ab\ncdefgh abcdefgh \nplan:\n"
                    + "  [>] read the fil\u2026\n  [ ] answer with \u2026\n");
            screen.resize(60); // the answer's two rows become one, the block stays below it
            renderer.resized(60, 20);
            show(text, screen);
            assertThat(screen.beforeCursor()).as("the cursor where the answer goes on")
                    .isEqualTo("abcdefgh abcdefgh abcdefgh abcdefgh ");
            for (int i = 0; i < 4; i++) {
                renderer.onEvent(new StreamEvent.MessageContent(0, "\u4e2d\u6587\ud83d\ude00 "));
                show(text, screen);
                String shown = screen.text();
                assertThat(shown).containsOnlyOnce("plan:");
                assertThat(screen.beforeCursor()).as("the cursor right after the answer, wide characters and all")
                        .isEqualTo(shown.substring(0, shown.indexOf("plan:")).lines().reduce((x, y) -> y).orElseThrow());
            }
            renderer.onEvent(new StreamEvent.MessageEnd(0, ""));
        }
        show(text, screen);
        assertThat(screen.text()).isEqualTo("abcdefgh abcdefgh abcdefgh abcdefgh \u4e2d\u6587\ud83d\ude00 "
                + "\u4e2d\u6587\ud83d\ude00 \u4e2d\u6587\ud83d\ude00 \u4e2d\n\u6587\ud83d\ude00 \nplan:\n"
                + "  [>] read the file a.txt and count its lines\n  [ ] answer with the number \u2705 of lines\n");
    }

    @Test
    void thinkingFoldsWholeAfterTheTerminalNarrowedUnderIt() {
        StringWriter text = new StringWriter();
        Screen screen = new Screen(40);
        try (TextRenderer renderer = new TextRenderer(new PrintWriter(text), true, 40, 20)) {
            renderer.onEvent(calling("update_plan"));
            renderer.onEvent(new StreamEvent.ThinkingStart(0, "thinking", Map.of()));
            renderer.onEvent(new StreamEvent.ThinkingContent(0, "First I read the whole file, line by line,\n"
                    + "then I count the lines \u4e2d\u6587"));
            show(text, screen);
            screen.resize(15);
            renderer.resized(15, 20);
            renderer.onEvent(new StreamEvent.ThinkingEnd(0, ""));
        }
        show(text, screen);
        assertThat(screen.text()).as("every row the thinking took at 15 columns replaced by one line")
                .isEqualTo("calling update_\nplan\u2026\nthinking: Fir\u2026\n");
    }

    @Test
    void noColorKeepsTheLiveBlockAndTheFoldButWritesNoColour() {
        StringWriter text = new StringWriter();
        Screen screen = new Screen(40);
        try (TextRenderer renderer = new TextRenderer(new PrintWriter(text), true, false, 40, 20)) {
            TURN.forEach(event -> {
                renderer.onEvent(event);
                assertThat(text.toString()).doesNotContain(D).doesNotContain(R);
                show(text, screen);
            });
        }
        show(text, screen);
        assertThat(screen.text()).isEqualTo("thinking: I should read\u2026\nReading it.\ncalling read_file\u2026\n"
                + "  \u2713 read_file: line one of a rather lo\u2026\n  \u2717 write_file: no such directory\n"
                + "- iteration 2\n  (no tool call in iteration 2: remindin\ng the model)\n"
                + "retrying (attempt 1) in 500 ms: HTTP 503\nplan:\n  [x] read\n  [>] answer\n");
    }

    @Test
    void plainTextWritesThePlanOnlyWhenItChanged() {
        StringWriter text = new StringWriter();
        try (TextRenderer renderer = new TextRenderer(new PrintWriter(text), false, 0)) {
            PLANNED.forEach(renderer::onEvent);
        }
        assertThat(text.toString().replace(System.lineSeparator(), "\n")).isEqualTo("""
                calling update_plan\u2026
                plan:
                  [>] read a.txt
                  [ ] answer
                calling read_file\u2026
                  \u2713 read_file: hello
                calling update_plan\u2026
                calling update_plan\u2026
                plan:
                  [x] read a.txt
                  [>] answer
                Answering now.
                calling update_plan\u2026
                plan:
                  [x] read a.txt
                  [x] answer
                calling task_completion\u2026
                """);
    }

    @Test
    void aPlanTallerThanTheTerminalIsCutToFitIt() {
        StringWriter text = new StringWriter();
        List<PlanStep> steps = new java.util.ArrayList<>();
        for (int i = 1; i <= 12; i++) {
            steps.add(new PlanStep("step " + i, PlanStatus.PENDING));
        }
        Screen screen = new Screen(40);
        try (TextRenderer renderer = new TextRenderer(new PrintWriter(text), true, 40, 8)) {
            renderer.onEvent(new LoopEvent.PlanUpdate(steps));
        }
        screen.feed(text.toString());
        assertThat(screen.text()).as("8 rows: 6 lines, the rest counted")
                .isEqualTo("plan:\n  [ ] step 1\n  [ ] step 2\n  [ ] step 3\n  [ ] step 4\n  \u2026 8 more\n");
    }

    /**
     * Just enough of a terminal to see what a person would: printable text, carriage return,
     * new line (as a terminal's output processing turns it into CR LF), cursor up
     * ({@code ESC [ n A}), erase below ({@code ESC [ J}) and to the end of the line
     * ({@code ESC [ K}), cursor forward ({@code ESC [ n C}), index ({@code ESC D}: down a row,
     * the column kept), save and restore the cursor ({@code ESC 7}, {@code ESC 8}), line
     * wrapping off and on ({@code ESC [ ? 7 l}, {@code ESC [ ? 7 h}: off, a character past the
     * last column takes the last one), and a character after the last column going on to the
     * next row; colours are dropped. Rows never scroll away. A resize
     * rewraps the lines to the new width, as tmux (and VTE, kitty, iTerm2) do: rows that a
     * line filled are joined again and split at the new width, the cursor kept on its character.
     */
    static final class Screen {
        private int width;
        private final List<StringBuilder> rows = new java.util.ArrayList<>(List.of(new StringBuilder()));
        /** Rows that go on in the next one because their text reached the last column (soft wraps). */
        private final java.util.Set<Integer> wrapped = new java.util.HashSet<>();
        private int row;
        private int col;
        private boolean autowrap = true;
        private int savedRow;
        private int savedCol;

        Screen(int width) {
            this.width = width;
        }

        /** The text on the cursor's row before the cursor. */
        String beforeCursor() {
            StringBuilder line = rows.get(row);
            return real(line.substring(0, Math.min(col, line.length())).replace(String.valueOf(WIDE), ""));
        }

        void feed(String output) {
            for (int i = 0; i < output.length(); i++) {
                int point = output.codePointAt(i);
                if (Character.isSupplementaryCodePoint(point)) {
                    i++; // one cell of the model holds one char: an emoji is kept as a stand-in
                }
                char c = standIn(point);
                if (c == '\u001b' && i + 1 < output.length() && "D78".indexOf(output.charAt(i + 1)) >= 0) {
                    switch (output.charAt(++i)) {
                        case 'D' -> {
                            row++;
                            while (rows.size() <= row) {
                                rows.add(new StringBuilder());
                            }
                        }
                        case '7' -> {
                            savedRow = row;
                            savedCol = col;
                        }
                        default -> {
                            row = savedRow;
                            col = savedCol;
                        }
                    }
                } else if (c == '\u001b' && i + 1 < output.length() && output.charAt(i + 1) == '[') {
                    int end = i + 2;
                    while (!Character.isLetter(output.charAt(end))) {
                        end++;
                    }
                    String arg = output.substring(i + 2, end);
                    switch (output.charAt(end)) {
                        case 'A' -> row = Math.max(0, row - (arg.isEmpty() ? 1 : Integer.parseInt(arg)));
                        case 'C' -> col = Math.min(width - 1, col + (arg.isEmpty() ? 1 : Integer.parseInt(arg)));
                        case 'J' -> {
                            cut(rows.get(row), col);
                            rows.subList(row + 1, rows.size()).clear();
                            wrapped.removeIf(r -> r >= row);
                        }
                        case 'K' -> {
                            cut(rows.get(row), col);
                            wrapped.remove(row);
                        }
                        case 'l', 'h' -> {
                            if (arg.equals("?7")) {
                                autowrap = output.charAt(end) == 'h';
                            }
                        }
                        default -> { } // colours
                    }
                    i = end;
                } else if (c == '\r') {
                    col = 0;
                } else if (c == '\n') {
                    row++;
                    col = 0;
                    while (rows.size() <= row) {
                        rows.add(new StringBuilder());
                    }
                } else {
                    int cells = TextRenderer.cells(point); // 2 for a wide East Asian character or an emoji
                    if (col + cells > width && !autowrap) {
                        col = width - cells; // no wrapping: it takes the last column
                    } else if (col + cells > width) { // past the last column: the character wraps
                        wrapped.add(row);
                        row++;
                        col = 0;
                        while (rows.size() <= row) {
                            rows.add(new StringBuilder());
                        }
                    }
                    put(c);
                    if (cells == 2) {
                        put(WIDE);
                    }
                }
            }
        }

        /**
         * The terminal is now {@code columns} wide: each line (a row and the rows its text
         * wrapped onto) is split again at the new width, a wide character never cut in two.
         */
        void resize(int columns) {
            List<StringBuilder> lines = new java.util.ArrayList<>();
            int cursorLine = 0;
            int cursorAt = 0;
            StringBuilder line = new StringBuilder();
            for (int r = 0; r < rows.size(); r++) {
                if (r == row) {
                    cursorLine = lines.size();
                    cursorAt = line.length() + col;
                }
                line.append(rows.get(r));
                if (!wrapped.contains(r)) {
                    lines.add(line);
                    line = new StringBuilder();
                }
            }
            if (!line.isEmpty()) {
                lines.add(line);
            }
            rows.clear();
            wrapped.clear();
            width = columns;
            for (int l = 0; l < lines.size(); l++) {
                String text = lines.get(l).toString();
                int start = 0;
                do {
                    int end = Math.min(text.length(), start + columns);
                    if (end < text.length() && text.charAt(end) == WIDE) {
                        end--; // the wide character goes on the next row whole
                    }
                    boolean last = end >= text.length();
                    if (l == cursorLine && cursorAt >= start && (cursorAt < end || last)) {
                        row = rows.size();
                        col = Math.min(columns, cursorAt - start);
                    }
                    if (!last) {
                        wrapped.add(rows.size());
                    }
                    rows.add(new StringBuilder(text.substring(start, end)));
                    start = end;
                } while (start < text.length());
            }
            if (rows.isEmpty()) {
                rows.add(new StringBuilder());
            }
        }

        /** Emoji (beyond 16 bits) by the private-use characters that stand for them in the rows. */
        private final List<Integer> standIns = new java.util.ArrayList<>();

        private char standIn(int point) {
            if (!Character.isSupplementaryCodePoint(point)) {
                return (char) point;
            }
            int index = standIns.indexOf(point);
            if (index < 0) {
                standIns.add(point);
                index = standIns.size() - 1;
            }
            return (char) ('\ue000' + index);
        }

        private String real(String text) {
            for (int i = 0; i < standIns.size(); i++) {
                text = text.replace(String.valueOf((char) ('\ue000' + i)), Character.toString(standIns.get(i)));
            }
            return text;
        }

        /** What fills the second cell of a wide character. */
        private static final char WIDE = '\u0000';

        private void put(char c) {
            StringBuilder line = rows.get(row);
            while (line.length() < col) {
                line.append(' ');
            }
            if (col < line.length()) {
                line.setCharAt(col, c);
            } else {
                line.append(c);
            }
            col++;
        }

        private static void cut(StringBuilder line, int at) {
            if (line.length() > at) {
                line.setLength(at);
            }
        }

        /** The rows, each ending with a new line; trailing empty rows left out. */
        String text() {
            StringBuilder text = new StringBuilder();
            for (StringBuilder line : rows) {
                text.append(line).append('\n');
            }
            return real(text.toString().replace(String.valueOf(WIDE), "").replaceAll("\n+$", "\n"));
        }
    }

    @Test
    void thinkingWiderThanTheTerminalCountsEveryRowItTook() {
        StringWriter text = new StringWriter();
        try (TextRenderer renderer = new TextRenderer(new PrintWriter(text), true, 10)) {
            renderer.onEvent(new StreamEvent.ThinkingStart(0, "thinking", Map.of()));
            renderer.onEvent(new StreamEvent.ThinkingContent(0, "x".repeat(25)));
            renderer.onEvent(new StreamEvent.ThinkingEnd(0, "x".repeat(25)));
        }
        assertThat(text.toString()).as("25 characters on 10 columns: 3 rows, 2 up")
                .contains("\r\u001b[2A\u001b[J");
    }

    private static final String ANSWER = """
            # Result

            Found **two** files in `src`:

            - a.txt
            - b.txt

            | name | size |
            |---|---:|
            | a.txt | 10 |
            | bb.txt | 200 |

            ```java
            int x = 1;
            ```
            The end.""";

    @Test
    void markdownPlain() {
        assertThat(MarkdownText.render(ANSWER, false)).isEqualTo("""
                Result

                Found two files in src:

                \u2022 a.txt
                \u2022 b.txt

                name   \u2502 size
                \u2500\u2500\u2500\u2500\u2500\u2500\u2500\u253c\u2500\u2500\u2500\u2500\u2500
                a.txt  \u2502 10
                bb.txt \u2502 200

                    int x = 1;
                The end.
                """);
    }

    @Test
    void markdownAnsi() {
        String b = MarkdownText.BOLD;
        String c = MarkdownText.CODE;
        String r = MarkdownText.RESET;
        assertThat(MarkdownText.render(ANSWER, true)).isEqualTo(b + "Result" + r + "\n\n"
                + "Found " + b + "two" + r + " files in " + c + "src" + r + ":\n\n"
                + "\u2022 a.txt\n\u2022 b.txt\n\n"
                + b + "name   \u2502 size" + r + "\n"
                + "\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u253c\u2500\u2500\u2500\u2500\u2500\n"
                + "a.txt  \u2502 10\nbb.txt \u2502 200\n\n"
                + "    " + c + "int x = 1;" + r + "\n"
                + "The end.\n");
    }

    @Test
    void anAnswerIsWrappedBetweenWordsAtTheTerminalsWidthAndItsTablesAlignWideCharacters() {
        String answer = "# A heading that is longer than the terminal\n\n"
                + "The file has 391 lines and **every one** of them counts, even \u4e2d\u6587 ones \ud83d\ude00 here.\n\n"
                + "- a list item that goes on for longer than one row\n"
                + "  - nested and also long enough to wrap\n\n"
                + "| name | lines |\n|---|---|\n| a.txt | 391 |\n| \u4e2d\u6587.txt | 7 |\n\n"
                + "```\na code line that is never wrapped, however long it is\n```\n"
                + "see https://example.com/a/very/long/address/that/is/one/word";
        assertThat(MarkdownText.render(answer, false, 30)).isEqualTo("""
                A heading that is longer than
                the terminal

                The file has 391 lines and
                every one of them counts,
                even \u4e2d\u6587 ones \ud83d\ude00 here.

                \u2022 a list item that goes on
                  for longer than one row
                  \u2022 nested and also long
                    enough to wrap

                name     \u2502 lines
                \u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u2500\u253c\u2500\u2500\u2500\u2500\u2500\u2500
                a.txt    \u2502 391
                \u4e2d\u6587.txt \u2502 7

                    a code line that is never wrapped, however long it is
                see
                https://example.com/a/very/long/address/that/is/one/word
                """);
        assertThat(MarkdownText.render(answer, false, 0)).as("width unknown: no wrapping")
                .contains("The file has 391 lines and every one of them counts, even");
    }

    @Test
    void numberedItemsAndTheHelpWrapUnderTheirText() {
        assertThat(MarkdownText.render("1. first numbered item that is long enough to wrap at forty\n2. second", false, 40))
                .isEqualTo("1. first numbered item that is long\n   enough to wrap at forty\n2. second\n");
        assertThat(ChatCommand.help(40)).startsWith("/help           this list\n"
                + "/tools          the tools the agent can\n                call\n");
        assertThat(ChatCommand.help(0)).isEqualTo(ChatCommand.HELP + "\n");
        assertThat(ChatCommand.help(40).lines()).allSatisfy(line -> assertThat(line.length()).isLessThan(40));
    }

    @Test
    void textThatIsNotMarkdownIsLeftAsItIs() {
        assertThat(MarkdownText.render("391", false)).isEqualTo("391\n");
        assertThat(MarkdownText.render("a | b\n2 * 3 = 6", true)).isEqualTo("a | b\n2 * 3 = 6\n");
    }
}
