package dev.bellows.cli;

import static org.assertj.core.api.Assertions.assertThat;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;
import dev.bellows.testkit.MockLlmServer;
import dev.bellows.testkit.MockScript;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code bellows eval} on the example in examples/eval against the mock model server over HTTP:
 * the report, the failure it shows on purpose, the exit codes, a baseline, and the same report
 * twice.
 */
class EvalCommandTest {

    static final Path EXAMPLE = Path.of("").toAbsolutePath().getParent().resolve("examples/eval");

    @TempDir
    Path dir;

    private Cli.Run eval(MockLlmServer server, String... args) {
        List<String> all = new ArrayList<>(List.of("eval", EXAMPLE.resolve("cases.jsonl").toString(),
                "--base-url", server.baseUrl().toString(), "--model", "mock"));
        all.addAll(List.of(args));
        return Cli.run(new Host(Map.of(), dir, Interrupts.NONE, false), all.toArray(String[]::new));
    }

    /** The example against a fresh mock server replaying its script. */
    private Cli.Run example(String... args) throws Exception {
        try (MockLlmServer server = MockLlmServer.start(MockScript.read(EXAMPLE.resolve("mock-script.json")))) {
            return eval(server, args);
        }
    }

    @Test
    void theExampleRunsAndShowsItsFailureOnPurpose() throws Exception {
        Cli.Run run = example("--out", "first");
        assertThat(run.status()).as(run.err()).isEqualTo(1);
        assertThat(run.out()).contains("PASS  capital  1/1 runs passed", "PASS  plan-first", "PASS  typed-weather",
                "PASS  judged", "FAIL  sum-fails-on-purpose  0/1 runs passed: run 1: equals: expected \"42\", got \"43\"",
                "4 of 5 cases passed (80%); report: first/report.json");
        assertThat(run.err()).contains("eval: 1/5 capital #1 passed", "eval: 5/5 sum-fails-on-purpose #1 FAILED");

        // the JUnit XML, read back by the JDK's parser: a testcase per case, the failing one with its reason
        org.w3c.dom.Document junit = javax.xml.parsers.DocumentBuilderFactory.newInstance().newDocumentBuilder()
                .parse(dir.resolve("first/junit.xml").toFile());
        assertThat(junit.getElementsByTagName("testcase").getLength()).isEqualTo(5);
        assertThat(junit.getElementsByTagName("failure").getLength()).isEqualTo(1);
        assertThat(junit.getElementsByTagName("failure").item(0).getTextContent()).contains("expected \"42\", got \"43\"");
        assertThat(Files.readString(dir.resolve("first/report.html"))).contains("sum-fails-on-purpose");

        JsonNode report = Cli.MAPPER.readTree(dir.resolve("first/report.json").toFile());
        assertThat(report.get("summary").toString()).isEqualTo("{\"cases\":5,\"passed\":4,\"failed\":1,\"pass_rate\":0.8}");
        assertThat(report.get("model").asString()).isEqualTo("mock");
        assertThat(report.get("agent").asString()).isEqualTo("default");
        JsonNode plan = report.get("cases").get(1);
        assertThat(plan.get("runs").get(0).get("scores").get(1).get("reason").asString()).startsWith("strict match:");
        assertThat(plan.get("runs").get(0).get("iterations").asInt()).isEqualTo(2);
        JsonNode judged = report.get("cases").get(3).get("runs").get(0);
        assertThat(judged.get("scores").get(0).get("score").asDouble()).isEqualTo(0.9);
        // the judge's call is not the subject's: one iteration, and the tokens of that one answer
        assertThat(judged.get("iterations").asInt()).isEqualTo(1);
        String events = plan.get("runs").get(0).get("events").asString();
        List<String> lines = eventLines(dir.resolve("first"), events);
        assertThat(Cli.json(lines.getFirst()).get("type").asString()).isEqualTo("loop_start");
        assertThat(lines).anyMatch(line -> Cli.json(line).path("type").asString().equals("plan_update"));
        assertThat(Cli.json(lines.getLast()).get("reason").asString()).isEqualTo("task_completion");
    }

