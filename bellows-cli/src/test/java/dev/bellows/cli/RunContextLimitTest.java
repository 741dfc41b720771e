package dev.bellows.cli;

import static dev.bellows.cli.RunCommandTest.call;
import static dev.bellows.cli.RunCommandTest.complete;
import static dev.bellows.cli.RunCommandTest.messages;
import static dev.bellows.cli.RunCommandTest.server;
import static org.assertj.core.api.Assertions.assertThat;

import tools.jackson.databind.JsonNode;
import dev.bellows.memory.ConversationMemory;
import dev.bellows.memory.EstimatingTokenCounter;
import dev.bellows.testkit.MockLlmServer;
import dev.bellows.testkit.RecordedRequest;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code bellows run --max-context-tokens N}: long runs are pruned by whole turns, end to end
 * against {@link MockLlmServer}. The model is named {@code mock}, so tokens are counted by
 * {@link EstimatingTokenCounter}, and the test can count what was sent exactly as the run did.
 */
class RunContextLimitTest {

    static final int STEPS = 6;
    static final String TASK = "do it";

    @TempDir
    Path dir;

    /** Iteration {@code k}: an update_plan call with about 100 tokens of its own. */
    static String step(int k) {
        return "<thinking>step " + k + " " + "x".repeat(380) + "</thinking>\n"
                + call("update_plan", "{\"steps\": [{\"description\": \"step " + k + "\", \"status\": \"in_progress\"}]}");
    }

    static String[] script() {
        List<String> answers = new ArrayList<>();
        for (int k = 1; k <= STEPS; k++) {
            answers.add(step(k));
        }
        answers.add(complete("all done"));
        return answers.toArray(String[]::new);
    }

    Cli.Run run(MockLlmServer server, String... args) {
        List<String> all = new ArrayList<>(List.of("run", "--base-url", server.baseUrl().toString(), "--model", "mock",
                "--output", "jsonl"));
        all.addAll(List.of(args));
        return Cli.run(new Host(Map.of(), dir, Interrupts.NONE, false), all.toArray(String[]::new));
    }

    /** What the run's memory counts for a request: each message's content plus its overhead. */
    static int tokens(JsonNode messages) {
        EstimatingTokenCounter counter = new EstimatingTokenCounter();
        int total = 0;
        for (JsonNode message : messages) {
            total += counter.count(message.get("content").asString()) + ConversationMemory.MESSAGE_OVERHEAD_TOKENS;
        }
        return total;
    }

    static List<RecordedRequest> unlimitedRequests() {
        try (MockLlmServer server = server(script())) {
            Cli.Run run = Cli.run(new Host(Map.of(), Path.of("."), Interrupts.NONE, false), "run", "--base-url",
                    server.baseUrl().toString(), "--model", "mock", "--output", "jsonl", TASK);
            assertThat(run.status()).as(run.err()).isZero();
            return server.requests();
        }
    }

    /** The step numbers of the assistant messages sent, oldest first. */
    static List<Integer> stepsSent(JsonNode messages) {
        List<Integer> steps = new ArrayList<>();
        for (JsonNode message : messages) {
            if (message.get("role").asString().equals("assistant")) {
                String content = message.get("content").asString();
                steps.add(Integer.parseInt(content.substring("<thinking>step ".length(), content.indexOf(' ', 15))));
            }
        }
        return steps;
    }

