package dev.bellows.cli;

import static org.assertj.core.api.Assertions.assertThat;

import tools.jackson.databind.JsonNode;
import java.io.ByteArrayInputStream;
import java.io.OutputStream;
import java.net.ServerSocket;
import java.net.InetAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class MockServerCommandTest {

    private static final String SCRIPT = """
            {"turns": [
              {"reasoning": "deep thoughts", "content": "Hello 😀 there", "chunk_size": 3},
              {"status": 429, "headers": {"Retry-After": "1"}, "body": {"error": {"message": "slow down"}}}
            ]}""";

    /** Standard output that hands over each complete line as it is written. */
    static final class Lines extends OutputStream {
        final BlockingQueue<String> lines = new LinkedBlockingQueue<>();
        private final StringBuilder current = new StringBuilder();
        private final java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();

        @Override
        public synchronized void write(int b) {
            bytes.write(b);
            if (b == '\n') {
                current.append(bytes.toString(StandardCharsets.UTF_8));
                bytes.reset();
                lines.add(current.toString());
                current.setLength(0);
            }
        }
    }

    @Test
    void serves_the_script_until_stopped(@TempDir Path dir) throws Exception {
        Path script = Files.writeString(dir.resolve("script.json"), SCRIPT);
        Path record = dir.resolve("requests.jsonl");
        Lines stdout = new Lines();
        CompletableFuture<Cli.Run> run = new CompletableFuture<>();
        Thread thread = Thread.ofPlatform().name("mock-server-under-test").start(() -> run.complete(
                Cli.run(new ByteArrayInputStream(new byte[0]), stdout,
                        "mock-server", "--script", script.toString(), "--port", "0", "--record", record.toString())));
        String line = stdout.lines.poll(30, TimeUnit.SECONDS); // a hang guard, not a timing assertion
        assertThat(line).matches("listening on http://127\\.0\\.0\\.1:\\d+/v1\n");
        URI base = URI.create(line.substring("listening on ".length()).strip());

        try (HttpClient client = HttpClient.newHttpClient()) {
            HttpResponse<String> answer = client.send(HttpRequest.newBuilder(URI.create(base + "/chat/completions"))
                    .header("Authorization", "Bearer sk-live-secret")
                    .POST(HttpRequest.BodyPublishers.ofString(
                            "{\"model\":\"m\",\"stream\":true,\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}"))
                    .build(), HttpResponse.BodyHandlers.ofString());
            assertThat(answer.statusCode()).isEqualTo(200);
            StringBuilder content = new StringBuilder();
            StringBuilder reasoning = new StringBuilder();
            for (String event : answer.body().split("\n\n")) {
                if (event.startsWith("data: {")) {
                    JsonNode delta = Cli.json(event.substring(6)).path("choices").path(0).path("delta");
                    content.append(delta.path("content").asString(""));
                    reasoning.append(delta.path("reasoning_content").asString(""));
                }
            }
            assertThat(content.toString()).isEqualTo("Hello 😀 there");
            assertThat(reasoning.toString()).isEqualTo("deep thoughts");
            assertThat(answer.body()).endsWith("data: [DONE]\n\n");

            HttpResponse<String> limited = client.send(HttpRequest.newBuilder(URI.create(base + "/chat/completions"))
                    .POST(HttpRequest.BodyPublishers.ofString("{\"model\":\"m\",\"messages\":[]}")).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(limited.statusCode()).isEqualTo(429);
            assertThat(limited.headers().firstValue("Retry-After")).hasValue("1");

            HttpResponse<String> models = client.send(HttpRequest.newBuilder(URI.create(base + "/models")).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(Cli.json(models.body()).path("data").path(0).path("id").asString()).isEqualTo("mock");
        }

        thread.interrupt();
        Cli.Run result = run.get(30, TimeUnit.SECONDS);
        assertThat(result.status()).isZero();
        assertThat(result.err()).isEmpty();
        assertThat(stdout.lines).isEmpty(); // exactly one line

        List<String> recorded = Files.readAllLines(record);
        assertThat(recorded).hasSize(3);
        assertThat(String.join("\n", recorded)).doesNotContain("sk-live-secret");
        assertThat(Cli.json(recorded.get(0)).path("headers").path("authorization").asString()).isEqualTo("Bearer [REDACTED]");

        // stopped: the port no longer answers
        try (HttpClient client = HttpClient.newHttpClient()) {
            org.assertj.core.api.Assertions.assertThatThrownBy(() -> client.send(
                    HttpRequest.newBuilder(URI.create(base + "/models")).build(), HttpResponse.BodyHandlers.ofString()))
                    .isInstanceOf(java.io.IOException.class);
        }
    }

    @Test
    void a_missing_script_is_a_usage_error(@TempDir Path dir) {
        Path missing = dir.resolve("nope.json");
        Cli.Run run = Cli.run("", "mock-server", "--script", missing.toString());
        assertThat(run.status()).isEqualTo(2);
        assertThat(run.out()).isEmpty();
        assertThat(run.err()).isEqualTo("bellows mock-server: --script " + missing + ": no such file\n");
    }

    @Test
    void no_script_flag_is_a_usage_error() {
        Cli.Run run = Cli.run("", "mock-server");
        assertThat(run.status()).isEqualTo(2);
        assertThat(run.err()).contains("--script").hasLineCount(1);
    }

    @Test
    void a_directory_as_script_is_a_usage_error(@TempDir Path dir) {
        Cli.Run run = Cli.run("", "mock-server", "--script", dir.toString());
        assertThat(run.status()).isEqualTo(2);
        assertThat(run.err()).startsWith("bellows mock-server: --script " + dir + ": ").hasLineCount(1);
    }

    @Test
    void an_invalid_script_names_the_file_turn_and_field(@TempDir Path dir) throws Exception {
        Path script = Files.writeString(dir.resolve("bad.json"), "{\"turns\": [{\"content\": \"a\", \"chunk_size\": 0}]}");
        Cli.Run run = Cli.run("", "mock-server", "--script", script.toString());
        assertThat(run.status()).isEqualTo(2);
        assertThat(run.err()).isEqualTo("bellows mock-server: --script " + script
                + ": turns[0].chunk_size: must be at least 1, got 0\n");

        Path notJson = Files.writeString(dir.resolve("broken.json"), "{\"turns\": [\n");
        Cli.Run broken = Cli.run("", "mock-server", "--script", notJson.toString());
        assertThat(broken.status()).isEqualTo(2);
        assertThat(broken.err()).startsWith("bellows mock-server: --script " + notJson + ": not valid JSON")
                .hasLineCount(1);
    }

    @Test
    void a_port_in_use_is_a_usage_error(@TempDir Path dir) throws Exception {
        Path script = Files.writeString(dir.resolve("script.json"), SCRIPT);
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
            Cli.Run run = Cli.run("", "mock-server", "--script", script.toString(),
                    "--port", String.valueOf(taken.getLocalPort()));
            assertThat(run.status()).isEqualTo(2);
            assertThat(run.out()).isEmpty();
            assertThat(run.err()).startsWith("bellows mock-server: --port: ")
                    .contains("in use").hasLineCount(1);
        }
    }

    @Test
    void ports_out_of_range_and_not_numbers_are_usage_errors(@TempDir Path dir) throws Exception {
        Path script = Files.writeString(dir.resolve("script.json"), SCRIPT);
        for (String port : List.of("70000", "-1")) {
            Cli.Run run = Cli.run("", "mock-server", "--script", script.toString(), "--port", port);
            assertThat(run.status()).as(port).isEqualTo(2);
            assertThat(run.err()).as(port).isEqualTo(
                    "bellows mock-server: --port: must be between 0 and 65535 (0: a free port)\n");
        }
        Cli.Run word = Cli.run("", "mock-server", "--script", script.toString(), "--port", "eighty");
        assertThat(word.status()).isEqualTo(2);
        assertThat(word.err()).isEqualTo("bellows mock-server: --port: invalid value (expected a whole number)"
                + " (see 'bellows mock-server --help')\n");
    }

    @Test
    void an_unwritable_record_file_is_a_usage_error(@TempDir Path dir) throws Exception {
        Path script = Files.writeString(dir.resolve("script.json"), SCRIPT);
        Path record = dir.resolve("no-such-dir").resolve("requests.jsonl");
        Cli.Run run = Cli.run("", "mock-server", "--script", script.toString(), "--record", record.toString());
        assertThat(run.status()).isEqualTo(2);
        assertThat(run.err()).isEqualTo("bellows mock-server: --record " + record
                + ": cannot write to it: its directory does not exist\n");
    }

    @Test
    void help_describes_the_command() {
        Cli.Run run = Cli.run("", "mock-server", "--help");
        assertThat(run.status()).isZero();
        assertThat(run.out()).contains("--script", "--port", "--record", "listening on");
        assertThat(Cli.run("", "--help").out()).contains("mock-server");
    }
}