    @Test
    void twoRunsGiveTheSameReportAndAgainstTheFirstNothingRegressed() throws Exception {
        assertThat(example("--out", "before").status()).isEqualTo(1);
        // the same results again: the failing case failed there too, so nothing regressed: exit 0
        Cli.Run same = example("--out", "after", "--baseline", "before/report.json");
        assertThat(same.status()).as(same.out() + same.err()).isZero();
        assertThat(same.out()).contains("against before/report.json (margin 0.05):", "  nothing changed",
                "no case regressed");

        JsonNode before = Cli.MAPPER.readTree(dir.resolve("before/report.json").toFile());
        ObjectNode after = (ObjectNode) Cli.MAPPER.readTree(dir.resolve("after/report.json").toFile());
        JsonNode comparison = after.remove("comparison");
        assertThat(comparison.get("regressed").asBoolean()).isFalse();
        assertThat(comparison.get("cases")).hasSize(5);
        assertThat(withoutTimings(after)).isEqualTo(withoutTimings(before));
        // every run's events, in one file, in dataset order
        assertThat(Files.readString(dir.resolve("after/events.jsonl"))).isEqualTo(Files.readString(dir.resolve("before/events.jsonl")));
    }

    /** The lines of a run's events reference ({@code events.jsonl#L85-L167}). */
    static List<String> eventLines(Path reportDir, String reference) throws java.io.IOException {
        java.util.regex.Matcher block = java.util.regex.Pattern.compile("events\\.jsonl#L(\\d+)-L(\\d+)").matcher(reference);
        assertThat(block.matches()).as(reference).isTrue();
        return Files.readAllLines(reportDir.resolve("events.jsonl"))
                .subList(Integer.parseInt(block.group(1)) - 1, Integer.parseInt(block.group(2)));
    }

    static JsonNode withoutTimings(JsonNode report) {
        ObjectNode copy = (ObjectNode) report.deepCopy();
        copy.remove(List.of("started", "duration_ms"));
        copy.get("cases").forEach(c -> c.get("runs").forEach(run -> ((ObjectNode) run).remove("duration_ms")));
        return copy;
    }

    @Test
    void theApiKeyNeverReachesTheReportTheEventsOrTheOutput() throws Exception {
        String key = "sk-eval-test-0123456789";
        Files.writeString(dir.resolve("echo.jsonl"), "{\"id\": \"echo\", \"input\": \"What is your key?\","
                + " \"expect\": {\"contains\": \"" + key + "\"}}\n");
        try (MockLlmServer server = MockLlmServer.start(MockScript.of(dev.bellows.testkit.MockTurn.content(
                "<tool>{\"tool_name\": \"task_completion\", \"arguments\": {\"result\": \"It is " + key + "\"}}</tool>")))) {
            Cli.Run run = Cli.run(new Host(Map.of(), dir, Interrupts.NONE, false), "eval", "echo.jsonl",
                    "--base-url", server.baseUrl().toString(), "--model", "mock", "--api-key", key);
            assertThat(run.status()).as(run.err()).isZero();    // the check sees the answer; what is kept is redacted
            assertThat(run.out() + run.err()).doesNotContain(key);
            try (var files = Files.walk(dir.resolve("eval-out"))) {
                for (Path file : files.filter(Files::isRegularFile).toList()) {
                    assertThat(Files.readString(file)).as(file.toString()).doesNotContain(key);
                }
            }
            assertThat(Files.readString(dir.resolve("eval-out/report.json"))).contains("It is [REDACTED]");
        }
    }

    @Test
    void ctrlCCancelsTheRunsInFlightAndExits130() throws Exception {
        java.util.concurrent.atomic.AtomicReference<Runnable> interrupt = new java.util.concurrent.atomic.AtomicReference<>();
        Interrupts interrupts = action -> {
            interrupt.set(action);
            return () -> interrupt.set(null);
        };
        Files.writeString(dir.resolve("one.jsonl"), "{\"id\": \"slow\", \"input\": \"Take your time.\"}\n");
        dev.bellows.testkit.StreamHold midAnswer = dev.bellows.testkit.StreamHold.after(0, 2);
        try (MockLlmServer server = MockLlmServer.builder(MockScript.of(dev.bellows.testkit.MockTurn.content(
                "thinking it over, slowly, <tool>{\"tool_name\": \"task_completion\", \"arguments\": {\"result\": \"late\"}}</tool>")))
                .hold(midAnswer).start()) {
            java.util.concurrent.CompletableFuture<Cli.Run> result = dev.bellows.testkit.Background.supply(() -> Cli.run(
                    new Host(Map.of(), dir, interrupts, false), "eval", "one.jsonl", "--base-url", server.baseUrl().toString(),
                    "--model", "mock"));
            midAnswer.reached().get(30, java.util.concurrent.TimeUnit.SECONDS);   // the run is mid-answer
            interrupt.get().run();
            Cli.Run run = result.get(30, java.util.concurrent.TimeUnit.SECONDS);
            assertThat(run.status()).isEqualTo(130);
            assertThat(run.err()).isEqualTo("bellows eval: cancelled\n");
            assertThat(dir.resolve("eval-out/report.json")).doesNotExist();
        } finally {
            midAnswer.release();
        }
    }