    @Test
    void later_requests_drop_the_oldest_whole_turns_and_keep_system_task_and_call_with_observation() {
        List<RecordedRequest> unlimited = unlimitedRequests();
        assertThat(unlimited).hasSize(STEPS + 1);
        // Room for the system message, the task and about two iterations of ~125 tokens.
        int limit = tokens(messages(unlimited.get(0))) + 260;
        assertThat(tokens(messages(unlimited.get(STEPS)))).as("the unlimited run outgrows the limit").isGreaterThan(limit);

        try (MockLlmServer server = server(script())) {
            Cli.Run run = run(server, "--max-context-tokens", Integer.toString(limit), TASK);
            assertThat(run.status()).as(run.err()).isZero();
            List<RecordedRequest> requests = server.requests();
            assertThat(requests).hasSize(STEPS + 1);
            JsonNode system = messages(unlimited.get(0)).get(0);

            boolean pruned = false;
            for (int i = 0; i < requests.size(); i++) {
                JsonNode sent = messages(requests.get(i));
                JsonNode full = messages(unlimited.get(i));
                // never the system message; the task stays right after it
                assertThat(sent.get(0)).isEqualTo(system);
                assertThat(sent.get(1).get("role").asString()).isEqualTo("user");
                assertThat(sent.get(1).get("content").asString()).startsWith(TASK);
                // user / assistant alternate: every tool call is followed by its observation
                for (int m = 1; m < sent.size(); m++) {
                    assertThat(sent.get(m).get("role").asString()).isEqualTo(m % 2 == 1 ? "user" : "assistant");
                }
                assertThat(sent.get(sent.size() - 1).get("role").asString()).isEqualTo("user");
                // within the limit, as the memory counts it
                assertThat(tokens(sent)).as("request %d", i + 1).isLessThanOrEqualTo(limit);
                // what is kept is the newest steps, contiguous, each call with the very observation it had
                List<Integer> steps = stepsSent(sent);
                List<Integer> all = stepsSent(full);
                assertThat(all).containsSubsequence(steps);
                if (!steps.isEmpty()) {
                    assertThat(steps.getLast()).isEqualTo(i);
                    assertThat(steps).isEqualTo(all.subList(all.size() - steps.size(), all.size()));
                }
                for (int m = 2; m < sent.size(); m += 2) {
                    int step = stepsSent(sent).get(m / 2 - 1);
                    int index = 2 * step; // in the unlimited request: system, task, then (answer, observation) per step
                    assertThat(sent.get(m)).isEqualTo(full.get(index));
                    assertThat(sent.get(m + 1)).isEqualTo(full.get(index + 1));
                }
                pruned |= steps.size() < all.size();
            }
            assertThat(pruned).as("some request left out old turns").isTrue();
            List<Integer> lastSteps = stepsSent(messages(requests.get(STEPS)));
            assertThat(lastSteps).doesNotContain(1, 2).contains(STEPS);
        }
    }

    @Test
    void without_the_flag_nothing_is_left_out() {
        List<RecordedRequest> unlimited = unlimitedRequests();
        assertThat(stepsSent(messages(unlimited.get(STEPS)))).containsExactly(1, 2, 3, 4, 5, 6);
    }

    @Test
    void the_config_file_key_sets_it_and_the_flag_wins() throws IOException {
        List<RecordedRequest> unlimited = unlimitedRequests();
        int limit = tokens(messages(unlimited.get(0))) + 260;
        try (MockLlmServer server = server(script())) {
            Files.writeString(dir.resolve("bellows.json"), "{\"max_context_tokens\": " + limit + "}");
            assertThat(run(server, TASK).status()).isZero();
            assertThat(stepsSent(messages(server.requests().get(STEPS)))).doesNotContain(1).contains(STEPS);
        }
        try (MockLlmServer server = server(script())) {
            Files.writeString(dir.resolve("bellows.json"), "{\"max_context_tokens\": " + limit + "}");
            assertThat(run(server, "--max-context-tokens", "1000000", TASK).status()).isZero();
            assertThat(stepsSent(messages(server.requests().get(STEPS)))).containsExactly(1, 2, 3, 4, 5, 6);
        }
    }

