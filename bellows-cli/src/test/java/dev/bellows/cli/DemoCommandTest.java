package dev.bellows.cli;

import static org.assertj.core.api.Assertions.assertThat;

import tools.jackson.databind.JsonNode;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** {@code bellows demo}, in-process: the bundled script over HTTP, the agent loop, the real tools. */
class DemoCommandTest {

    static final String ANSWER =
            "About 48 seconds: bellows.txt has 120 words, and (120 / 150) * 60 = 48 at 150 words per minute.";

    private static Host host(Interrupts interrupts) {
        return new Host(Map.of(), Path.of("").toAbsolutePath(), interrupts, false);
    }

    @Test
    void textShowsTheProgressOnStderrAndTheAnswerAloneOnStdout() {
        Cli.Run run = Cli.run(host(Interrupts.NONE), "demo");

        assertThat(run.status()).isEqualTo(0);
        assertThat(run.out()).isEqualTo(ANSWER + "\n");
        assertThat(run.err())
                .contains("task: " + DemoCommand.TASK)
                .contains("thinking: The user wants a reading time")
                .contains("Short notes usually take < 1 minute to read aloud")
                .contains("calling word_count\u2026")
                .contains("  \u2713 word_count: {\"document\":\"bellows.txt\",\"lines\":11,\"words\":120,\"characters\":652}")
                .contains("  \u2717 calculator: unexpected \"\u00d7\" at position 11 of \"120 / 150 \u00d7 60\": write * to multiply")
                .contains("  \u2713 calculator: 48")
                .contains("plan:\n  [x] Count the words in bellows.txt\n  [x] Convert words to seconds at 150 words per minute\n"
                        + "  [x] Report the reading time")
                .doesNotContain("\u001b[");
    }

    @Test
    void jsonlHasEveryEventWithTheRealToolsOutputsTheMistakeAndItsRecovery() {
        Cli.Run run = Cli.run(host(Interrupts.NONE), "demo", "--output", "jsonl");

        assertThat(run.status()).isEqualTo(0);
        assertThat(run.err()).isEmpty();
        List<JsonNode> events = run.outJson();
        assertThat(events.getFirst().get("type").asString()).isEqualTo("loop_start");
        assertThat(events.getFirst().get("task").asString()).isEqualTo(DemoCommand.TASK);
        assertThat(events).allSatisfy(event -> assertThat(event.has("chunk")).isFalse());
        assertThat(types(events)).contains("iteration_start", "thinking_start", "thinking_content", "message_content",
                "tool_call_start", "tool_call_name", "tool_call_content", "tool_call_end");
        assertThat(text(events, "message_content")).contains("usually take < 1 minute");
        assertThat(text(events, "thinking_content"))
                .contains("The user wants a reading time") // the provider's reasoning channel
                .contains("Two steps: count the words");   // <thinking> in the message

        // The real tools' outputs, and the calculator's error for the mistaken call, in order.
        List<String> tools = events.stream()
                .filter(e -> e.get("type").asString().startsWith("tool_result"))
                .map(e -> e.get("type").asString() + " " + e.get("tool_name").asString() + ": "
                        + (e.has("error") ? e.get("error").asString() : e.get("result").asString()))
                .filter(line -> !line.contains("update_plan"))
                .toList();
        assertThat(tools).containsExactly(
                "tool_result word_count: {\"document\":\"bellows.txt\",\"lines\":11,\"words\":120,\"characters\":652}",
                "tool_result_error calculator: unexpected \"\u00d7\" at position 11 of \"120 / 150 \u00d7 60\": write * to"
                        + " multiply (the calculator knows numbers, + - * / and parentheses)",
                "tool_result calculator: 48",
                "tool_result task_completion: " + ANSWER);
        JsonNode recovered = events.stream()
                .filter(e -> e.get("type").asString().equals("tool_result") && e.get("tool_name").asString().equals("calculator"))
                .findFirst().orElseThrow();
        assertThat(recovered.get("server_name").asString()).isEqualTo("local");
        assertThat(recovered.get("arguments").get("expression").asString()).isEqualTo("(120 / 150) * 60");

        List<JsonNode> plans = events.stream().filter(e -> e.get("type").asString().equals("plan_update")).toList();
        assertThat(plans).hasSize(3);
        assertThat(plans.get(0).get("steps").get(0).get("status").asString()).isEqualTo("in_progress");
        assertThat(plans.get(2).get("steps")).allSatisfy(step -> assertThat(step.get("status").asString()).isEqualTo("completed"));

        assertThat(events.stream().filter(e -> e.get("type").asString().equals("iteration_start"))).hasSize(4);
        JsonNode end = events.getLast();
        assertThat(end.get("type").asString()).isEqualTo("loop_end");
        assertThat(end.get("reason").asString()).isEqualTo("task_completion");
        assertThat(end.get("result").asString()).isEqualTo(ANSWER);
    }

    @Test
    void ctrlCCancelsTheRunWithStatus130() {
        Interrupts soon = action -> {
            Thread timer = Thread.ofVirtual().start(() -> {
                try {
                    Thread.sleep(200);
                    action.run();
                } catch (InterruptedException e) {
                    // the run ended first
                }
            });
            return timer::interrupt;
        };
        Cli.Run run = Cli.run(host(soon), "demo");

        assertThat(run.status()).isEqualTo(130);
        assertThat(run.out()).isEmpty();
        assertThat(run.err()).endsWith("bellows demo: cancelled\n");
    }

    @Test
    void anUnknownOutputIsAUsageError() {
        Cli.Run run = Cli.run(host(Interrupts.NONE), "demo", "--output", "yaml");

        assertThat(run.status()).isEqualTo(2);
        assertThat(run.out()).isEmpty();
        assertThat(run.err()).isEqualTo("bellows demo: --output: must be text or jsonl\n");
    }

    @Test
    void helpSaysWhatItDoes() {
        Cli.Run run = Cli.run("", "demo", "--help");

        assertThat(run.status()).isEqualTo(0);
        assertThat(run.out()).contains("Runs a real task offline").contains("--output");
    }

    private static List<String> types(List<JsonNode> events) {
        return events.stream().map(e -> e.get("type").asString()).toList();
    }

    private static String text(List<JsonNode> events, String type) {
        StringBuilder text = new StringBuilder();
        events.stream().filter(e -> e.get("type").asString().equals(type)).forEach(e -> text.append(e.get("content").asString()));
        return text.toString();
    }
}
