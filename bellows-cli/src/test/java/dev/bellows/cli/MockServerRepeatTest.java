package dev.bellows.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bellows.cli.MockServerCommandTest.Lines;
import java.io.BufferedReader;
import java.io.ByteArrayInputStream;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** {@code mock-server --repeat --log-requests}, and its exit statuses as a real process. */
class MockServerRepeatTest {

    private static final String SCRIPT = """
            {"turns": [{"content": "one"}, {"status": 429, "body": {"error": {"message": "slow down"}}}]}""";

    @Test
    void repeatsTheScriptAndLogsEachRequestWithoutItsSecrets(@TempDir Path dir) throws Exception {
        Path script = Files.writeString(dir.resolve("script.json"), SCRIPT);
        Lines stdout = new Lines();
        CompletableFuture<Cli.Run> run = new CompletableFuture<>();
        Thread thread = Thread.ofPlatform().start(() -> run.complete(Cli.run(new ByteArrayInputStream(new byte[0]),
                stdout, "mock-server", "--script", script.toString(), "--repeat", "--log-requests")));
        String line = stdout.lines.poll(30, TimeUnit.SECONDS); // a hang guard, not a timing assertion
        assertThat(line).startsWith("listening on ");
        URI base = URI.create(line.substring("listening on ".length()).strip());
        List<Integer> statuses = new ArrayList<>();
        try (HttpClient client = HttpClient.newHttpClient()) {
            for (int i = 0; i < 5; i++) {
                statuses.add(client.send(HttpRequest.newBuilder(URI.create(base + "/chat/completions"))
                        .header("Authorization", "Bearer sk-live-secret")
                        .POST(HttpRequest.BodyPublishers.ofString("{\"model\":\"m\",\"stream\":true,\"messages\":[]}"))
                        .build(), HttpResponse.BodyHandlers.ofString()).statusCode());
            }
            client.send(HttpRequest.newBuilder(URI.create(base + "/models")).GET().build(),
                    HttpResponse.BodyHandlers.ofString());
        }
        thread.interrupt();
        Cli.Run result = run.get(30, TimeUnit.SECONDS);
        assertThat(statuses).containsExactly(200, 429, 200, 429, 200);
        assertThat(result.status()).isZero();
        assertThat(result.err().lines().toList()).containsExactly(
                "bellows mock-server: POST /v1/chat/completions: turn 1 of 2",
                "bellows mock-server: POST /v1/chat/completions: turn 2 of 2",
                "bellows mock-server: POST /v1/chat/completions: turn 1 of 2 (round 2)",
                "bellows mock-server: POST /v1/chat/completions: turn 2 of 2 (round 2)",
                "bellows mock-server: POST /v1/chat/completions: turn 1 of 2 (round 3)",
                "bellows mock-server: GET /v1/models: the model list");
    }

    @Test
    void withoutRepeatTheEndOfTheScriptIsA500AndNothingIsLogged(@TempDir Path dir) throws Exception {
        Path script = Files.writeString(dir.resolve("script.json"), "{\"turns\": [{\"content\": \"one\"}]}");
        Lines stdout = new Lines();
        CompletableFuture<Cli.Run> run = new CompletableFuture<>();
        Thread thread = Thread.ofPlatform().start(() -> run.complete(Cli.run(new ByteArrayInputStream(new byte[0]),
                stdout, "mock-server", "--script", script.toString())));
        String line = stdout.lines.poll(30, TimeUnit.SECONDS);
        URI base = URI.create(line.substring("listening on ".length()).strip());
        List<Integer> statuses = new ArrayList<>();
        try (HttpClient client = HttpClient.newHttpClient()) {
            for (int i = 0; i < 2; i++) {
                statuses.add(client.send(HttpRequest.newBuilder(URI.create(base + "/chat/completions"))
                        .POST(HttpRequest.BodyPublishers.ofString("{\"model\":\"m\",\"stream\":true,\"messages\":[]}"))
                        .build(), HttpResponse.BodyHandlers.ofString()).statusCode());
            }
        }
        thread.interrupt();
        assertThat(statuses).containsExactly(200, 500);
        assertThat(run.get(30, TimeUnit.SECONDS).err()).isEmpty();
    }

    /** The statuses its help lists are the ones a real process ends with. */
    @ParameterizedTest
    @CsvSource({"INT, 130", "TERM, 143"})
    void aSignalEndsItWithTheStatusItsHelpLists(String signal, int status, @TempDir Path dir) throws Exception {
        String help = Cli.run("", "mock-server", "--help").out();
        assertThat(help.substring(help.indexOf("Exit status:"))).contains(" " + status + " ").doesNotContain(" 0 ");
        Path script = Files.writeString(dir.resolve("script.json"), SCRIPT);
        // env --default-signal: a build started in the background (nohup, `cmd &`) ignores SIGINT,
        // and an ignored signal is inherited through every exec down to this process, whose JVM
        // would then leave Ctrl-C ignored; a person's terminal never does that.
        List<String> command = new ArrayList<>(List.of("env", "--default-signal=INT"));
        command.addAll(ChildJvm.bellows().java());
        command.addAll(List.of("dev.bellows.cli.BellowsCommand", "mock-server", "--script", script.toString()));
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        try (BufferedReader out = new BufferedReader(new InputStreamReader(process.getInputStream(),
                StandardCharsets.UTF_8))) {
            assertThat(out.readLine()).startsWith("listening on ");
            new ProcessBuilder("kill", "-" + signal, String.valueOf(process.pid())).start().waitFor();
            assertThat(process.waitFor(60, TimeUnit.SECONDS)).isTrue(); // a hang guard
            assertThat(process.exitValue()).isEqualTo(status);
            assertThat(out.readLine()).as("nothing more is printed").isNull();
        } finally {
            process.destroyForcibly();
        }
    }
}