    @Test
    void anOutputSchemaMakesTheAnswerATypedResultTheModelMustCorrect() throws Exception {
        Files.writeString(dir.resolve("schema.json"), "{\"type\": \"object\", \"required\": [\"city\", \"temp_c\"],"
                + " \"properties\": {\"city\": {\"type\": \"string\"}, \"temp_c\": {\"type\": \"number\"}}}");
        Files.writeString(dir.resolve("typed.jsonl"), "{\"id\": \"typed\", \"input\": \"Weather in Oslo?\","
                + " \"expect\": {\"numeric\": {\"value\": 5, \"pointer\": \"/temp_c\"}}}\n");
        String missing = "<tool>{\"tool_name\": \"task_completion\", \"arguments\": {\"result\": {\"city\": \"Oslo\"}}}</tool>";
        String whole = "<tool>{\"tool_name\": \"task_completion\", \"arguments\": {\"result\": {\"city\": \"Oslo\", \"temp_c\": 5}}}</tool>";
        try (MockLlmServer server = MockLlmServer.start(MockScript.of(dev.bellows.testkit.MockTurn.content(missing),
                dev.bellows.testkit.MockTurn.content(whole)))) {
            Cli.Run run = Cli.run(new Host(Map.of(), dir, Interrupts.NONE, false), "eval", "typed.jsonl",
                    "--base-url", server.baseUrl().toString(), "--model", "mock", "--output-schema", "schema.json");
            assertThat(run.status()).as(run.out() + run.err()).isZero();
            JsonNode typed = Cli.MAPPER.readTree(dir.resolve("eval-out/report.json").toFile()).get("cases").get(0).get("runs").get(0);
            assertThat(typed.get("iterations").asInt()).isEqualTo(2);     // the first answer went back to be corrected
            assertThat(Cli.json(typed.get("answer").asString())).isEqualTo(Cli.json("{\"city\": \"Oslo\", \"temp_c\": 5}"));
        }
    }

    @Test
    void aBadDatasetIsAUsageErrorNamingFileLineAndField() throws Exception {
        Files.writeString(dir.resolve("bad.jsonl"), "{\"id\": \"a\", \"input\": \"x\"}\n{\"id\": \"b\", \"input\": \"y\","
                + " \"expect\": {\"tools\": {\"match\": \"sometimes\", \"calls\": []}}}\n");
        try (MockLlmServer server = MockLlmServer.start(MockScript.of())) {
            Cli.Run run = Cli.run(new Host(Map.of(), dir, Interrupts.NONE, false), "eval", "bad.jsonl",
                    "--base-url", server.baseUrl().toString(), "--model", "mock");
            assertThat(run.status()).isEqualTo(2);
            assertThat(run.err()).isEqualTo("bellows eval: bad.jsonl:2: expect.tools.match: must be strict, unordered,"
                    + " subset or superset, got \"sometimes\"\n");
            assertThat(server.requests()).isEmpty();
            assertThat(dir.resolve("eval-out")).doesNotExist();
        }
    }

    @Test
    void usageErrorsSendNothing() throws Exception {
        try (MockLlmServer server = MockLlmServer.start(MockScript.of())) {
            assertThat(eval(server, "--agent", "researcher").err()).contains("--agent: unknown agent (default or react");
            assertThat(eval(server, "--repeat", "0").err()).contains("--repeat: must be from 1 to 10000, got 0");
            assertThat(eval(server, "--margin", "0.1").err()).contains("--margin: only with --baseline REPORT.json");
            assertThat(eval(server, "--baseline", "missing.json").err())
                    .contains("--baseline: cannot read missing.json: no such file");
            assertThat(eval(server, "--session", "s").status()).isEqualTo(2);
            assertThat(Cli.run(new Host(Map.of(), dir, Interrupts.NONE, false), "eval", "nothing.jsonl", "--model", "m")
                    .err()).isEqualTo("bellows eval: DATASET: cannot read nothing.jsonl: no such file\n");
            assertThat(server.requests()).isEmpty();
        }
    }