    @Test
    void the_react_agent_is_pruned_too() {
        String[] answers = new String[STEPS + 1];
        for (int k = 1; k <= STEPS; k++) {
            // ReAct has no tool that lets the loop go on here: answers without an action do, each
            // turn then [answer, the reminder to act]
            answers[k - 1] = "# thought\nstep " + k + " " + "x".repeat(380) + "\n";
        }
        answers[STEPS] = "# answer\nall done\n";
        int limit;
        try (MockLlmServer server = server(answers)) {
            Cli.Run unlimited = run(server, "--agent", "react", "--max-consecutive-errors", "10", TASK);
            assertThat(unlimited.status()).as(unlimited.out()).isZero();
            limit = tokens(messages(server.requests().get(0))) + 260;
            assertThat(messages(server.requests().get(STEPS)).size()).isEqualTo(2 + 2 * STEPS);
        }
        try (MockLlmServer server = server(answers)) {
            Cli.Run run = run(server, "--agent", "react", "--max-consecutive-errors", "10",
                    "--max-context-tokens", Integer.toString(limit), TASK);
            assertThat(run.status()).as(run.err()).isZero();
            JsonNode last = messages(server.requests().get(STEPS));
            assertThat(last.get(0).get("role").asString()).isEqualTo("system");
            assertThat(last.get(1)).isEqualTo(messages(server.requests().get(0)).get(1)); // the task
            assertThat(last.size()).isLessThan(2 + 2 * STEPS).isEven();
            assertThat(last.get(2).get("role").asString()).isEqualTo("assistant");
            assertThat(last.get(2).get("content").asString()).doesNotContain("step 1 ");
            assertThat(tokens(last)).isLessThanOrEqualTo(limit);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"default", "react"})
    void aLimitBelowTheSystemPromptAndTaskIsAUsageErrorBeforeAnyModelCall(String agent) {
        try (MockLlmServer server = server(complete("x"))) {
            Cli.Run run = run(server, "--agent", agent, "--max-context-tokens", "50", TASK);
            assertThat(run.status()).as(run.err()).isEqualTo(2);
            assertThat(run.out()).isEmpty();
            assertThat(run.err()).startsWith("bellows run: --max-context-tokens: must be at least ")
                    .contains("the system prompt and the task alone take").hasLineCount(1);
            assertThat(server.requests()).isEmpty();
            int needed = Integer.parseInt(run.err().replaceAll("(?s).*must be at least (\\d+) here.*", "$1"));
            assertThat(needed).isGreaterThan(50);
        }
        try (MockLlmServer server = server(complete("x"))) {
            // The smallest budget it asks for is accepted.
            Cli.Run tooSmall = run(server, "--agent", agent, "--max-context-tokens", "50", TASK);
            int needed = Integer.parseInt(tooSmall.err().replaceAll("(?s).*must be at least (\\d+) here.*", "$1"));
            Cli.Run run = run(server, "--agent", agent, "--max-context-tokens", Integer.toString(needed + 50), TASK);
            assertThat(run.err()).doesNotContain("must be at least");
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"0", "-5", "abc", "1.5", "99999999999"})
    void bad_values_are_usage_errors_naming_the_flag(String value) {
        try (MockLlmServer server = server(complete("x"))) {
            Cli.Run run = run(server, "--max-context-tokens", value, TASK);
            assertThat(run.status()).as(run.err()).isEqualTo(2);
            assertThat(run.out()).isEmpty();
            assertThat(run.err()).contains("--max-context-tokens");
            assertThat(run.err().strip()).doesNotContain("\n").doesNotContain("Exception");
            assertThat(server.requests()).isEmpty();
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"0", "-1", "\"many\"", "2.5"})
    void bad_config_values_are_usage_errors_naming_the_key(String value) throws IOException {
        try (MockLlmServer server = server(complete("x"))) {
            Files.writeString(dir.resolve("bellows.json"), "{\"max_context_tokens\": " + value + "}");
            Cli.Run run = run(server, TASK);
            assertThat(run.status()).as(run.err()).isEqualTo(2);
            assertThat(run.err()).contains("bellows.json", "max_context_tokens");
            assertThat(server.requests()).isEmpty();
        }
    }

    @Test
    void help_documents_the_flag() {
        Cli.Run help = Cli.run("", "run", "--help");
        assertThat(help.status()).isZero();
        assertThat(help.out()).contains("--max-context-tokens=N", "Default: no limit");
    }
}
