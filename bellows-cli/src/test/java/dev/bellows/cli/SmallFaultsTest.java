package dev.bellows.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bellows.testkit.MockLlmServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The small faults of issue 19, item 7, each as a user met it. */
class SmallFaultsTest {

    @TempDir
    Path dir;

    private Cli.Run bellows(String... args) {
        return Cli.run(new Host(Map.of("PATH", System.getenv("PATH")), dir, Interrupts.NONE, false), args);
    }

    private Path corruptData() throws Exception {
        Path data = Files.createDirectories(dir.resolve("data"));
        Files.writeString(data.resolve("sessions.db"), "this is not a database; ".repeat(20));
        return data;
    }

    @Test
    void an_option_value_is_not_masked_inside_other_words_and_the_base_url_is_shown_as_any_other() throws Exception {
        Path data = corruptData();
        Cli.Run run = bellows("run", "--base-url", "http://127.0.0.1:9/v1", "--model", "database", "--session", "s",
                "--data-dir", data.toString(), "task");
        assertThat(run.err()).contains("not a database").doesNotContain("(value not shown)");
    }

    @Test
    void a_damaged_session_database_is_exit_status_1_in_run_chat_and_sessions_alike() throws Exception {
        Path data = corruptData();
        Cli.Run run = bellows("run", "--base-url", "http://127.0.0.1:9/v1", "--model", "m", "--session", "s",
                "--data-dir", data.toString(), "task");
        Cli.Run chat = bellows("chat", "--base-url", "http://127.0.0.1:9/v1", "--model", "m", "--session", "s",
                "--data-dir", data.toString());
        Cli.Run sessions = bellows("sessions", "--data-dir", data.toString());
        assertThat(run.status()).as(run.err()).isEqualTo(1);
        assertThat(chat.status()).as(chat.err()).isEqualTo(1);
        assertThat(sessions.status()).as(sessions.err()).isEqualTo(1);
        assertThat(run.err()).contains("not a database");
    }

    @Test
    void a_number_too_large_is_said_to_be_too_large() {
        Cli.Run run = bellows("run", "--model", "m", "--max-iterations", "99999999999", "task");
        assertThat(run.status()).isEqualTo(2);
        assertThat(run.err()).contains("--max-iterations: invalid value (too large: at most 2147483647)")
                .doesNotContain("whole number");
    }

    @Test
    void a_script_or_config_that_is_not_utf8_says_so() throws Exception {
        Files.write(dir.resolve("bad.json"), new byte[] {'{', '"', 't', 'u', 'r', 'n', 's', '"', ':', '[', '"',
                (byte) 0xe9, '"', ']', '}'});
        Cli.Run mock = bellows("mock-server", "--script", dir.resolve("bad.json").toString());
        assertThat(mock.status()).isEqualTo(2);
        assertThat(mock.err()).contains("bad.json: not UTF-8 text").doesNotContain("Input length");
        Cli.Run config = bellows("run", "--config", "bad.json", "task");
        assertThat(config.err()).contains("bad.json: not UTF-8 text").doesNotContain("Input length");
    }

    @Test
    void dialect_and_data_dir_are_config_keys_as_documented() throws Exception {
        Path data = dir.resolve("from-config");
        Files.writeString(dir.resolve("bellows.json"), "{\"dialect\": \"bellows\", \"data_dir\": \"from-config\","
                + " \"model\": \"mock\"}");
        try (MockLlmServer model = RunCommandTest.server(RunCommandTest.complete("done"))) {
            Cli.Run run = bellows("run", "--base-url", model.baseUrl().toString(), "--session", "kept", "task");
            assertThat(run.status()).as(run.err()).isZero();
        }
        assertThat(data.resolve("sessions.db")).exists();
        Files.writeString(dir.resolve("bellows.json"), "{\"dialect\": \"qwen9\", \"model\": \"mock\"}");
        Cli.Run bad = bellows("run", "--base-url", "http://127.0.0.1:9/v1", "task");
        assertThat(bad.status()).isEqualTo(2);
        assertThat(bad.err()).contains("dialect");
    }

    @Test
    void sessions_show_of_an_unknown_name_leaves_no_file_behind() throws Exception {
        Path data = dir.resolve("data");
        try (MockLlmServer model = RunCommandTest.server(RunCommandTest.complete("done"))) {
            assertThat(bellows("run", "--base-url", model.baseUrl().toString(), "--model", "mock", "--session", "a",
                    "--data-dir", data.toString(), "task").status()).isZero();
        }
        Cli.Run show = bellows("sessions", "show", "nosuch", "--data-dir", data.toString());
        assertThat(show.status()).isEqualTo(2);
        assertThat(data.resolve("locks/nosuch.lock")).doesNotExist();
        Cli.Run delete = bellows("sessions", "delete", "nosuch", "--data-dir", data.toString());
        assertThat(delete.status()).isEqualTo(2);
        assertThat(data.resolve("locks/nosuch.lock")).doesNotExist();
    }
}
