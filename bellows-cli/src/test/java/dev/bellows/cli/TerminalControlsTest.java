package dev.bellows.cli;

import static dev.bellows.cli.RunCommandTest.call;
import static org.assertj.core.api.Assertions.assertThat;

import dev.bellows.testkit.MockLlmServer;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Text from a model, a tool or a server never drives the terminal: ESC, BEL, NUL and the other
 * C0 and C1 controls reach no output raw, in any command, on standard output too.
 */
class TerminalControlsTest {

    /** A hostile answer: clears the screen, retitles the window, writes the clipboard, rings, NUL, C1 CSI. */
    static final String HOSTILE = "\u001b[2Jcleared \u001b]0;pwned\u0007 \u001b]52;c;aGk=\u0007 nul\u0000 csi\u009b31m";

    /** {@link #HOSTILE} inside a JSON string. */
    static final String HOSTILE_JSON = Cli.MAPPER.valueToTree(HOSTILE).toString().replaceAll("^\"|\"$", "");

    @TempDir
    Path dir;

    private Cli.Run bellows(boolean terminal, String stdin, String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int status = BellowsCommand.commandLine(new ByteArrayInputStream(stdin.getBytes(StandardCharsets.UTF_8)), out,
                err, false, new Host(Map.of("PATH", System.getenv("PATH")), dir, Interrupts.NONE, terminal))
                .execute(args);
        return new Cli.Run(status, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    /** No control character but newline and tab; on a terminal, only Bellows' own styling escapes. */
    static void assertNoControls(String text) {
        String own = text.replace(TextRenderer.DIM, "").replace(TextRenderer.RESET, "").replace("\r\u001b[K", "")
                .replace("\r", "");
        for (char c : own.toCharArray()) {
            assertThat(Shown.isControl(c)).as("U+%04X reached the output: %s", (int) c, text).isFalse();
        }
    }

    private MockLlmServer hostileModel() {
        String plan = "<thinking>think " + HOSTILE + "</thinking>\nsay " + HOSTILE + "\n"
                + call("update_plan", "{\"steps\": [{\"description\": \"step " + HOSTILE_JSON + "\", \"status\": \"in_progress\"}]}");
        return RunCommandTest.server(plan, call("task_completion", "{\"result\": \"answer " + HOSTILE_JSON + "\"}"));
    }

    @Test
    void run_shows_model_text_with_its_controls_made_visible_on_a_terminal_and_on_standard_output() {
        for (boolean terminal : new boolean[] {true, false}) {
            try (MockLlmServer server = hostileModel()) {
                Cli.Run run = bellows(terminal, "", "run", "--base-url", server.baseUrl().toString(), "--model", "mock",
                        "do it");
                assertThat(run.status()).as(run.err()).isZero();
                assertNoControls(run.out());
                assertNoControls(run.err());
                assertThat(run.out()).isEqualTo("answer ^[[2Jcleared ^[]0;pwned^G ^[]52;c;aGk=^G nul^@ csi\\u009b31m\n");
                assertThat(run.err()).contains("think ^[[2Jcleared").contains("say ^[[2Jcleared")
                        .contains("step ^[[2Jcleared");
            }
        }
    }

    @Test
    void jsonl_stays_valid_json_with_no_raw_control_character() {
        try (MockLlmServer server = hostileModel()) {
            Cli.Run run = bellows(false, "", "run", "--base-url", server.baseUrl().toString(), "--model", "mock",
                    "--output", "jsonl", "do it");
            assertThat(run.status()).as(run.err()).isZero();
            assertNoControls(run.out());
            assertThat(RunCommandTest.last(run).get("result").asString())
                    .isEqualTo("answer \u001b[2Jcleared \u001b]0;pwned\u0007 \u001b]52;c;aGk=\u0007 nul\u0000 csi\u009b31m");
        }
    }

    @Test
    void chat_and_sessions_show_make_the_controls_visible() {
        try (MockLlmServer server = hostileModel()) {
            Cli.Run chat = bellows(false, "hello\n", "chat", "--base-url", server.baseUrl().toString(), "--model",
                    "mock", "--session", "s", "--data-dir", dir.resolve("data").toString());
            assertThat(chat.status()).as(chat.err()).isZero();
            assertNoControls(chat.out());
            assertNoControls(chat.err());
            assertThat(chat.out()).contains("answer ^[[2Jcleared");
        }
        Cli.Run show = bellows(false, "", "sessions", "show", "s", "--data-dir", dir.resolve("data").toString());
        assertThat(show.status()).as(show.err()).isZero();
        assertNoControls(show.out());
        assertThat(show.out()).contains("say ^[[2Jcleared");
    }

    @Test
    void tools_shows_a_servers_descriptions_and_results_with_their_controls_made_visible() throws Exception {
        Files.writeString(dir.resolve("mcp.json"), "{\"mcpServers\": {\"hostile\": {\"command\": \"node\", \"args\": ["
                + Cli.MAPPER.valueToTree(script("hostile-server.js").toString()) + "]}}}");
        Cli.Run list = bellows(false, "", "tools", "--mcp-config", "mcp.json");
        assertThat(list.status()).as(list.err()).isZero();
        assertNoControls(list.out());
        assertThat(list.out()).contains("Leaks^[]0;pwned title^G things^[]52;c;aGk=^G");
        Cli.Run json = bellows(false, "", "tools", "--mcp-config", "mcp.json", "--output", "json");
        assertNoControls(json.out());
        assertThat(Cli.json(json.out()).toString()).contains("Leaks\\u001B]0;pwned title\\u0007");

        Cli.Run called = bellows(false, "", "tools", "--mcp-config", "mcp.json", "--call", "hostile/leak");
        assertThat(called.status()).as(called.err()).isZero();
        assertNoControls(called.out());
        assertThat(called.out()).contains("clear^[[2J bell^G nul^@ csi\\u009b31m");
    }

    static Path script(String name) throws URISyntaxException {
        return Path.of(TerminalControlsTest.class.getResource("/servers/" + name).toURI());
    }
}
