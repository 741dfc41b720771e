package dev.bellows.cli;

import dev.bellows.testkit.Background;
import static org.assertj.core.api.Assertions.assertThat;

import tools.jackson.databind.JsonNode;
import dev.bellows.testkit.MockLlmServer;
import dev.bellows.testkit.MockScript;
import dev.bellows.testkit.MockToolCall;
import dev.bellows.testkit.MockTurn;
import dev.bellows.testkit.RecordedRequest;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code bellows run} end to end: in-process through {@link Cli}, against a
 * {@link MockLlmServer} over real HTTP on 127.0.0.1, with the environment and working
 * directory of each test its own.
 */
class RunCommandTest {

    static final String KEY = "sk-test-SECRET-0123456789";

    @TempDir
    Path dir;

    static String call(String tool, String arguments) {
        return "<tool>{\"tool_name\": \"" + tool + "\", \"arguments\": " + arguments + "}</tool>";
    }

    static String complete(String result) {
        return call("task_completion", "{\"result\": \"" + result + "\"}");
    }

    static final String PLAN = "<thinking>plan it</thinking>\nI will plan.\n"
            + call("update_plan", "{\"steps\": [{\"description\": \"read\", \"status\": \"in_progress\"}]}");

    static MockLlmServer server(MockTurn... turns) {
        try {
            return MockLlmServer.start(MockScript.of(turns));
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    static MockLlmServer server(String... contents) {
        return server(java.util.Arrays.stream(contents).map(MockTurn::content).toArray(MockTurn[]::new));
    }

    Host host(Map<String, String> env) {
        return new Host(env, dir, Interrupts.NONE, false);
    }

    Cli.Run run(Map<String, String> env, String... args) {
        return Cli.run(host(env), args);
    }

    /** {@code run --base-url URL --model mock ARGS...} with no environment. */
    Cli.Run run(MockLlmServer server, String... args) {
        List<String> all = new ArrayList<>(List.of("run", "--base-url", server.baseUrl().toString(), "--model", "mock"));
        all.addAll(List.of(args));
        return run(Map.of(), all.toArray(String[]::new));
    }

    static List<String> types(Cli.Run run) {
        List<String> types = new ArrayList<>();
        for (JsonNode event : run.outJson()) {
            String type = event.get("type").asString();
            if (type.endsWith("_content") && !types.isEmpty() && types.get(types.size() - 1).equals(type)) {
                continue; // how a text is split into deltas is free
            }
            types.add(type);
        }
        return types;
    }

    static JsonNode last(Cli.Run run) {
        List<JsonNode> events = run.outJson();
        return events.get(events.size() - 1);
    }

    static void assertNoSecret(Cli.Run run) {
        assertThat(run.out()).doesNotContain(KEY);
        assertThat(run.err()).doesNotContain(KEY);
    }

    static JsonNode messages(RecordedRequest request) {
        return request.body().get("messages");
    }

    @Nested
    class Endings {

        @Test
        void task_completion_exits_0_with_the_result_alone_on_stdout() {
            try (MockLlmServer server = server(complete("all done"))) {
                Cli.Run run = run(server, "--api-key", KEY, "do it");
                assertThat(run.status()).isZero();
                assertThat(run.out()).isEqualTo("all done\n");
                assertThat(run.err()).contains("calling task_completion\u2026");
                assertThat(server.requests().get(0).header("Authorization")).isEqualTo("Bearer " + RecordedRequest.REDACTED);
                assertNoSecret(run);
            }
        }

        @Test
        void ask_question_exits_0() {
            try (MockLlmServer server = server(call("ask_question", "{\"question\": \"Which file?\"}"))) {
                Cli.Run run = run(server, "--output", "jsonl", "read it");
                assertThat(run.status()).isZero();
                assertThat(last(run).get("reason").asString()).isEqualTo("ask_question");
                assertThat(last(run).get("result").asString()).isEqualTo("Which file?");
            }
        }

        @Test
        void converse_exits_0() {
            try (MockLlmServer server = server(call("converse", "{\"message\": \"Hello!\"}"))) {
                Cli.Run run = run(server, "hi");
                assertThat(run.status()).isZero();
                assertThat(run.out()).isEqualTo("Hello!\n");
            }
        }

        @Test
        void max_iterations_exits_1_after_answers_without_tool_calls() {
            try (MockLlmServer server = server("I think so.", "Still thinking.", complete("never"))) {
                Cli.Run run = run(server, "--max-iterations", "2", "--output", "jsonl", "task");
                assertThat(run.status()).isEqualTo(1);
                assertThat(types(run)).filteredOn(t -> t.equals("no_tool_call")).hasSize(2);
                assertThat(last(run).get("reason").asString()).isEqualTo("max_iterations");
                assertThat(server.requests()).hasSize(2);
                assertThat(run.err()).startsWith("bellows run: max_iterations: ");
            }
        }

        @Test
        void max_iterations_exits_1_after_tool_errors() {
            try (MockLlmServer server = server(call("nope", "{}"), call("nope", "{}"))) {
                Cli.Run run = run(server, "--max-iterations", "2", "--output", "jsonl", "task");
                assertThat(run.status()).isEqualTo(1);
                assertThat(types(run)).filteredOn(t -> t.equals("tool_result_error")).hasSize(2);
                assertThat(last(run).get("reason").asString()).isEqualTo("max_iterations");
            }
        }

        @Test
        void circuit_breaker_exits_1() {
            try (MockLlmServer server = server("a", "b", "c", "d")) {
                Cli.Run run = run(server, "--output", "jsonl", "--max-consecutive-errors", "3", "task");
                assertThat(run.status()).isEqualTo(1);
                assertThat(last(run).get("reason").asString()).isEqualTo("circuit_breaker");
                assertThat(server.requests()).hasSize(3);
            }
        }

        @Test
        void a_401_is_an_error_exit_1_with_the_providers_message_and_no_key() {
            try (MockLlmServer server = server(MockTurn.status(401).errorMessage("Incorrect API key provided"))) {
                Cli.Run run = run(server, "--api-key", KEY, "task");
                assertThat(run.status()).isEqualTo(1);
                assertThat(run.out()).isEmpty();
                assertThat(run.err()).startsWith("bellows run: error: HTTP 401").endsWith(": Incorrect API key provided\n");
                assertThat(server.requests()).hasSize(1); // not retried
                assertNoSecret(run);
            }
        }

        @Test
        void cancelling_while_the_model_streams_exits_130() throws Exception {
            AtomicReference<Runnable> interrupt = new AtomicReference<>();
            Interrupts interrupts = action -> {
                interrupt.set(action);
                return () -> interrupt.set(null);
            };
            try (MockLlmServer server = server(MockTurn.content("x".repeat(200) + complete("late")).chunkSize(1).delayMs(50))) {
                CompletableFuture<Cli.Run> result = Background.supply(() -> Cli.run(
                        new Host(Map.of(), dir, interrupts, false), "run", "--base-url", server.baseUrl().toString(),
                        "--model", "mock", "--output", "jsonl", "task"));
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30); // a hang guard
                while ((interrupt.get() == null || server.requests().isEmpty()) && System.nanoTime() < deadline) {
                    Thread.sleep(10);
                }
                interrupt.get().run();
                Cli.Run run = result.get(30, TimeUnit.SECONDS);
                assertThat(run.status()).isEqualTo(130);
                assertThat(last(run).get("reason").asString()).isEqualTo("cancelled");
                assertThat(run.err()).isEqualTo("bellows run: cancelled\n");
            }
        }
    }

    @Nested
    class ReAct {
        @Test
        void the_react_agent_answers_through_its_sections() {
            try (MockLlmServer server = server("# thought\nEasy.\n\n# answer\n42")) {
                Cli.Run result = run(Map.of(), "run", "--base-url", server.baseUrl().toString(), "--api-key", KEY,
                        "--model", "mock", "--agent", "react", "--output", "jsonl", "What is six times seven?");

                assertThat(result.status()).isEqualTo(0);
                List<String> lines = result.out().lines().toList();
                assertThat(lines.get(lines.size() - 1))
                        .isEqualTo("{\"type\":\"loop_end\",\"reason\":\"task_completion\",\"result\":\"42\"}");
                String systemPrompt = server.requests().get(0).body().get("messages").get(0).get("content").asString();
                assertThat(systemPrompt).contains("# thought", "# action", "# answer");
                assertThat(result.out() + result.err()).doesNotContain(KEY);
            }
        }
    }

    @Nested
    class NativeToolMode {
        @Test
        void tool_mode_native_sends_the_tools_and_reads_streamed_tool_calls() {
            try (MockLlmServer server = server(
                    MockTurn.content("Planning.").withToolCalls(MockToolCall.of("update_plan",
                            "{\"steps\": [{\"description\": \"read\", \"status\": \"in_progress\"}]}")).chunkSize(5),
                    MockTurn.toolCalls(MockToolCall.of("task_completion", "{\"result\": \"all done\"}")))) {
                Cli.Run run = run(server, "--tool-mode", "native", "do it");
                assertThat(run.status()).isZero();
                assertThat(run.out()).isEqualTo("all done\n");
                assertThat(run.err()).contains("calling update_plan\u2026", "plan:\n  [>] read",
                        "calling task_completion\u2026");
                JsonNode first = server.requests().get(0).body();
                assertThat(first.get("tools")).hasSize(4);
                assertThat(first.get("messages").get(0).get("content").asString()).doesNotContain("tool_name \"");
                JsonNode second = messages(server.requests().get(1));
                assertThat(second.get(second.size() - 1).get("role").asString()).isEqualTo("tool");
                assertThat(second.get(second.size() - 2).get("tool_calls").get(0).get("function").get("name").asString())
                        .isEqualTo("update_plan");
            }
        }

        @Test
        void output_schema_makes_the_answer_json_checked_against_it() throws Exception {
            java.nio.file.Files.writeString(dir.resolve("answer.json"), "{\"type\": \"object\", \"properties\":"
                    + " {\"product\": {\"type\": \"integer\"}}, \"required\": [\"product\"]}");
            try (MockLlmServer server = server(complete("391"),
                    call("task_completion", "{\"result\": {\"product\": \"391\"}}"))) {
                Cli.Run run = run(server, "--output-schema", "answer.json", "What is 17 * 23?");
                assertThat(run.status()).isZero();
                assertThat(run.out()).isEqualTo("{\"product\":391}\n");
                assertThat(run.err()).contains("\u2717 task_completion: ");
                Cli.Run missing = run(server, "--output-schema", "nope.json", "task");
                assertThat(missing.status()).isEqualTo(2);
                assertThat(missing.err()).contains("--output-schema nope.json: no such file");
                java.nio.file.Files.writeString(dir.resolve("broken.json"), "{\"type\": \"object\", \"properties\": 5}");
                int requests = server.requests().size();
                Cli.Run broken = run(server, "--output-schema", "broken.json", "task");
                assertThat(broken.status()).isEqualTo(2);
                assertThat(broken.err()).isEqualTo("bellows run: --output-schema broken.json: not valid JSON Schema 2020-12:"
                        + " at /properties: expected object, got 5\n");
                assertThat(server.requests()).as("nothing sent to the model").hasSize(requests);
            }
        }

        @Test
        void bad_tool_mode_and_thinking_budget_settings_are_usage_errors() {
            try (MockLlmServer server = server(complete("x"))) {
                Cli.Run unknown = run(server, "--tool-mode", "json", "task");
                assertThat(unknown.status()).isEqualTo(2);
                assertThat(unknown.err()).contains("--tool-mode: unknown tool mode").contains("(tags or native)");
                Cli.Run react = run(server, "--agent", "react", "--tool-mode", "native", "task");
                assertThat(react.status()).isEqualTo(2);
                assertThat(react.err()).contains("--tool-mode: the react agent");
                Cli.Run budget = run(server, "--thinking-budget", "2000", "task");
                assertThat(budget.status()).isEqualTo(2);
                assertThat(budget.err()).contains("--thinking-budget: extended thinking is an Anthropic option");
                assertThat(server.requests()).isEmpty();
            }
        }
    }

    @Nested
    class Jsonl {

        @Test
        void a_two_iteration_run_gives_every_event_in_order_with_the_fields_of_the_table() {
            try (MockLlmServer server = server(PLAN, complete("all done"))) {
                Cli.Run run = run(server, "--output", "jsonl", "do it");
                assertThat(run.status()).isZero();
                assertThat(run.err()).isEmpty();
                assertThat(types(run)).containsExactly(
                        "loop_start", "iteration_start",
                        "thinking_start", "thinking_content", "thinking_end",
                        "message_start", "message_content", "message_end",
                        "tool_call_start", "tool_call_content", "tool_call_name", "tool_call_content", "tool_call_argument",
                        "tool_call_content", "tool_call_end",
                        "tool_result", "plan_update",
                        "iteration_start",
                        "tool_call_start", "tool_call_content", "tool_call_name", "tool_call_content", "tool_call_argument",
                        "tool_call_content", "tool_call_end",
                        "tool_result", "loop_end");
                List<JsonNode> events = run.outJson();
                assertThat(events).allSatisfy(event -> assertThat(event.has("chunk")).isFalse());
                assertThat(events.get(0)).isEqualTo(Cli.json("{\"type\":\"loop_start\",\"task\":\"do it\"}"));
                assertThat(events.get(1)).isEqualTo(Cli.json("{\"type\":\"iteration_start\",\"iteration\":1}"));
                JsonNode result = events.stream().filter(e -> e.get("type").asString().equals("tool_result")).findFirst().orElseThrow();
                assertThat(result.get("server_name").asString()).isEqualTo("local");
                assertThat(result.get("tool_name").asString()).isEqualTo("update_plan");
                assertThat(result.get("arguments")).isEqualTo(Cli.json(
                        "{\"steps\": [{\"description\": \"read\", \"status\": \"in_progress\"}]}"));
                assertThat(result.get("result").isString()).isTrue();
                // each argument as soon as its value is complete, before the call's end
                JsonNode argument = events.stream().filter(e -> e.get("type").asString().equals("tool_call_argument"))
                        .findFirst().orElseThrow();
                assertThat(argument).isEqualTo(Cli.json("{\"type\":\"tool_call_argument\",\"name\":\"steps\","
                        + "\"value\":[{\"description\":\"read\",\"status\":\"in_progress\"}]}"));
                JsonNode plan = events.stream().filter(e -> e.get("type").asString().equals("plan_update")).findFirst().orElseThrow();
                assertThat(plan.get("steps")).isEqualTo(Cli.json("[{\"description\": \"read\", \"status\": \"in_progress\"}]"));
                assertThat(last(run)).isEqualTo(Cli.json("{\"type\":\"loop_end\",\"reason\":\"task_completion\",\"result\":\"all done\"}"));
            }
        }

        /**
         * In both tool modes, each argument of a call as soon as its value is complete: the path of
         * a write between the call's name and its end, while its content still streams (more of the
         * call's content deltas follow it), then the content.
         */
        @Test
        void tool_call_argument_comes_while_the_call_streams_in_both_tool_modes() {
            String content = "abcd ".repeat(30);
            String arguments = "{\"path\": \"notes/today.md\", \"content\": \"" + content + "\"}";
            MockTurn tagged = MockTurn.content(call("write_file", arguments)).chunkSize(4);
            MockTurn nativeCall = MockTurn.toolCalls(MockToolCall.of("write_file", arguments)).chunkSize(4);
            MockTurn nativeEnd = MockTurn.toolCalls(MockToolCall.of("task_completion", "{\"result\": \"ok\"}"));
            for (String mode : List.of("tags", "native")) {
                try (MockLlmServer server = mode.equals("tags") ? server(tagged, MockTurn.content(complete("ok")))
                        : server(nativeCall, nativeEnd)) {
                    Cli.Run run = run(server, "--output", "jsonl", "--tool-mode", mode, "write today's notes");
                    assertThat(run.status()).as(mode + ": " + run.err()).isZero();
                    List<JsonNode> events = run.outJson();
                    List<JsonNode> firstCall = events.subList(
                            indexOf(events, "tool_call_start", 0), indexOf(events, "tool_call_end", 0) + 1);
                    List<String> kinds = firstCall.stream().map(e -> e.get("type").asString()).toList();
                    assertThat(kinds.indexOf("tool_call_name")).as(mode).isLessThan(kinds.indexOf("tool_call_argument"));
                    assertThat(firstCall).as(mode).filteredOn(e -> e.get("type").asString().equals("tool_call_argument"))
                            .containsExactly(
                                    Cli.json("{\"type\":\"tool_call_argument\",\"name\":\"path\",\"value\":\"notes/today.md\"}"),
                                    Cli.json("{\"type\":\"tool_call_argument\",\"name\":\"content\",\"value\":\""
                                            + content + "\"}"));
                    // the path is known while the content streams: dozens of the call's deltas follow it
                    assertThat(kinds.subList(kinds.indexOf("tool_call_argument"), kinds.size()))
                            .as(mode).filteredOn("tool_call_content"::equals).hasSizeGreaterThan(20);
                    assertThat(last(run)).isEqualTo(Cli.json(
                            "{\"type\":\"loop_end\",\"reason\":\"task_completion\",\"result\":\"ok\"}"));
                }
            }
        }

        private static int indexOf(List<JsonNode> events, String type, int from) {
            for (int i = from; i < events.size(); i++) {
                if (events.get(i).get("type").asString().equals(type)) {
                    return i;
                }
            }
            throw new AssertionError("no " + type + " in " + events);
        }

        @Test
        void tool_result_error_and_no_tool_call_have_their_fields() {
            try (MockLlmServer server = server(call("nope", "{}"), "no call here", complete("ok"))) {
                Cli.Run run = run(server, "--output", "jsonl", "task");
                assertThat(run.status()).isZero();
                JsonNode error = run.outJson().stream().filter(e -> e.get("type").asString().equals("tool_result_error"))
                        .findFirst().orElseThrow();
                assertThat(error.get("tool_name").asString()).isEqualTo("nope");
                assertThat(error.get("error").asString()).contains("nope");
                JsonNode noCall = run.outJson().stream().filter(e -> e.get("type").asString().equals("no_tool_call"))
                        .findFirst().orElseThrow();
                assertThat(noCall).isEqualTo(Cli.json("{\"type\":\"no_tool_call\",\"iteration\":2}"));
            }
        }

        @Test
        void a_broken_stream_is_retried_with_a_retry_event_and_its_partial_answer_is_not_sent_again() {
            try (MockLlmServer server = server(
                    MockTurn.content("partial words that break " + complete("x")).cutAfter(15),
                    MockTurn.content(complete("whole")))) {
                Cli.Run run = run(server, "--output", "jsonl", "--api-key", KEY, "task");
                assertThat(run.status()).isZero();
                JsonNode retry = run.outJson().stream().filter(e -> e.get("type").asString().equals("retry"))
                        .findFirst().orElseThrow();
                assertThat(retry.get("attempt").asInt()).isEqualTo(2);
                assertThat(retry.get("reason").asString()).isNotEmpty();
                assertThat(retry.get("delay_ms").asLong()).isGreaterThanOrEqualTo(500);
                assertThat(server.requests()).hasSize(2);
                assertThat(messages(server.requests().get(1))).isEqualTo(messages(server.requests().get(0)));
                assertThat(messages(server.requests().get(1)).toString()).doesNotContain("partial");
                assertThat(last(run).get("result").asString()).isEqualTo("whole");
                assertNoSecret(run);
            }
        }

        @Test
        void max_retries_0_gives_up_at_once() {
            try (MockLlmServer server = server(MockTurn.status(503).errorMessage("busy"), MockTurn.content(complete("x")))) {
                Cli.Run run = run(server, "--output", "jsonl", "--max-retries", "0", "task");
                assertThat(run.status()).isEqualTo(1);
                assertThat(last(run).get("reason").asString()).isEqualTo("error");
                assertThat(server.requests()).hasSize(1);
            }
        }
    }

    @Nested
    class WhatTheModelIsSent {

        @Test
        void the_system_message_the_verbatim_answer_and_the_observation() {
            try (MockLlmServer server = server(PLAN, complete("all done"))) {
                Cli.Run run = run(server, "--system", "Be brief.", "do it");
                assertThat(run.status()).isZero();
                RecordedRequest first = server.requests().get(0);
                assertThat(first.body().get("model").asString()).isEqualTo("mock");
                assertThat(first.body().get("stream").asBoolean()).isTrue();
                assertThat(first.header("Authorization")).isNull();
                JsonNode system = messages(first).get(0);
                assertThat(system.get("role").asString()).isEqualTo("system");
                // the contract: every tool's server name, tool name, description and JSON Schema
                String content = system.get("content").asString() + "\n";   // the last schema ends the message
                assertThat(content).contains("Be brief.", "\nserver_name \"local\":\n");
                for (dev.bellows.tool.Tool builtin : dev.bellows.tool.BuiltinTools.all()) {
                    assertThat(content).contains("\n" + builtin.name() + ": " + builtin.description() + "\n"
                            + builtin.inputSchema() + "\n");
                }
                assertThat(messages(first).get(1)).isEqualTo(Cli.json("{\"role\":\"user\",\"content\":\"do it\"}"));

                JsonNode second = messages(server.requests().get(1));
                assertThat(second.get(0)).isEqualTo(system);
                assertThat(second.get(2)).isEqualTo(Cli.MAPPER.createObjectNode().put("role", "assistant").put("content", PLAN));
                assertThat(second.get(3).get("role").asString()).isEqualTo("user");
                assertThat(second.get(3).get("content").asString()).contains("<update_plan>", "[>] read");
            }
        }

        @Test
        void timeout_seconds_bounds_the_wait_for_the_next_byte() {
            // One answer in two pieces 200 ms apart: waiting 20 s for the next byte sees it
            // through (20 ms would not: the value is seconds); the same 2 s apart: waiting 1 s
            // gives up at the gap. A loaded machine can only lengthen a gap, so neither outcome
            // depends on speed.
            String answer = "ab" + complete("patient");
            MockTurn twoPieces = MockTurn.content(answer).chunkSize((answer.length() + 1) / 2).delayMs(200);
            MockTurn twoPiecesFarApart = MockTurn.content(answer).chunkSize((answer.length() + 1) / 2).delayMs(2000);
            try (MockLlmServer server = server(twoPieces, twoPiecesFarApart)) {
                Cli.Run patient = run(server, "--timeout-seconds", "20", "task");
                assertThat(patient.status()).as(patient.err()).isZero();
                assertThat(patient.out()).isEqualTo("patient\n");
                Cli.Run impatient = run(server, "--timeout-seconds", "1", "--max-retries", "0", "--output", "jsonl",
                        "task");
                assertThat(impatient.status()).isEqualTo(1);
                assertThat(last(impatient).get("reason").asString()).isEqualTo("error");
                assertThat(last(impatient).get("result").asString()).contains("for 1 s");
            }
        }
    }

    @Nested
    class Text {

        @Test
        void progress_on_stderr_and_only_the_result_on_stdout_without_escape_codes() {
            try (MockLlmServer server = server(PLAN, call("nope", "{}"), complete("all done"))) {
                Cli.Run run = run(server, "do it");
                assertThat(run.status()).isZero();
                assertThat(run.out()).isEqualTo("all done\n");
                assertThat(run.err()).contains("thinking: plan it", "I will plan.", "calling update_plan\u2026",
                        "plan:\n  [>] read", "calling nope\u2026", "  \u2717 nope: ", "calling task_completion\u2026",
                        "  \u2713 task_completion: all done");
                assertThat(run.err()).doesNotContain("\u001b");
            }
        }

        @Test
        void on_a_terminal_thinking_is_dim() {
            try (MockLlmServer server = server("<thinking>hmm</thinking>\n" + complete("ok"))) {
                Cli.Run run = Cli.run(new Host(Map.of(), dir, Interrupts.NONE, true), "run", "--base-url",
                        server.baseUrl().toString(), "--model", "mock", "task");
                assertThat(run.status()).isZero();
                assertThat(run.err()).contains(TextRenderer.DIM + "hmm" + TextRenderer.RESET);
                assertThat(run.out()).isEqualTo("ok\n");
            }
        }

        @Test
        void a_retry_is_announced() {
            try (MockLlmServer server = server(MockTurn.status(500).errorMessage("oops"), MockTurn.content(complete("ok")))) {
                Cli.Run run = run(server, "task");
                assertThat(run.status()).isZero();
                assertThat(run.err()).contains("retrying (attempt 2)");
            }
        }
    }

    @Nested
    class Precedence {

        Path config(String name, String json) throws IOException {
            return Files.writeString(dir.resolve(name), json);
        }

        String modelSent(MockLlmServer server) {
            List<RecordedRequest> requests = server.requests();
            return requests.get(requests.size() - 1).body().get("model").asString();
        }

        @Test
        void flag_over_env_over_config_over_default() throws IOException {
            try (MockLlmServer server = server(complete("1"), complete("2"), complete("3"))) {
                config("bellows.json", "{\"base_url\": \"" + server.baseUrl() + "\", \"model\": \"from-config\"}");
                assertThat(run(Map.of(), "run", "t").status()).isZero();
                assertThat(modelSent(server)).isEqualTo("from-config");
                assertThat(run(Map.of("BELLOWS_MODEL", "from-env"), "run", "t").status()).isZero();
                assertThat(modelSent(server)).isEqualTo("from-env");
                assertThat(run(Map.of("BELLOWS_MODEL", "from-env"), "run", "--model", "from-flag", "t").status()).isZero();
                assertThat(modelSent(server)).isEqualTo("from-flag");
            }
        }

        @Test
        void env_base_url_and_key_beat_the_config_file() throws IOException {
            try (MockLlmServer server = server(complete("ok"))) {
                config("bellows.json", "{\"base_url\": \"http://127.0.0.1:1/v1\", \"model\": \"m\", \"api_key\": \"config-key\"}");
                Cli.Run run = run(Map.of("OPENAI_BASE_URL", server.baseUrl().toString(), "OPENAI_API_KEY", KEY), "run", "t");
                assertThat(run.status()).isZero();
                assertThat(server.requests()).hasSize(1);
                assertThat(server.requests().get(0).header("Authorization")).isEqualTo("Bearer " + RecordedRequest.REDACTED);
                assertNoSecret(run);
            }
        }

        @Test
        void bellows_config_env_and_config_flag_name_the_file_and_limits_come_from_it() throws IOException {
            try (MockLlmServer server = server("a", "b", "c")) {
                config("one.json", "{\"base_url\": \"" + server.baseUrl() + "\", \"model\": \"m\", \"max_iterations\": 1,"
                        + " \"output\": \"jsonl\", \"mcpServers\": {}}");
                Cli.Run viaEnv = run(Map.of("BELLOWS_CONFIG", "one.json"), "run", "t");
                assertThat(viaEnv.status()).isEqualTo(1);
                assertThat(last(viaEnv).get("reason").asString()).isEqualTo("max_iterations");
                assertThat(server.requests()).hasSize(1);
                Cli.Run viaFlag = run(Map.of(), "run", "--config", "one.json", "--max-iterations", "2", "--output", "text", "t");
                assertThat(viaFlag.status()).isEqualTo(1);
                assertThat(viaFlag.err()).contains("max_iterations");
                assertThat(server.requests()).hasSize(3);
            }
        }

        @Test
        void the_default_models_of_the_public_endpoints_are_documented_in_help() {
            Cli.Run help = run(Map.of("OPENAI_API_KEY", KEY), "run", "--help");
            assertThat(help.status()).isZero();
            assertThat(help.out()).contains(RunCommand.OPENAI_DEFAULT_MODEL, RunCommand.ANTHROPIC_DEFAULT_MODEL);
            assertNoSecret(help);
        }
    }

    @Nested
    class UsageErrors {

        /** Exit 2, one line naming {@code names}, no stack trace, no request, no key. */
        void assertUsageError(MockLlmServer server, Cli.Run run, String... names) {
            assertThat(run.status()).as(run.err()).isEqualTo(2);
            assertThat(run.out()).isEmpty();
            assertThat(run.err()).endsWith("\n");
            assertThat(run.err().strip()).doesNotContain("\n").doesNotContain("Exception").doesNotContain("\tat ");
            assertThat(run.err()).contains(names);
            assertThat(server.requests()).isEmpty();
            assertNoSecret(run);
        }

        Cli.Run runWith(MockLlmServer server, String... args) {
            List<String> all = new ArrayList<>(List.of("run", "--base-url", server.baseUrl().toString(), "--api-key", KEY));
            all.addAll(List.of(args));
            return run(Map.of(), all.toArray(String[]::new));
        }

        @Test
        void missing_task() {
            try (MockLlmServer server = server(complete("x"))) {
                assertUsageError(server, runWith(server, "--model", "m"), "TASK");
                assertUsageError(server, runWith(server, "--model", "m", "  "), "TASK");
            }
        }

        @Test
        void missing_model() {
            try (MockLlmServer server = server(complete("x"))) {
                assertUsageError(server, runWith(server, "task"), "--model");
                Cli.Run ollama = run(Map.of(), "run", "task");
                assertThat(ollama.status()).isEqualTo(2);
                assertThat(ollama.err()).contains("--model", "11434");
            }
        }

        @Test
        void bad_output_agent_provider_and_base_url() {
            try (MockLlmServer server = server(complete("x"))) {
                assertUsageError(server, runWith(server, "--model", "m", "--output", "xml", "task"), "--output", "text or jsonl");
                assertUsageError(server, runWith(server, "--model", "m", "--agent", "other", "task"), "--agent");
                assertUsageError(server, runWith(server, "--model", "m", "--provider", "gemini", "task"), "--provider");
                assertUsageError(server, run(Map.of(), "run", "--base-url", "ftp://x", "--model", "m", "task"),
                        "--base-url");
                assertUsageError(server, runWith(server, "--model", "m", "--api-key", " ", "task"), "--api-key");
            }
        }

        @Test
        void bad_numbers() {
            try (MockLlmServer server = server(complete("x"))) {
                assertUsageError(server, runWith(server, "--model", "m", "--max-iterations", "abc", "task"), "--max-iterations");
                assertUsageError(server, runWith(server, "--model", "m", "--max-iterations", "0", "task"), "--max-iterations");
                assertUsageError(server, runWith(server, "--model", "m", "--max-consecutive-errors", "0", "task"),
                        "--max-consecutive-errors");
                assertUsageError(server, runWith(server, "--model", "m", "--max-retries", "-1", "task"), "--max-retries");
                assertUsageError(server, runWith(server, "--model", "m", "--timeout-seconds", "0", "task"), "--timeout-seconds");
                assertUsageError(server, runWith(server, "--model", "m", "--timeout-seconds", "1.5", "task"), "--timeout-seconds");
            }
        }

        @Test
        void unreadable_invalid_and_wrong_config_files() throws IOException {
            try (MockLlmServer server = server(complete("x"))) {
                assertUsageError(server, runWith(server, "--model", "m", "--config", "missing.json", "task"),
                        "--config missing.json", "no such file");
                Files.createDirectory(dir.resolve("adir"));
                assertUsageError(server, runWith(server, "--model", "m", "--config", "adir", "task"), "--config adir");
                Files.writeString(dir.resolve("bad.json"), "{\"model\": \"m\",, \"api_key\": " + KEY + "}");
                assertUsageError(server, runWith(server, "--config", "bad.json", "task"), "--config bad.json", "invalid JSON");
                Files.writeString(dir.resolve("bad.json"), "{\"api_key\": " + KEY + "}");
                assertUsageError(server, runWith(server, "--config", "bad.json", "task"), "--config bad.json", "invalid JSON");
                Files.writeString(dir.resolve("bad.json"), "[1]");
                assertUsageError(server, runWith(server, "--config", "bad.json", "task"), "--config bad.json");
                Files.writeString(dir.resolve("bad.json"), "");
                assertUsageError(server, runWith(server, "--config", "bad.json", "task"), "--config bad.json");
                Files.writeString(dir.resolve("bellows.json"), "{\"modle\": \"m\"}");
                assertUsageError(server, runWith(server, "task"), "bellows.json", "\"modle\"");
                Files.writeString(dir.resolve("bellows.json"), "{\"max_iterations\": \"ten\"}");
                assertUsageError(server, runWith(server, "--model", "m", "task"), "bellows.json", "\"max_iterations\"");
                Files.writeString(dir.resolve("bellows.json"), "{\"model\": 5}");
                assertUsageError(server, runWith(server, "task"), "bellows.json", "\"model\"");
                Files.writeString(dir.resolve("bellows.json"), "{\"max_iterations\": 0}");
                assertUsageError(server, runWith(server, "--model", "m", "task"), "bellows.json", "\"max_iterations\"");
                assertUsageError(server, run(Map.of("BELLOWS_CONFIG", "nothere.json"), "run", "--model", "m", "task"),
                        "BELLOWS_CONFIG nothere.json");
            }
        }

        @Test
        void a_bad_mcp_file_is_named_with_the_server_and_key_and_no_secret() throws IOException {
            try (MockLlmServer server = server(complete("x"))) {
                Files.writeString(dir.resolve("mcp.json"), "{\"mcpServers\": {\"r\": {\"url\": 5}}}");
                assertUsageError(server, runWith(server, "--model", "m", "--mcp-config", "mcp.json", "task"),
                        "--mcp-config mcp.json", "mcpServers.r", "\"url\"");
                Files.writeString(dir.resolve("mcp.json"), "{\"servers\": {}}");
                assertUsageError(server, runWith(server, "--model", "m", "--mcp-config", "mcp.json", "task"),
                        "--mcp-config mcp.json", "mcpServers");
                assertUsageError(server, runWith(server, "--model", "m", "--mcp-config", "none.json", "task"),
                        "--mcp-config none.json");
                Files.writeString(dir.resolve("bellows.json"), "{\"mcpServers\": {\"remote\": {\"url\": \"http://127.0.0.1:1/mcp\","
                        + " \"headers\": {\"Authorization\": 5, \"X\": \"Bearer " + KEY + "\"}}}}");
                assertUsageError(server, runWith(server, "--model", "m", "task"), "bellows.json",
                        "mcpServers.remote", "\"headers\".Authorization");
            }
        }

        @Test
        void an_empty_mcp_config_runs() throws IOException {
            try (MockLlmServer server = server(complete("x"))) {
                Files.writeString(dir.resolve("mcp.json"), "{\"mcpServers\": {}, \"globalShortcut\": \"\"}");
                Cli.Run run = runWith(server, "--model", "m", "--mcp-config", "mcp.json", "task");
                assertThat(run.status()).isZero();
                assertNoSecret(run);
            }
        }

        @Test
        void help_never_shows_a_key_from_the_environment() {
            Map<String, String> env = new HashMap<>();
            env.put("OPENAI_API_KEY", KEY);
            env.put("ANTHROPIC_API_KEY", KEY);
            Cli.Run help = run(env, "run", "--help");
            assertThat(help.status()).isZero();
            assertThat(help.out()).contains("--api-key", "--output", "--timeout-seconds", "130");
            assertNoSecret(help);
        }
    }
}
