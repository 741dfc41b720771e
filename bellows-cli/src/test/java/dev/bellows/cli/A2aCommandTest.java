package dev.bellows.cli;

import static org.assertj.core.api.Assertions.assertThat;

import tools.jackson.databind.JsonNode;
import dev.bellows.a2a.TaskState;
import dev.bellows.a2a.client.A2aClient;
import dev.bellows.testkit.A2aJs;
import dev.bellows.testkit.Background;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code bellows a2a card} and {@code bellows a2a send} against the official @a2a-js/sdk server. */
class A2aCommandTest {

    private static A2aJs.Server server;

    @TempDir
    Path dir;

    @BeforeAll
    static void start() throws Exception {
        server = A2aJs.shared();
    }

    private Cli.Run bellows(Map<String, String> env, String... args) {
        return Cli.run(new Host(env, dir, Interrupts.NONE, false), args);
    }

    private Cli.Run bellows(String... args) {
        return bellows(Map.of(), args);
    }

    @Test
    void theCardIsShownInWordsOrAsJson() {
        Cli.Run text = bellows("a2a", "card", server.url());
        assertThat(text.status()).as(text.err()).isZero();
        assertThat(text.out()).startsWith("js-test-agent 1.0.0\n").contains(
                "JSONRPC 1.0  " + server.url() + "/a2a/jsonrpc  (used)",
                "HTTP+JSON 1.0  " + server.url() + "/a2a/rest\n",
                "capabilities: streaming, push notifications",
                "  echo  Echo: Echoes the text back.");
        Cli.Run json = bellows("a2a", "card", server.url(), "--output", "json", "--binding", "http-json");
        assertThat(json.status()).isZero();
        JsonNode card = Cli.json(json.out());
        assertThat(card.path("name").asString()).isEqualTo("js-test-agent");
        assertThat(card.at("/supportedInterfaces/1/protocolBinding").asString()).isEqualTo("HTTP+JSON");
        Cli.Run missing = bellows("a2a", "card", server.url() + "/nothing-here");
        assertThat(missing.status()).isEqualTo(1);
        assertThat(missing.err()).contains("bellows a2a card: cannot read the agent card", "HTTP 404");
    }

    @Test
    void aTaskStreamsItsAnswerAndEndsWithTheExitStatusOfItsState() {
        Cli.Run done = bellows("a2a", "send", server.url(), "hello there");
        assertThat(done.status()).as(done.err()).isZero();
        assertThat(done.out()).isEqualTo("Echo: hello there!\n");
        assertThat(done.err()).contains("[working] working on it\n").contains("[completed]\n");

        Cli.Run failed = bellows("a2a", "send", server.url(), "fail now", "--binding", "http-json");
        assertThat(failed.status()).isEqualTo(1);
        assertThat(failed.err()).contains("bellows a2a send: the task failed: the agent failed on purpose");

        try (A2aJs.Server plain = A2aJs.startServer(Map.of("STREAMING", "false"))) {
            Cli.Run waited = bellows("a2a", "send", plain.url(), "not streamed");
            assertThat(waited.status()).as(waited.err()).isZero();
            assertThat(waited.out()).isEqualTo("Echo: not streamed!\n");
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }

        Cli.Run direct = bellows("a2a", "send", server.url(), "direct");
        assertThat(direct.status()).isZero();
        assertThat(direct.out()).isEqualTo("Direct: direct\n");
    }

    @Test
    void jsonlIsEveryEventAsTheAgentSentIt() {
        Cli.Run run = bellows("a2a", "send", server.url(), "hi", "--output", "jsonl");
        assertThat(run.status()).as(run.err()).isZero();
        List<JsonNode> events = run.outJson();
        assertThat(events.getFirst().at("/task/status/state").asString()).isEqualTo("TASK_STATE_SUBMITTED");
        assertThat(events).extracting(e -> e.propertyNames().iterator().next()).containsExactly("task", "statusUpdate",
                "artifactUpdate", "artifactUpdate", "artifactUpdate", "statusUpdate");
        assertThat(events.getLast().at("/statusUpdate/status/state").asString()).isEqualTo("TASK_STATE_COMPLETED");
    }

