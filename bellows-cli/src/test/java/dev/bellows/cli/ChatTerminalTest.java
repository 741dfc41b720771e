package dev.bellows.cli;

import static dev.bellows.cli.RunCommandTest.call;
import static dev.bellows.cli.RunCommandTest.complete;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import dev.bellows.testkit.MockLlmServer;
import dev.bellows.testkit.NpmPackages;
import dev.bellows.testkit.MockScript;
import dev.bellows.testkit.MockToolCall;
import dev.bellows.testkit.MockTurn;
import dev.bellows.testkit.StreamHold;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code bellows chat} in a real pseudo-terminal: a child JVM in a tmux pane, driven with
 * {@code tmux send-keys}, judged by {@code tmux capture-pane}: what a person would see.
 *
 * <p>tmux comes from the machine; when it is missing the test installs Debian's package
 * ({@code apt-get install -y tmux}) if it runs as root, else it is skipped with the reason.
 * The chat JVMs start as {@link ChildJvm#bellows()}'s children: on a class-data archive, with C1
 * and the serial collector (on two loaded cores C2's compiler threads and the parallel
 * collectors made each chat take seconds longer to show its prompt; what the chat does is the same).
 */
class ChatTerminalTest {

    /** A guard against a hung child, not a measure of speed: the screen is polled until then. */
    private static final long GIVE_UP_MILLIS = 120_000;

    @TempDir
    Path dir;

    /** The test's own tmux server, its socket in the temporary directory (removed with it). */
    private String socket() {
        return dir.resolve("tmux.sock").toString();
    }

    @BeforeEach
    void tmux() throws Exception {
        if (exec("sh", "-c", "command -v tmux").status == 0) {
            return;
        }
        Assumptions.assumeTrue("root".equals(System.getProperty("user.name")),
                "tmux is not installed and the test is not root to install it (apt-get install tmux)");
        Exec install = exec("sh", "-c", "(apt-get install -y tmux || (apt-get update && apt-get install -y tmux))");
        Assumptions.assumeTrue(install.status == 0, "tmux is missing and apt-get could not install it: " + install.out);
    }

    @AfterEach
    void stopTmux() throws Exception {
        // The panes' processes (a shell, the chat JVM under it) end after the server, not with it:
        // on a loaded machine they still wrote into the temporary directory while JUnit deleted it.
        List<ProcessHandle> panes = new ArrayList<>();
        for (String pid : exec("tmux", "-S", socket(), "list-panes", "-a", "-F", "#{pane_pid}").out.split("\n")) {
            if (pid.strip().matches("\\d+")) {
                ProcessHandle.of(Long.parseLong(pid.strip())).ifPresent(pane -> {
                    panes.add(pane);
                    pane.descendants().forEach(panes::add);
                });
            }
        }
        exec("tmux", "-S", socket(), "kill-server");
        for (ProcessHandle process : panes) {
            try {
                process.onExit().get(30, TimeUnit.SECONDS);
            } catch (java.util.concurrent.TimeoutException e) {
                process.destroyForcibly();
                process.onExit().get(30, TimeUnit.SECONDS);
            }
        }
    }

    @Test
    void aConversationWithAQuestionCtrlCAndARestartThatResumes() throws Exception {
        String ask = call("ask_question", "{\"question\": \"Which file?\", \"suggestions\": [\"a.txt\", \"b.txt\"]}");
        MockTurn slow = MockTurn.content("<thinking>" + "still thinking ".repeat(400) + "</thinking>" + complete("never"))
                .chunkSize(8).delayMs(30);
        String plan = "<thinking>plan it</thinking>\nI will plan.\n" + call("update_plan", "{\"steps\": ["
                + "{\"description\": \"read\", \"status\": \"in_progress\"},"
                + " {\"description\": \"answer\", \"status\": \"pending\"}]}");
        String progress = call("update_plan", "{\"steps\": [{\"description\": \"read\", \"status\": \"completed\"},"
                + " {\"description\": \"answer\", \"status\": \"in_progress\"}]}");
        // the answer is held once the call's name is out, so that the screen is seen while the turn runs
        String answering = "Writing it up.\n" + complete("# Answer\\n\\n- **391**");
        MockTurn answer = MockTurn.content(answering).chunkSize(4);
        StreamHold whileItRuns = StreamHold.after(2, (answering.indexOf("task_completion\"") + 16 + 3) / 4 + 1);
        try (MockLlmServer server = MockLlmServer.builder(MockScript.of(MockTurn.content(plan),
                MockTurn.content(progress), answer, MockTurn.content(ask),
                MockTurn.content(complete("picked b")), slow, MockTurn.content(complete("resumed"))))
                .hold(whileItRuns).start()) {
            Path script = dir.resolve("chat.sh");
            // a terminal that understands ANSI, whatever the test's own environment says
            Files.writeString(script, "unset NO_COLOR; export TERM=xterm-256color; exec " + ChildJvm.bellows().shell()
                    + " --enable-native-access=ALL-UNNAMED " + BellowsCommand.class.getName()
                    + " chat --base-url " + server.baseUrl() + " --model mock --session t --data-dir '"
                    + dir.resolve("data") + "'\n", StandardCharsets.UTF_8);
            start("one", script);
            String screen = waitFor("one", "> ");
            send("one", "What is 17 * 23?", "Enter");
            screen = waitFor("one", "calling task_completion\u2026");
            assertThat(screen).as("while the turn runs: one checklist, its items changed in place")
                    .containsOnlyOnce("plan:").contains("plan:\n  [x] read\n  [>] answer\n")
                    .doesNotContain("[>] read").doesNotContain("[ ] answer");
            whileItRuns.release();
            screen = waitFor("one", "\u2022 391");
            assertThat(screen).contains("> What is 17 * 23?")
                    .as("thinking folded to one line once it ended").contains("\nthinking: plan it\nI will plan.\n")
                    .contains("calling update_plan\u2026\n- iteration 2\ncalling update_plan\u2026\n- iteration 3\n"
                            + "Writing it up.\ncalling task_completion\u2026\n")
                    .as("after the turn: still one checklist, its last state, then the answer")
                    .containsOnlyOnce("plan:").contains("plan:\n  [x] read\n  [>] answer\nAnswer\n")
                    .as("the final answer is rendered, not raw Markdown").doesNotContain("**391**")
                    .as("the plan's own result line is left out").doesNotContain("\u2713 update_plan");

            send("one", "Which one?", "Enter");
            waitFor("one", "  2. b.txt");
            send("one", "2", "Enter");
            screen = waitFor("one", "picked b");
            assertThat(screen).contains("Which file?\n  1. a.txt\n  2. b.txt\n> 2\n(answering: b.txt)");

            send("one", "Think slowly", "Enter");
            waitFor("one", "still thinking still thinking");
            send("one", "C-c");
            // The cancel line and the next prompt are two writes: wait for the prompt after the line.
            screen = waitFor("one", screenShown -> screenShown.contains("(cancelled")
                    && screenShown.substring(screenShown.indexOf("(cancelled")).contains("\n> "),
                    "a prompt again after the cancel");
            assertThat(screen.substring(screen.indexOf("(cancelled"))).as("a prompt again after the cancel")
                    .startsWith("(cancelled: the request stays in the conversation, marked as interrupted)\n").contains("\n> ");
            send("one", "/exit", "Enter");
            waitFor("one", "EXIT=0");

            start("two", script);
            screen = waitFor("two", "requests so far)\n> "); // the prompt: JLine reads keys from now on
            assertThat(screen).contains("(session t: ");
            send("two", "Up");
            waitFor("two", "> /exit"); // the history survived the restart
            send("two", "C-u", "Go on", "Enter");
            waitFor("two", "resumed");
            String sent = RunCommandTest.messages(server.requests().getLast()).toString();
            assertThat(sent).as("the restarted chat sent the stored conversation").contains("What is 17 * 23?")
                    .contains("b.txt").contains("Go on")
                    .as("the cancelled turn, marked for the model").contains("Think slowly")
                    .contains(InterruptedTurn.MARKER).doesNotContain("still thinking");
            send("two", "C-c");
            waitFor("two", "Ctrl-C again");
            send("two", "C-c");
            waitFor("two", "EXIT=0");
            Cli.Run show = Cli.run("", "sessions", "show", "--data-dir", dir.resolve("data").toString(), "t");
            assertThat(show.out()).as(show.err())
                    .contains("[user]\nThink slowly\n[assistant]\n" + InterruptedTurn.MARKER + "\n")
                    .contains("[user]\nGo on\n");
        }
    }

    @Test
    void resizingTheWindowDuringATurnLeavesOnePlanDrawnAtTheNewWidth() throws Exception {
        String plan = call("update_plan", "{\"steps\": ["
                + "{\"description\": \"read the whole input file and count every line in it\", \"status\": \"in_progress\"},"
                + " {\"description\": \"write the answer with the number \u4e2d\u6587 \u2705 of lines\", \"status\": \"pending\"}]}");
        String progress = call("update_plan", "{\"steps\": ["
                + "{\"description\": \"read the whole input file and count every line in it\", \"status\": \"completed\"},"
                + " {\"description\": \"write the answer with the number \u4e2d\u6587 \u2705 of lines\", \"status\": \"in_progress\"}]}");
        // streams for some seconds, so that the window is resized while the answer and the plan are on screen
        MockTurn slow = MockTurn.content("Counting them now, " + "line after line, ".repeat(30) + "done.\n" + progress)
                .chunkSize(4).delayMs(40);
        try (MockLlmServer server = MockLlmServer.start(MockScript.of(MockTurn.content(plan), slow,
                MockTurn.content(complete("391 lines"))))) {
            Path script = dir.resolve("chat.sh");
            Files.writeString(script, "unset NO_COLOR; export TERM=xterm-256color; exec " + ChildJvm.bellows().shell()
                    + " --enable-native-access=ALL-UNNAMED " + BellowsCommand.class.getName()
                    + " chat --base-url " + server.baseUrl() + " --model mock --data-dir '"
                    + dir.resolve("data") + "'\n", StandardCharsets.UTF_8);
            start("r", script, 80, 24);
            waitFor("r", "> ");
            send("r", "How many lines?", "Enter");
            waitFor("r", "line after line, line after line,");
            resize("r", 40); // narrower while the answer streams above the plan: the plan's rows rewrap
            String screen = waitFor("r", "  [>] read the whole input file and co\u2026");
            assertThat(screen).as("one plan, cut to 40 columns").containsOnlyOnce("plan:")
                    .contains("plan:\n  [>] read the whole input file and co\u2026\n");
            resize("r", 70); // wider again before the turn ends
            waitFor("r", "391 lines");
            String all = exec("tmux", "-S", socket(), "capture-pane", "-p", "-J", "-S", "-", "-t", "r").out;
            assertThat(all).as("the whole turn, scrolled-off rows included: one plan, its last state at 70 columns")
                    .containsOnlyOnce("plan:")
                    .contains("plan:\n  [x] read the whole input file and count every line in it\n"
                            + "  [>] write the answer with the number \u4e2d\u6587 \u2705 of lines\n391 lines")
                    .as("the answer streamed whole").contains("line after line, done.");
        }
    }

    /**
     * Resizes while an answer streams above the plan, its stream held in the middle of a line,
     * then at the end of a line (its new line not out yet: the stream's trailing whitespace is
     * held until text follows), then after a whole line (the call's name, its arguments still
     * streaming): narrower, wider, and then with the chat told a width the terminal does not
     * have. A terminal reflows its lines the moment it is resized, but the program in it
     * learns the new size later: tmux tells it at most every 250 ms (the last of several quick
     * resizes later still), and what the chat writes meanwhile is laid out at a width it was
     * not told. Setting the pseudo-terminal's size with {@code stty} (tmux's window keeps its
     * own) gives the chat that wrong width for as long as the test needs, instead of hoping to
     * hit a 250 ms window: with its cursor moves counted from the width (the old renderer), part
     * of the line was erased or written twice, or the rows above the plan erased. Every line of
     * the answer must be on the screen once and whole.
     */
    @Test
    void resizingMidLineAndAtALineEndEvenBeforeTheChatLearnsTheWidthLeavesEveryLineOnceAndWhole() throws Exception {
        String plan = call("update_plan", "{\"steps\": ["
                + "{\"description\": \"read the whole input file and count every line in it\", \"status\": \"in_progress\"},"
                + " {\"description\": \"write the answer with the number \u4e2d\u6587 \u2705 of lines\", \"status\": \"pending\"}]}");
        String progress = call("update_plan", "{\"steps\": ["
                + "{\"description\": \"read the whole input file and count every line in it\", \"status\": \"completed\"},"
                + " {\"description\": \"write the answer with the number \u4e2d\u6587 \u2705 of lines\", \"status\": \"in_progress\"}]}");
        // 143 columns, its new line the end of piece 36 (4 characters a piece); at none of the
        // widths below does it end in the last column, where a cursor waits to wrap
        String first = "Counting them now, " + "line after line, ".repeat(7) + "done.";
        String second = "Then the second line, all of it.";
        StreamHold midLine = StreamHold.after(1, 15); // "Counting them now, line after line, line after line, line af"
        StreamHold lineEnd = StreamHold.after(1, (first.length() + 1) / 4);
        String answer = first + "\n" + second + "\n" + progress;
        int named = answer.indexOf("update_plan\"", answer.indexOf("<tool>")) + "update_plan\"".length();
        StreamHold afterALine = StreamHold.after(1, (named + 3) / 4 + 1); // "calling update_plan…" shown
        try (MockLlmServer server = MockLlmServer.builder(MockScript.of(MockTurn.content(plan),
                        MockTurn.content(answer).chunkSize(4), MockTurn.content(complete("391 lines"))))
                .hold(midLine).hold(lineEnd).hold(afterALine).start()) {
            Path script = dir.resolve("chat.sh");
            Files.writeString(script, "unset NO_COLOR; export TERM=xterm-256color; exec " + ChildJvm.bellows().shell()
                    + " --enable-native-access=ALL-UNNAMED " + BellowsCommand.class.getName()
                    + " chat --base-url " + server.baseUrl() + " --model mock --data-dir '"
                    + dir.resolve("data") + "'\n", StandardCharsets.UTF_8);
            start("w", script, 80, 24);
            waitFor("w", "> ");
            send("w", "How many lines?", "Enter");
            waitFor("w", "Counting them now, line after line, line after line, line af");
            resized(40); // narrower: the line's end on its second row
            resized(70); // wider: on its first
            told(40); // the chat told 40 columns, the window 70 wide
            told(70);

            midLine.release();
            waitFor("w", "line after line, done.");
            resized(40);
            resized(80);
            told(40);
            told(80);

            lineEnd.release();
            waitFor("w", second + "\ncalling update_plan\u2026\n");
            resized(50);
            resized(80);
            told(40);
            told(80);

            afterALine.release();
            waitFor("w", "391 lines");
            String all = exec("tmux", "-S", socket(), "capture-pane", "-p", "-J", "-S", "-", "-t", "w").out;
            assertThat(all).as("every line once and whole, then one plan, its last state")
                    .containsOnlyOnce(first).containsOnlyOnce(second)
                    .contains("\n" + first + "\n" + second + "\ncalling update_plan\u2026\n")
                    .containsOnlyOnce("plan:")
                    .contains("plan:\n  [x] read the whole input file and count every line in it\n"
                            + "  [>] write the answer with the number \u4e2d\u6587 \u2705 of lines\n391 lines");
        }
    }

    /** Window "w", its stream held, resized to {@code columns} (tmux tells the chat); then until the plan is redrawn. */
    private void resized(int columns) throws Exception {
        resize("w", columns);
        planDrawnFor(columns);
    }

    /**
     * Window "w"'s pseudo-terminal set to {@code columns} (the chat is told, the window keeps its
     * width, as between a resize and tmux telling the chat); then until the plan is redrawn.
     */
    private void told(int columns) throws Exception {
        String tty = exec("tmux", "-S", socket(), "display-message", "-p", "-t", "w", "#{pane_tty}").out.strip();
        Exec set = exec("stty", "-F", tty, "cols", Integer.toString(columns));
        assertThat(set.status).as(set.out).isZero();
        planDrawnFor(columns);
    }

    /** Waits until the plan's long first item is shown as cut for a terminal {@code columns} wide (or whole). */
    private void planDrawnFor(int columns) throws Exception {
        String item = "  [>] read the whole input file and count every line in it";
        String shown = item.length() < columns ? item : TextRenderer.cut(item, columns - 1);
        waitFor("w", screen -> screen.contains(shown + "\n") && screen.indexOf("plan:") == screen.lastIndexOf("plan:"),
                "the plan drawn for " + columns + " columns");
    }

    @Test
    void ctrlCDuringAnMcpToolCallCancelsTheTurnButNotTheServerAndKeysTypedMeanwhileStartTheNextPrompt()
            throws Exception {
        // The same packages as McpCommandsTest and bellows-mcp's tests ask for in .cache/mcp: fewer would
        // reinstall the folder under a test in another fork that runs from it.
        Path everything = NpmPackages.install(NpmPackages.cacheDir("mcp"), McpCommandsTest.EVERYTHING,
                        McpCommandsTest.FILESYSTEM)
                .resolve("@modelcontextprotocol/server-everything/dist/index.js");
        Files.writeString(dir.resolve("mcp.json"), "{\"mcpServers\": {\"everything\": {\"command\": \"node\", \"args\": ["
                + Cli.MAPPER.valueToTree(everything.toString()) + "]}}}");
        String slowTool = "<tool>{\"server_name\": \"everything\", \"tool_name\": \"trigger-long-running-operation\","
                + " \"arguments\": {\"duration\": 60, \"steps\": 60}}</tool>";
        String echo = "<tool>{\"server_name\": \"everything\", \"tool_name\": \"echo\","
                + " \"arguments\": {\"message\": \"still here\"}}</tool>";
        try (MockLlmServer server = MockLlmServer.start(MockScript.of(MockTurn.content("Waiting.\n" + slowTool),
                MockTurn.content(echo), MockTurn.content(complete("after the cancel"))))) {
            Path script = dir.resolve("chat.sh");
            Files.writeString(script, "unset NO_COLOR; export TERM=xterm-256color; exec " + ChildJvm.bellows().shell()
                    + " --enable-native-access=ALL-UNNAMED " + BellowsCommand.class.getName()
                    + " chat --base-url " + server.baseUrl() + " --model mock --data-dir '" + dir.resolve("data")
                    + "' --mcp-config '" + dir.resolve("mcp.json") + "'\n", StandardCharsets.UTF_8);
            start("m", script, 80, 24);
            waitFor("m", "> ");
            send("m", "Wait a minute", "Enter");
            waitFor("m", "calling trigger-long-running-operation\u2026");
            send("m", "go on");
            send("m", "C-c");
            String screen = waitFor("m", "(cancelled");
            assertThat(screen).as("keys typed during the turn were not echoed into it").doesNotContain("go on\n(");
            screen = waitFor("m", "> go on");
            send("m", "C-u", "Echo something", "Enter");
            screen = waitFor("m", "after the cancel");
            assertThat(screen).as("the MCP server was not stopped by the Ctrl-C").contains("\u2713 echo: Echo: still here")
                    .doesNotContain("stopped").doesNotContain("restarted");
            send("m", "/exit", "Enter");
            waitFor("m", "EXIT=0");
        }
    }

    /**
     * The chat that hung: idle with a stdio MCP server, then a tool call, then /exit. Idle, the
     * server's stdout and stderr readers blocked both carriers of a 2-CPU machine once the
     * virtual-thread scheduler's spare carrier retired (30 s); the turn and /exit never ran. The
     * child runs on 2 CPUs with no spare carrier at all: that state from the start.
     */
    @Test
    void aToolCallAndExitWithAnIdleStdioServerOnTwoCpusWithoutSpareCarriers() throws Exception {
        Files.writeString(dir.resolve("mcp.json"), "{\"mcpServers\": {\"hostile\": {\"command\": \"node\", \"args\": ["
                + Cli.MAPPER.valueToTree(TerminalControlsTest.script("hostile-server.js").toString()) + "]}}}");
        String leak = "<tool>{\"server_name\": \"hostile\", \"tool_name\": \"leak\", \"arguments\": {}}</tool>";
        try (MockLlmServer server = MockLlmServer.start(MockScript.of(MockTurn.content(leak),
                MockTurn.content(complete("the tool answered"))))) {
            Path script = dir.resolve("chat.sh");
            Files.writeString(script, "unset NO_COLOR; export TERM=xterm-256color; exec " + ChildJvm.bellows().shell()
                    + " -XX:ActiveProcessorCount=2 -Djdk.virtualThreadScheduler.parallelism=2"
                    + " -Djdk.virtualThreadScheduler.maxPoolSize=2 --enable-native-access=ALL-UNNAMED "
                    + BellowsCommand.class.getName()
                    + " chat --base-url " + server.baseUrl() + " --model mock --data-dir '" + dir.resolve("data")
                    + "' --mcp-config '" + dir.resolve("mcp.json") + "'\n", StandardCharsets.UTF_8);
            start("i", script, 100, 40);
            waitFor("i", "> ");
            send("i", "Use the tool", "Enter");
            String screen = waitFor("i", "the tool answered");
            assertThat(screen).contains("\u2713 leak: clear^[[2J bell^G");
            send("i", "/exit", "Enter");
            waitFor("i", "EXIT=0");
        }
    }

    @Test
    void withItsOutputPipedTheChatPromptsAndEditsOnStandardErrorAndWritesPlainAnswers() throws Exception {
        try (MockLlmServer server = MockLlmServer.start(MockScript.of(
                MockTurn.content("Working.\n" + complete("# Answer\\n\\n- **391**"))))) {
            Path script = dir.resolve("chat.sh");
            Path answers = dir.resolve("answers.txt");
            Files.writeString(script, "unset NO_COLOR; export TERM=xterm-256color; exec " + ChildJvm.bellows().shell()
                    + " --enable-native-access=ALL-UNNAMED " + BellowsCommand.class.getName()
                    + " chat --base-url " + server.baseUrl() + " --model mock --data-dir '" + dir.resolve("data")
                    + "' > '" + answers + "'\n", StandardCharsets.UTF_8);
            start("p", script, 80, 24);
            waitFor("p", "> ");
            send("p", "What is 17 * 23?", "Enter");
            waitFor("p", "calling task_completion\u2026\n> "); // the prompt again, after the turn
            send("p", "Up"); // the line editor, on standard error: the history is there
            String screen = waitFor("p", "calling task_completion\u2026\n> What is 17 * 23?\n");
            assertThat(screen).as("the answer went to the file, not the screen").doesNotContain("391");
            send("p", "C-u", "/exit", "Enter");
            waitFor("p", "EXIT=0");
            assertThat(Files.readString(answers)).as("plain text, no escape codes").isEqualTo("Answer\n\n\u2022 391\n");
        }
    }

    @Test
    void approvalsAskOnTheTerminalAndCtrlCAtTheQuestionDeniesAndCancels() throws Exception {
        ApprovalsCliTest recording = new ApprovalsCliTest();
        recording.dir = dir;
        try (MockLlmServer server = MockLlmServer.start(MockScript.of(
                MockTurn.content(ApprovalsCliTest.files("write_file", "one.txt")),
                MockTurn.content(complete("written")),
                MockTurn.content(ApprovalsCliTest.files("delete_file", "two.txt")),
                MockTurn.content(complete("never asked"))))) {
            Path script = dir.resolve("chat.sh");
            Files.writeString(script, "unset NO_COLOR; export TERM=xterm-256color; exec " + ChildJvm.bellows().shell()
                    + " --enable-native-access=ALL-UNNAMED " + BellowsCommand.class.getName()
                    + " chat --base-url " + server.baseUrl() + " --model mock --data-dir '" + dir.resolve("data")
                    + "' --approve 'files/*' --mcp-config '" + recording.mcpConfig() + "'\n", StandardCharsets.UTF_8);
            start("a", script, 100, 40);
            waitFor("a", "> ");
            send("a", "Write one", "Enter");
            String screen = waitFor("a", "run it? y = yes, a = always for write_file, n [reason] = no > ");
            assertThat(screen).contains("tool call files/write_file (call_1_1) waits for your approval:",
                    "\"path\" : \"one.txt\"");
            send("a", "y", "Enter");
            waitFor("a", "written");
            send("a", "Delete two", "Enter");
            waitFor("a", "run it? y = yes, a = always for delete_file");
            send("a", "C-c");
            screen = waitFor("a", screenShown -> screenShown.contains("(cancelled: the calls were denied")
                    && screenShown.substring(screenShown.indexOf("(cancelled: the calls")).contains("\n> "),
                    "a prompt again after the cancel");
            send("a", "/exit", "Enter");
            waitFor("a", "EXIT=0");
            assertThat(recording.recorded()).containsExactly(
                    "{\"tool\":\"write_file\",\"arguments\":{\"path\":\"one.txt\"}}");
            assertThat(server.requests()).as("nothing was sent after the Ctrl-C").hasSize(3);
        }
    }

    /**
     * {@code a} at a sub-agent's call approves its tool for the rest of the chat there too: the
     * sub-agent's next call of it, in the same task and in the next message's, runs without a
     * question and without stopping the run to decide it.
     */
    @Test
    void alwaysAtASubAgentsCallApprovesThatToolForTheSubAgentsLaterCalls() throws Exception {
        ApprovalsCliTest recording = new ApprovalsCliTest();
        recording.dir = dir;
        Path config = ApprovalsCliTest.team(dir);
        try (MockLlmServer server = MockLlmServer.start(MockScript.of(
                MockTurn.content(call("writer", "{\"task\": \"write two\"}")),
                MockTurn.content(ApprovalsCliTest.files("write_file", "one.txt")),
                MockTurn.content(ApprovalsCliTest.files("write_file", "two.txt")),
                MockTurn.content(complete("both written")),
                MockTurn.content(complete("first done")),
                MockTurn.content(call("writer", "{\"task\": \"write three\"}")),
                MockTurn.content(ApprovalsCliTest.files("write_file", "three.txt")),
                MockTurn.content(complete("three written")),
                MockTurn.content(complete("second done"))))) {
            Path script = dir.resolve("chat.sh");
            Files.writeString(script, "unset NO_COLOR; export TERM=xterm-256color; exec " + ChildJvm.bellows().shell()
                    + " --enable-native-access=ALL-UNNAMED " + BellowsCommand.class.getName()
                    + " chat --base-url " + server.baseUrl() + " --model mock --data-dir '" + dir.resolve("data")
                    + "' --config '" + config + "' --agent lead --approve 'files/*' --mcp-config '"
                    + recording.mcpConfig() + "'\n", StandardCharsets.UTF_8);
            start("a", script, 100, 40);
            waitFor("a", "> ");
            send("a", "Write two", "Enter");
            String screen = waitFor("a", "run it? y = yes, a = always for write_file, n [reason] = no > ");
            assertThat(screen).contains("tool call files/write_file (call_1_1/call_1_1) waits for your approval:");
            send("a", "a", "Enter");
            screen = waitFor("a", "first done");
            // after the answer: the second call of the same task ran straight on
            assertThat(screen.substring(screen.indexOf("approved call_1_1/call_1_1"))).doesNotContain("(approved: ")
                    .doesNotContain("interrupted").doesNotContain("waits for").contains("wrote two.txt");
            send("a", "Write three", "Enter");
            screen = waitFor("a", "second done");
            // neither asked nor stopped to be decided: the sub-agent's later calls ran straight on
            assertThat(screen.substring(screen.indexOf("> Write three"))).doesNotContain("waits for")
                    .doesNotContain("(approved: ").doesNotContain("interrupted").contains("wrote three.txt");
            send("a", "/exit", "Enter");
            waitFor("a", "EXIT=0");
            assertThat(recording.recorded()).containsExactly(
                    "{\"tool\":\"write_file\",\"arguments\":{\"path\":\"one.txt\"}}",
                    "{\"tool\":\"write_file\",\"arguments\":{\"path\":\"two.txt\"}}",
                    "{\"tool\":\"write_file\",\"arguments\":{\"path\":\"three.txt\"}}");
            assertThat(server.requests()).hasSize(9);
        }
    }

    /**
     * The argument that says what a call is about shows under {@code calling NAME…} while the call
     * still streams: the path of a write whose content is still coming (the model's stream is held
     * after the path until the screen has been read: its result line cannot be there yet), the
     * query of a search; with native tool calls and with tool tags.
     */
    @Test
    void theHeadlineArgumentShowsUnderTheCallWhileItStillStreamsInBothToolModes() throws Exception {
        // about 100 deltas of content follow the path
        String write = "{\"path\": \"notes/today.md\", \"content\": \"" + "abcd ".repeat(80) + "\"}";
        String search = "{\"query\": \"jqwik chunks\", \"limit\": 5}";
        List<String> modes = List.of("native", "tags");
        Map<String, StreamHold> holds = new HashMap<>();
        List<MockLlmServer> servers = new ArrayList<>();
        try {
            // both chats start side by side (a JVM's start is most of a mode's time); then each is driven
            for (String mode : modes) {
                MockScript turns = mode.equals("native")
                        ? MockScript.of(MockTurn.toolCalls(MockToolCall.of("write_file", write)).chunkSize(4),
                                MockTurn.toolCalls(MockToolCall.of("task_completion", "{\"result\": \"written\"}")),
                                MockTurn.toolCalls(MockToolCall.of("search", search)).chunkSize(4),
                                MockTurn.toolCalls(MockToolCall.of("task_completion", "{\"result\": \"found nothing\"}")))
                        : MockScript.of(MockTurn.content(call("write_file", write)).chunkSize(4),
                                MockTurn.content(complete("written")),
                                MockTurn.content(call("search", search)).chunkSize(4),
                                MockTurn.content(complete("found nothing")));
                // held two deltas after the one that closes the path (native: the first delta is the name)
                String streamed = mode.equals("native") ? write : call("write_file", write);
                int pathEnds = streamed.indexOf("today.md\"") + "today.md\"".length();
                StreamHold afterThePath = StreamHold.after(0, (mode.equals("native") ? 1 : 0) + (pathEnds + 3) / 4 + 2);
                holds.put(mode, afterThePath);
                MockLlmServer server = MockLlmServer.builder(turns).hold(afterThePath).start();
                servers.add(server);
                Path script = dir.resolve("chat-" + mode + ".sh");
                Files.writeString(script, "unset NO_COLOR; export TERM=xterm-256color; exec " + ChildJvm.bellows().shell()
                        + " --enable-native-access=ALL-UNNAMED " + BellowsCommand.class.getName()
                        + " chat --base-url " + server.baseUrl() + " --model mock --tool-mode " + mode + " --data-dir '"
                        + dir.resolve("data-" + mode) + "'\n", StandardCharsets.UTF_8);
                start(mode.substring(0, 1), script, 100, 40);
            }
            for (String mode : modes) {
                String window = mode.substring(0, 1);
                StreamHold afterThePath = holds.get(mode);
                waitFor(window, "> ");
                send(window, "Write today's notes", "Enter");
                String screen = waitFor(window, "  path: notes/today.md");
                assertThat(screen).as(mode).contains("calling write_file\u2026\n  path: notes/today.md")
                        .as(mode + ": shown while the content streams, before the call's result")
                        .doesNotContain("write_file:").doesNotContain("written");
                afterThePath.release();
                waitFor(window, "written");
                send(window, "Search", "Enter");
                screen = waitFor(window, "found nothing");
                assertThat(screen).as(mode).contains("calling search\u2026\n  query: jqwik chunks\n")
                        .containsOnlyOnce("  path: notes/today.md");
                send(window, "/exit", "Enter");
                waitFor(window, "EXIT=0");
            }
        } finally {
            servers.forEach(MockLlmServer::close);
        }
    }

    private void resize(String window, int columns) throws Exception {
        Exec resized = exec("tmux", "-S", socket(), "resize-window", "-t", window, "-x", Integer.toString(columns));
        assertThat(resized.status).as(resized.out).isZero();
    }

    private void start(String window, Path script) throws Exception {
        start(window, script, 100, 40);
    }

    private void start(String window, Path script, int columns, int rows) throws Exception {
        Exec started = exec("tmux", "-S", socket(), "new-session", "-d", "-s", window, "-x", Integer.toString(columns),
                "-y", Integer.toString(rows), "sh '" + script + "'; echo EXIT=$?; sleep 600");
        assertThat(started.status).as(started.out).isZero();
    }

    private void send(String window, String... keys) throws Exception {
        for (String key : keys) {
            List<String> command = new ArrayList<>(List.of("tmux", "-S", socket(), "send-keys", "-t", window));
            if (key.equals("Enter") || key.equals("Up") || key.startsWith("C-")) {
                command.add(key);
            } else {
                command.addAll(List.of("-l", key));
            }
            exec(command.toArray(String[]::new));
        }
    }

    /** The screen (the pane's text) once it contains {@code text}. */
    private String waitFor(String window, String text) throws Exception {
        return waitFor(window, screen -> screen.contains(text), "\"" + text + "\"");
    }

    /** Waits until the window's screen satisfies {@code shows} (bounded: a hang guard, not a timing check). */
    private String waitFor(String window, java.util.function.Predicate<String> shows, String what) throws Exception {
        long giveUp = System.currentTimeMillis() + GIVE_UP_MILLIS;
        String screen = "";
        while (System.currentTimeMillis() < giveUp) {
            screen = exec("tmux", "-S", socket(), "capture-pane", "-p", "-J", "-t", window).out;
            if (shows.test(screen)) {
                return screen;
            }
            Thread.sleep(100);
        }
        return fail("the screen never showed " + what + "; it shows:\n" + screen);
    }

    private record Exec(int status, String out) {
    }

    private static Exec exec(String... command) throws IOException, InterruptedException {
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        return new Exec(process.waitFor(), out);
    }
}
