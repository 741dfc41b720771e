package dev.bellows.eval;

import static org.assertj.core.api.Assertions.assertThat;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;
import dev.bellows.agent.DefaultAgent;
import dev.bellows.event.EventJson;
import dev.bellows.event.StreamEvent;
import dev.bellows.provider.ChatRequest;
import dev.bellows.provider.ChatStream;
import dev.bellows.provider.Message;
import dev.bellows.provider.Provider;
import dev.bellows.provider.ProviderException;
import dev.bellows.testkit.MockScript;
import dev.bellows.testkit.MockTurn;
import dev.bellows.testkit.ScriptedProvider;
import dev.bellows.tool.ToolRegistry;
import dev.bellows.tool.annotation.Tool;
import dev.bellows.tool.annotation.ToolParam;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiFunction;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class EvalRunnerTest {

    @TempDir
    Path dir;

    /** The tools of the agent under test. */
    public static final class WeatherTools {
        @Tool(description = "The weather in a city")
        public String get_weather(@ToolParam(description = "the city") String city) {
            return city + ": 5 °C, cloudy";
        }
    }

    static String done(String answer) {
        return "<tool>{\"tool_name\": \"task_completion\", \"arguments\": {\"result\": \"" + answer + "\"}}</tool>";
    }

    static String weather(String city) {
        return "<tool>{\"tool_name\": \"get_weather\", \"arguments\": {\"city\": \"" + city + "\"}}</tool>";
    }

    /** An agent whose model, for each run, replays the script the function gives for the case and repeat. */
    static AgentFactory scripted(BiFunction<EvalCase, Integer, MockScript> scripts, List<ScriptedProvider> providers) {
        return (evalCase, probe) -> {
            ScriptedProvider provider = new ScriptedProvider(scripts.apply(evalCase, probe.index()));
            synchronized (providers) {
                providers.add(provider);    // the runner asks for agents from several threads at once
            }
            return probe.install(DefaultAgent.builder().provider(provider).model("mock")
                    .toolRegistry(new ToolRegistry().registerMethods(new WeatherTools()))
                    .maxIterations(evalCase.maxIterations().orElse(10))).build();
        };
    }

    private Dataset dataset(String jsonl) throws Exception {
        return Dataset.read(Files.writeString(dir.resolve("cases.jsonl"), jsonl));
    }

    @Test
    void eachCaseRunsItsRepeatsAndPassesAtItsRate() throws Exception {
        Dataset dataset = dataset("""
                {"id": "flaky", "input": "Weather in Oslo?", "expect": {"contains": "Oslo"}, "repeat": 3, "pass_rate": 0.6}
                {"id": "strict", "input": "Weather in Oslo?", "expect": {"contains": "Oslo"}}
                """);
        // the second repeat of each case answers without the city
        List<ScriptedProvider> providers = new CopyOnWriteArrayList<>();
        EvalReport report = EvalRunner.builder(scripted((c, i) -> MockScript.of(MockTurn.content(
                done(i == 2 ? "5 degrees" : "Oslo: 5 degrees"))), providers)).repeat(2).build().run(dataset);

        CaseResult flaky = report.cases().get(0);
        assertThat(flaky.runs()).extracting(RunResult::index).containsExactly(1, 2, 3);
        assertThat(flaky.runs()).extracting(RunResult::passed).containsExactly(true, false, true);
        assertThat(flaky.passRate()).isEqualTo(2.0 / 3);
        assertThat(flaky.passed()).isTrue();
        assertThat(flaky.passAtK()).isEqualTo(1.0);
        assertThat(flaky.passHatK()).isEqualTo(0.0);
        assertThat(flaky.runs().get(1).scores()).containsExactly(Score.fail("contains",
                "the answer does not contain \"Oslo\": \"5 degrees\""));

        CaseResult strict = report.cases().get(1);
        assertThat(strict.repeat()).isEqualTo(2);                 // the runner's repeat
        assertThat(strict.passed()).isFalse();                    // needs every run
        assertThat(report.summary()).isEqualTo(new EvalReport.Summary(2, 1, 1, 0.5));
        assertThat(providers).hasSize(5);
    }

    @Test
    void aRunThatDoesNotEndByItselfFailsWithItsReason() throws Exception {
        Dataset dataset = dataset("""
                {"id": "loops", "input": "Weather?", "expect": {"max_iterations": 2}}
                {"id": "broken", "input": "Weather?"}
                """);
        AgentFactory factory = (c, probe) -> {
            if (c.id().equals("broken")) {
                throw new IllegalStateException("no such model");
            }
            return scripted((x, i) -> MockScript.of(MockTurn.content(weather("Oslo")), MockTurn.content(weather("Oslo")),
                    MockTurn.content(weather("Oslo"))), new ArrayList<>()).create(c, probe);
        };
        EvalReport report = EvalRunner.builder(factory).build().run(dataset);
        RunResult loops = report.cases().get(0).runs().getFirst();
        assertThat(loops.passed()).isFalse();
        assertThat(loops.iterations()).isEqualTo(2);
        assertThat(loops.error()).hasValueSatisfying(e -> assertThat(e).startsWith("max_iterations: "));
        RunResult broken = report.cases().get(1).runs().getFirst();
        assertThat(broken.error()).hasValue("the agent could not run: java.lang.IllegalStateException: no such model");
        assertThat(broken.events()).isEmpty();
    }

    @Test
    void theReportDoesNotDependOnTheOrderRunsFinishIn() throws Exception {
        StringBuilder lines = new StringBuilder();
        for (int c = 1; c <= 6; c++) {
            lines.append("{\"id\": \"case-").append(c).append("\", \"input\": \"Weather in city ").append(c)
                    .append("?\", \"expect\": {\"contains\": \"city ").append(c)
                    .append("\", \"tools\": {\"match\": \"strict\", \"calls\": [\"get_weather\"]}}, \"repeat\": 2}\n");
        }
        Dataset dataset = dataset(lines.toString());
        // each run's answer takes its own time, so that at concurrency 4 they finish out of order
        BiFunction<EvalCase, Integer, MockScript> scripts = (c, i) -> {
            String city = c.task().replace("Weather in ", "").replace("?", "");
            long delay = Math.floorMod(c.id().hashCode() * 31L + i, 7) * 3;
            return MockScript.of(MockTurn.content(weather(city)).delayMs(delay),
                    MockTurn.content(done(city + " is cloudy")).delayMs(delay));
        };
        JsonNode one = ReportJson.toJson(EvalRunner.builder(scripted(scripts, new ArrayList<>())).concurrency(1)
                .outputDirectory(dir.resolve("one")).build().run(dataset));
        JsonNode four = ReportJson.toJson(EvalRunner.builder(scripted(scripts, new ArrayList<>())).concurrency(4)
                .outputDirectory(dir.resolve("four")).build().run(dataset));
        assertThat(withoutTimings(four)).isEqualTo(withoutTimings(one));
        assertThat(one.path("summary").path("passed").asInt()).as(one.toPrettyString()).isEqualTo(6);
        // the events file too: each run's block where the report says, in dataset order
        assertThat(Files.readString(dir.resolve("four/events.jsonl"))).isEqualTo(Files.readString(dir.resolve("one/events.jsonl")));
        for (JsonNode c : one.get("cases")) {
            for (JsonNode run : c.get("runs")) {
                assertThat(eventLines(dir.resolve("four"), run.get("events").asString()).getLast())
                        .contains(c.get("id").asString().replace("case-", "city ") + " is cloudy");
            }
        }
    }

    /** The lines a run's events reference names: {@code events.jsonl#L85-L167}. */
    static List<String> eventLines(Path reportDir, String reference) throws java.io.IOException {
        java.util.regex.Matcher block = java.util.regex.Pattern.compile("events\\.jsonl#L(\\d+)-L(\\d+)").matcher(reference);
        assertThat(block.matches()).as(reference).isTrue();
        List<String> lines = Files.readAllLines(reportDir.resolve("events.jsonl"));
        return lines.subList(Integer.parseInt(block.group(1)) - 1, Integer.parseInt(block.group(2)));
    }

    /** The report's JSON without its wall-clock figures. */
    static JsonNode withoutTimings(JsonNode report) {
        ObjectNode copy = (ObjectNode) report.deepCopy();
        copy.remove(List.of("started", "duration_ms"));
        for (JsonNode c : copy.path("cases")) {
            for (JsonNode run : c.path("runs")) {
                ((ObjectNode) run).remove("duration_ms");
            }
        }
        return copy;
    }

    @Test
    void noMoreRunsGoOnAtOnceThanTheConcurrency() throws Exception {
        Dataset dataset = dataset("{\"id\": \"a\", \"input\": \"x\", \"repeat\": 6}\n");
        AtomicInteger inFlight = new AtomicInteger();
        AtomicInteger most = new AtomicInteger();
        CyclicBarrier firstTwo = new CyclicBarrier(2);
        AgentFactory factory = (c, probe) -> {
            Provider script = new ScriptedProvider(MockScript.of(MockTurn.content(done("ok"))));
            Provider counting = new Provider() {
                @Override
                public String name() {
                    return "counting";
                }

                @Override
                public ChatStream stream(ChatRequest request) throws ProviderException {
                    most.accumulateAndGet(inFlight.incrementAndGet(), Math::max);
                    try {
                        if (probe.index() <= 2) {
                            firstTwo.await(30, TimeUnit.SECONDS);   // the first two are in flight together
                        }
                        return script.stream(request);
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    } finally {
                        inFlight.decrementAndGet();
                    }
                }
            };
            return probe.install(DefaultAgent.builder().provider(counting).model("mock")).build();
        };
        EvalReport report = EvalRunner.builder(factory).concurrency(2).build().run(dataset);
        assertThat(report.cases().getFirst().passRate()).isEqualTo(1.0);
        assertThat(most.get()).isEqualTo(2);
    }

    @Test
    void eachRunsEventsGoToAFileAsRunOutputJsonlWritesThem() throws Exception {
        Dataset dataset = dataset("{\"id\": \"weather/oslo\", \"input\": \"Weather in Oslo?\"}\n");
        List<String> written = new CopyOnWriteArrayList<>();
        AgentFactory factory = (c, probe) -> probe.install(DefaultAgent.builder()
                .provider(new ScriptedProvider(MockScript.of(MockTurn.content(weather("Oslo")),
                        MockTurn.content(done("cloudy")))))
                .model("mock").toolRegistry(new ToolRegistry().registerMethods(new WeatherTools()))
                .listener(event -> {
                    if (!(event instanceof StreamEvent.Complete)) {
                        written.add(EventJson.toJson(event, false).toString());
                    }
                })).build();
        EvalReport report = EvalRunner.builder(factory).outputDirectory(dir).build().run(dataset);
        RunResult run = report.cases().getFirst().runs().getFirst();
        assertThat(run.events()).isEqualTo("events.jsonl#L1-L" + written.size());
        List<String> lines = Files.readAllLines(dir.resolve("events.jsonl"));
        assertThat(lines).isEqualTo(written);
        assertThat(lines.getFirst()).contains("\"type\":\"loop_start\"");
        assertThat(lines).anyMatch(line -> line.contains("\"type\":\"tool_result\"") && line.contains("get_weather"));
        assertThat(lines.getLast()).contains("\"type\":\"loop_end\"");
    }

    @Test
    void everyRunsEventsAreOnDiskWhenTheReportNamesThemInDatasetOrderWhateverOrderTheRunsEnd() throws Exception {
        StringBuilder jsonl = new StringBuilder();
        for (int i = 1; i <= 12; i++) {
            jsonl.append("{\"id\": \"case-").append(i).append("\", \"input\": \"Weather in Oslo?\", \"repeat\": 3}\n");
        }
        List<ScriptedProvider> providers = new CopyOnWriteArrayList<>();
        // the later runs answer sooner, so that blocks come to the writer before the ones they follow
        EvalReport report = EvalRunner.builder(scripted((c, i) -> MockScript.of(MockTurn.content(weather("Oslo"))
                                .delayMs(Math.max(0, 40 - 3L * Integer.parseInt(c.id().substring(5)))),
                        MockTurn.content(done(c.id() + " run " + i))), providers))
                .concurrency(4).outputDirectory(dir).build().run(dataset(jsonl.toString()));
        int next = 1;
        for (CaseResult result : report.cases()) {
            for (RunResult run : result.runs()) {
                List<String> lines = eventLines(dir, run.events());
                assertThat(run.events()).startsWith("events.jsonl#L" + next + "-");     // the blocks follow each other
                next += lines.size();
                assertThat(lines.getFirst()).contains("\"type\":\"loop_start\"");
                assertThat(lines.getLast()).contains("\"type\":\"loop_end\"");
                assertThat(String.join("\n", lines)).contains(result.id() + " run " + run.index() + "\"");
            }
        }
        assertThat(Files.readAllLines(dir.resolve("events.jsonl"))).hasSize(next - 1);
        assertThat(dir.resolve("events")).doesNotExist();
    }

    @Test
    void anEventsFileThatCannotBeWrittenStopsTheEvaluationWithItsError() throws Exception {
        Dataset dataset = dataset("{\"id\": \"oslo\", \"input\": \"Weather in Oslo?\"}\n");
        Path notAFolder = Files.writeString(dir.resolve("out"), "a file where the output folder should be");
        List<ScriptedProvider> providers = new CopyOnWriteArrayList<>();
        EvalRunner runner = EvalRunner.builder(scripted((c, i) -> MockScript.of(MockTurn.content(done("cloudy"))), providers))
                .outputDirectory(notAFolder).build();
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> runner.run(dataset))
                .isInstanceOf(java.io.IOException.class)
                .hasMessageContaining("out");
    }

    @Test
    void aSecretTheModelWritesInPiecesIsInNoEventsFile() throws Exception {
        String secret = "sk-split-across-pieces-42";
        dev.bellows.secret.Secrets.register(secret);
        Dataset dataset = dataset("{\"id\": \"leak\", \"input\": \"Your key?\"}\n");
        AgentFactory factory = (c, probe) -> probe.install(DefaultAgent.builder().model("mock")
                .toolRegistry(new ToolRegistry())
                .provider(new ScriptedProvider(MockScript.of(MockTurn.content("The key is " + secret + ". "
                        + done("no")).chunkSize(3))))).build();
        RunResult run = EvalRunner.builder(factory).outputDirectory(dir).build().run(dataset).cases().getFirst()
                .runs().getFirst();
        String events = String.join("\n", eventLines(dir, run.events()));
        assertThat(events).contains("[REDACTED]").doesNotContain("sk-split");
        StringBuilder deltas = new StringBuilder();
        for (String line : events.lines().toList()) {
            JsonNode event = Runs.MAPPER.readTree(line);
            if (event.get("type").asString().equals("message_content")) {
                deltas.append(event.get("content").asString());
            }
        }
        assertThat(deltas.toString()).contains("The key is [REDACTED].").doesNotContain(secret);
    }

    @Test
    void tokensAreTheSubjectsAloneNotTheJudges() throws Exception {
        Dataset judged = dataset("{\"id\": \"a\", \"input\": \"Weather in Oslo?\", \"expect\": {\"judge\": {\"rubric\":"
                + " \"Gives a temperature.\", \"min_score\": 0.7}}}\n");
        BiFunction<EvalCase, Integer, MockScript> scripts = (c, i) -> MockScript.of(MockTurn.content(done("5 degrees")));
        ScriptedProvider judge = new ScriptedProvider(MockScript.of(MockTurn.content(
                "{\"score\": 0.9, \"reason\": \"It gives 5 degrees.\"}")));
        EvalReport withJudge = EvalRunner.builder(scripted(scripts, new ArrayList<>()))
                .judge(new JudgeModel(judge, "judge-model")).build().run(judged);
        RunResult run = withJudge.cases().getFirst().runs().getFirst();
        assertThat(run.scores()).containsExactly(new Score("judge", true, 0.9, "score 0.9 >= 0.7: It gives 5 degrees."));
        assertThat(judge.requests()).hasSize(1);
        assertThat(judge.requests().getFirst().model()).isEqualTo("judge-model");
        assertThat(judge.requests().getFirst().messages().getLast().content()).contains("5 degrees", "Gives a temperature.");

        Dataset plain = dataset("{\"id\": \"a\", \"input\": \"Weather in Oslo?\"}\n");
        RunResult alone = EvalRunner.builder(scripted(scripts, new ArrayList<>())).build().run(plain)
                .cases().getFirst().runs().getFirst();
        assertThat(alone.tokens()).isPresent();
        assertThat(alone.tokens().get().totalTokens()).isPositive();
        assertThat(run.tokens()).isEqualTo(alone.tokens());
        assertThat(run.iterations()).isEqualTo(alone.iterations()).isEqualTo(1);
    }

    /** A model whose answer to a task "Count N" is N words, each run's usage its own; the runs take different times. */
    private static Provider counting() {
        return new Provider() {
            @Override
            public String name() {
                return "by-task";
            }

            @Override
            public ChatStream stream(ChatRequest request) throws ProviderException {
                String task = request.messages().stream().map(Message::content).filter(c -> c.contains("Count "))
                        .findFirst().orElseThrow();
                int n = Integer.parseInt(task.replaceAll("(?s).*Count (\\d+).*", "$1"));
                return new ScriptedProvider(MockScript.of(MockTurn.content(done("word ".repeat(n).trim()))
                        .delayMs((7 - n % 7) * 2L))).stream(request);
            }
        };
    }

    @Test
    void anAgentSharedByEveryRunCountsEachRunsTokensAndKeepsEachRunsConversationApart() throws Exception {
        StringBuilder jsonl = new StringBuilder();
        for (int n = 1; n <= 12; n++) {
            jsonl.append("{\"id\": \"count-").append(n).append("\", \"input\": \"Count ").append(n)
                    .append("\", \"expect\": {\"regex\": \"^(word ?){").append(n).append("}$\"}, \"repeat\": 2}\n");
        }
        Dataset dataset = dataset(jsonl.toString());
        AtomicInteger built = new AtomicInteger();
        DefaultAgent shared = DefaultAgent.builder().provider(counting()).model("mock").toolRegistry(new ToolRegistry())
                .modelInterceptor(RunProbe.counter()).build();
        EvalReport together = EvalRunner.builder((c, probe) -> shared).concurrency(6).build().run(dataset);
        // the same cases, one agent per run, one after another: the tokens each run is known to use
        EvalReport apart = EvalRunner.builder((c, probe) -> {
            built.incrementAndGet();
            return probe.install(DefaultAgent.builder().provider(counting()).model("mock").toolRegistry(new ToolRegistry())).build();
        }).build().run(dataset);
        assertThat(built.get()).isEqualTo(24);
        assertThat(together.summary().passed()).as("each run answered its own task alone").isEqualTo(12);
        for (int c = 0; c < 12; c++) {
            for (int r = 0; r < 2; r++) {
                RunResult run = together.cases().get(c).runs().get(r);
                assertThat(run.tokens()).as(together.cases().get(c).id()).isPresent()
                        .isEqualTo(apart.cases().get(c).runs().get(r).tokens());
            }
        }
        assertThat(together.cases().get(11).runs().getFirst().tokens().get().outputTokens())
                .isGreaterThan(together.cases().getFirst().runs().getFirst().tokens().get().outputTokens());
    }

    @Test
    void anAgentWithoutTheCounterHasNoTokensAndACallOutsideAnEvaluationIsNotCounted() throws Exception {
        DefaultAgent shared = DefaultAgent.builder().provider(counting()).model("mock").toolRegistry(new ToolRegistry()).build();
        RunResult run = EvalRunner.builder((c, probe) -> shared).build().run(dataset("{\"id\": \"a\", \"input\": \"Count 2\"}\n"))
                .cases().getFirst().runs().getFirst();
        assertThat(run.passed()).isTrue();
        assertThat(run.tokens()).isEmpty();
        DefaultAgent counted = DefaultAgent.builder().provider(counting()).model("mock").toolRegistry(new ToolRegistry())
                .modelInterceptor(RunProbe.counter()).build();
        assertThat(counted.run("Count 3").await().result()).isEqualTo("word word word");
    }

    @Test
    void withPricesEachRunHasItsCostAndMaxCostChecksIt() throws Exception {
        Dataset dataset = dataset("""
                {"id": "cheap", "input": "Count 1", "expect": {"max_cost": 0.5}}
                {"id": "dear", "input": "Count 30", "expect": {"max_cost": 0.0001}}
                """);
        DefaultAgent agent = DefaultAgent.builder().provider(counting()).model("mock").toolRegistry(new ToolRegistry())
                .modelInterceptor(RunProbe.counter()).build();
        Price price = new Price(2.0, 8.0);
        EvalReport report = EvalRunner.builder((c, probe) -> agent).concurrency(2)
                .prices(Map.of("mock", price)).build().run(dataset);
        RunResult cheap = report.cases().get(0).runs().getFirst();
        RunResult dear = report.cases().get(1).runs().getFirst();
        assertThat(cheap.cost()).hasValue(price.cost(cheap.tokens().orElseThrow()));
        assertThat(cheap.cost().get()).isEqualTo(cheap.tokens().get().inputTokens() * 2.0 / 1e6
                + cheap.tokens().get().outputTokens() * 8.0 / 1e6, org.assertj.core.data.Offset.offset(1e-12));
        assertThat(cheap.passed()).isTrue();
        assertThat(dear.cost().get()).isGreaterThan(0.0001);
        assertThat(dear.scores()).singleElement().satisfies(score -> {
            assertThat(score.passed()).isFalse();
            assertThat(score.reason()).isEqualTo(String.format(java.util.Locale.ROOT, "cost %.6f, at most 0.000100 allowed",
                    dear.cost().get()));
        });
        JsonNode json = ReportJson.toJson(report);
        assertThat(json.get("cases").get(0).get("runs").get(0).get("cost").asDouble()).isEqualTo(cheap.cost().get());
        assertThat(json.get("summary").get("cost").asDouble()).isCloseTo(cheap.cost().get() + dear.cost().get(),
                org.assertj.core.data.Offset.offset(1e-12));

        // a model without a price: no cost, and max_cost says why it cannot pass
        EvalReport unpriced = EvalRunner.builder((c, probe) -> agent).prices(Map.of("other-model", price)).build().run(dataset);
        RunResult unknown = unpriced.cases().getFirst().runs().getFirst();
        assertThat(unknown.cost()).isEmpty();
        assertThat(unknown.scores().getFirst().reason()).startsWith("the run's cost is unknown");
        assertThat(ReportJson.toJson(unpriced).get("summary").has("cost")).isFalse();
    }

    @Test
    void pricesAreReadFromJsonNamingTheModelAndFieldThatIsWrong() throws Exception {
        assertThat(Price.read(Runs.MAPPER.readTree("{\"gpt-4.1-mini\": {\"input\": 0.4, \"output\": 1.6}}")))
                .isEqualTo(Map.of("gpt-4.1-mini", new Price(0.4, 1.6)));
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> Price.read(Runs.MAPPER.readTree("{\"m\": {\"input\": -1, \"output\": 1}}")))
                .hasMessage("m.input: must be a number of at least 0 (the price of a million input tokens)");
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> Price.read(Runs.MAPPER.readTree("{\"m\": {\"input\": 1, \"outptu\": 1}}")))
                .hasMessage("m.outptu: unknown field (input, output)");
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> Price.read(Runs.MAPPER.readTree("[1]")))
                .hasMessageStartingWith("must be an object of models");
    }

    @Test
    void aConversationReachesTheModelBeforeItsTask() throws Exception {
        Dataset dataset = dataset("{\"id\": \"c\", \"input\": [{\"role\": \"user\", \"content\": \"My city is Oslo.\"},"
                + " {\"role\": \"assistant\", \"content\": \"Noted.\"}, {\"role\": \"user\", \"content\": \"Weather?\"}]}\n");
        List<ScriptedProvider> providers = new CopyOnWriteArrayList<>();
        EvalRunner.builder(scripted((c, i) -> MockScript.of(MockTurn.content(done("cloudy"))), providers)).build().run(dataset);
        List<Message> sent = providers.getFirst().requests().getFirst().messages();
        List<String> contents = sent.stream().map(Message::content).toList();
        assertThat(contents).containsSubsequence("My city is Oslo.", "Noted.", "Weather?");
    }

    @Test
    void theRunnersOwnEvaluatorsScoreEveryCaseAfterItsOwn() throws Exception {
        Dataset dataset = dataset("""
                {"id": "a", "input": "x", "expect": {"contains": "ok"}}
                {"id": "b", "input": "y"}
                """);
        Map<String, Integer> seen = new ConcurrentHashMap<>();
        Evaluator custom = Evaluator.of("short", run -> {
            seen.merge(run.evalCase().id(), 1, Integer::sum);
            return run.answer().length() < 5 ? Score.pass("short", "short") : Score.fail("short", "too long");
        });
        EvalReport report = EvalRunner.builder(scripted((c, i) -> MockScript.of(MockTurn.content(done("ok"))),
                new ArrayList<>())).evaluator(custom).build().run(dataset);
        assertThat(report.cases().get(0).runs().getFirst().scores()).extracting(Score::evaluator)
                .containsExactly("contains", "short");
        assertThat(report.cases().get(1).runs().getFirst().scores()).extracting(Score::evaluator).containsExactly("short");
        assertThat(seen).containsExactlyInAnyOrderEntriesOf(Map.of("a", 1, "b", 1));
    }
}