    @Test
    void aQuestionExitsThreeAndTheCommandItPrintsAnswersIt() {
        Cli.Run asked = bellows("a2a", "send", server.url(), "ask me");
        assertThat(asked.status()).as(asked.err()).isEqualTo(3);
        assertThat(asked.out()).isEqualTo("Which city?\n");
        Matcher hint = Pattern.compile("answer with: bellows a2a send (\\S+) ANSWER --task-id (\\S+) --context-id (\\S+)")
                .matcher(asked.err());
        assertThat(hint.find()).as(asked.err()).isTrue();
        assertThat(hint.group(1)).isEqualTo(server.url());
        Cli.Run answered = bellows("a2a", "send", server.url(), "Oslo", "--task-id", hint.group(2), "--context-id", hint.group(3));
        assertThat(answered.status()).as(answered.err()).isZero();
        assertThat(answered.out()).isEqualTo("Weather in Oslo: sunny\n");
    }

    @Test
    void usageErrorsExitTwoWithOneLine() {
        assertThat(bellows("a2a", "send", server.url()).status()).isEqualTo(2);
        Cli.Run output = bellows("a2a", "send", server.url(), "hi", "--output", "json");
        assertThat(output.status()).isEqualTo(2);
        assertThat(output.err()).isEqualTo("bellows a2a send: --output: text or jsonl\n");
        Cli.Run unknown = bellows("a2a", "card", "helper");
        assertThat(unknown.status()).isEqualTo(2);
        assertThat(unknown.err()).contains("\"helper\" is neither a URL nor an agent of the config's \"a2a\" (agents: none)");
        assertThat(bellows("a2a", "card", "ftp://127.0.0.1/").err()).contains("not an http(s) URL");
        assertThat(bellows("a2a", "card", server.url(), "--binding", "grpc").status()).isEqualTo(2);
    }

    @Test
    void aConfiguredAgentSendsItsHeadersFromTheEnvironmentAndNeverShowsThem() throws Exception {
        try (A2aJs.Server guarded = A2aJs.startServer(Map.of("A2A_TOKEN", "tok-9f8e7d"))) {
            Files.writeString(dir.resolve("bellows.json"), """
                    {"a2a": {"guarded": {"url": "%s", "headers": {"Authorization": "Bearer ${GUARD_TOKEN}"}}}}
                    """.formatted(guarded.url()));
            Cli.Run run = bellows(Map.of("GUARD_TOKEN", "tok-9f8e7d"), "a2a", "send", "guarded", "hello", "--output", "jsonl");
            assertThat(run.status()).as(run.err()).isZero();
            assertThat(run.out() + run.err()).doesNotContain("tok-9f8e7d");
            Cli.Run wrong = bellows(Map.of("GUARD_TOKEN", "not-it-123"), "a2a", "send", "guarded", "hello");
            assertThat(wrong.status()).isEqualTo(1);
            assertThat(wrong.err()).contains("HTTP 401", "[redacted]").doesNotContain("not-it-123");
            Cli.Run unset = bellows("a2a", "send", "guarded", "hello");
            assertThat(unset.status()).isEqualTo(2);
            assertThat(unset.err()).contains("the environment variable GUARD_TOKEN is not set");
            Cli.Run header = bellows(Map.of("GUARD_TOKEN", "tok-9f8e7d"), "a2a", "send", guarded.url(), "hello",
                    "--header", "Authorization: Bearer ${GUARD_TOKEN}");
            assertThat(header.status()).as(header.err()).isZero();
        }
    }

    @Test
    void ctrlCCancelsTheRemoteTask() throws Exception {
        AtomicReference<Runnable> ctrlC = new AtomicReference<>();
        Interrupts interrupts = action -> {
            ctrlC.set(action);
            return () -> ctrlC.set(null);
        };
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        CompletableFuture<Integer> status = Background.supply(() -> BellowsCommand.commandLine(
                new ByteArrayInputStream(new byte[0]), out, err, false, new Host(Map.of(), dir, interrupts, false))
                .execute("a2a", "send", server.url(), "hold"));
        while (!err.toString(StandardCharsets.UTF_8).contains("[working]")) {
            assertThat(status).as(err.toString(StandardCharsets.UTF_8)).isNotDone();
            Thread.sleep(20);
        }
        ctrlC.get().run();
        assertThat(status.get(60, TimeUnit.SECONDS)).isEqualTo(130);
        Matcher task = Pattern.compile("task (\\S+)").matcher(err.toString(StandardCharsets.UTF_8));
        assertThat(task.find()).isTrue();
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("cancelled: the remote task " + task.group(1) + " is canceled");
        try (A2aClient client = A2aClient.builder(server.url()).connect()) {
            assertThat(client.getTask(task.group(1)).status().state()).isEqualTo(TaskState.CANCELED);
        }
    }
}