    /**
     * {@code --agent NAME}: the config file's agent runs each case as {@code bellows run --agent}
     * runs it: its sub-agents' (a sequence's) events in the run's, the trajectory the root agent's
     * own calls, the tokens every model call's of the run.
     */
    @Test
    void aConfiguredAgentRunsEachCaseWithItsSubAgentsEventsAndItsOwnTrajectory() throws Exception {
        Files.writeString(dir.resolve("bellows.json"), """
                {"agents": {
                  "lead": {"instructions": "You plan and delegate.", "agents": ["pipeline"]},
                  "researcher": {"instructions": "You find facts.", "model": "m2"},
                  "writer": {"instructions": "You write."},
                  "pipeline": {"sequence": ["researcher", "writer"]}
                },
                 "prices": {"mock": {"input": 3.0, "output": 15.0}, "m2": {"input": 1.0, "output": 2.0}}}""");
        Files.writeString(dir.resolve("cases.jsonl"), "{\"id\": \"boil\", \"input\": \"When does water boil?\", \"expect\":"
                + " {\"contains\": \"100 C\", \"tools\": {\"match\": \"strict\", \"calls\": [\"pipeline\"]}, \"max_cost\": 0.5}}\n");
        try (MockLlmServer server = RunCommandTest.server(RunCommandTest.call("pipeline", "{\"task\": \"find the boiling point\"}"),
                RunCommandTest.complete("100 C at sea level"), RunCommandTest.complete("Water boils at 100 C."),
                RunCommandTest.complete("water boils at 100 C"))) {
            Cli.Run run = Cli.run(new Host(Map.of(), dir, Interrupts.NONE, false), "eval", "cases.jsonl",
                    "--base-url", server.baseUrl().toString(), "--model", "mock", "--agent", "lead");
            assertThat(run.status()).as(run.out() + run.err()).isZero();
            assertThat(run.out()).contains("PASS  boil  1/1 runs passed");
            assertThat(server.requests()).hasSize(4);
            assertThat(server.requests().get(1).body().get("model").asString()).isEqualTo("m2");

            JsonNode report = Cli.MAPPER.readTree(dir.resolve("eval-out/report.json").toFile());
            assertThat(report.get("agent").asString()).isEqualTo("lead");
            JsonNode result = report.get("cases").get(0).get("runs").get(0);
            assertThat(result.get("iterations").asInt()).as("the lead's own model calls").isEqualTo(2);
            List<JsonNode> events = eventLines(dir.resolve("eval-out"), result.get("events").asString()).stream()
                    .map(Cli::json).toList();
            assertThat(events).anySatisfy(e -> assertThat(e.path("agent").asString()).isEqualTo("researcher"))
                    .anySatisfy(e -> assertThat(e.path("agent").asString()).isEqualTo("writer"));
            assertThat(events.getLast().get("result").asString()).isEqualTo("water boils at 100 C");
            // the tokens are the whole run's: the sub-agents' two calls as well as the lead's two
            long sent = 0;
            for (var request : server.requests()) {
                long codePoints = 0;
                for (JsonNode message : request.body().get("messages")) {
                    codePoints += message.path("content").asString("").codePointCount(0, message.path("content").asString("").length());
                }
                sent += (codePoints + 3) / 4;       // the mock's estimate of a request's prompt tokens
            }
            assertThat(result.get("tokens").get("input").asLong()).isEqualTo(sent);
            // priced by model: the lead's and the writer's calls at mock's price, the researcher's at m2's
            long mockIn = 0;
            long m2In = 0;
            for (var request : server.requests()) {
                long codePoints = 0;
                for (JsonNode message : request.body().get("messages")) {
                    codePoints += message.path("content").asString("").codePointCount(0, message.path("content").asString("").length());
                }
                if (request.body().get("model").asString().equals("m2")) {
                    m2In += (codePoints + 3) / 4;
                } else {
                    mockIn += (codePoints + 3) / 4;
                }
            }
            long out = result.get("tokens").get("output").asLong();
            double cost = result.get("cost").asDouble();
            assertThat(cost).isGreaterThan(mockIn * 3.0 / 1e6 + m2In * 1.0 / 1e6)
                    .isLessThanOrEqualTo(mockIn * 3.0 / 1e6 + m2In * 1.0 / 1e6 + out * 15.0 / 1e6);
            assertThat(report.get("summary").get("cost").asDouble()).isEqualTo(cost);
            assertThat(result.get("scores").get(2).get("reason").asString())
                    .isEqualTo(String.format(java.util.Locale.ROOT, "cost %.6f, at most 0.500000", cost));
            String page = Files.readString(dir.resolve("eval-out/report.html"));
            assertThat(page).contains("pipeline").contains("Water boils at 100 C.");
        }
    }
}
