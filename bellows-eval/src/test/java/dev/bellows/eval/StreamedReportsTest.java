package dev.bellows.eval;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.bellows.agent.DefaultAgent;
import dev.bellows.eval.report.EvalReports;
import dev.bellows.eval.report.ReportFiles;
import dev.bellows.testkit.MockScript;
import dev.bellows.testkit.MockTurn;
import dev.bellows.testkit.ScriptedProvider;
import dev.bellows.tool.ToolRegistry;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

/**
 * The report files the runner writes as the runs go ({@code reportFiles(ReportFiles::open)}): byte for byte
 * the files written from the whole report once it is done, whatever order the runs end in, and
 * none of them when the evaluation is cancelled.
 */
class StreamedReportsTest {

    @TempDir
    Path dir;

    private static final Clock CLOCK = Clock.fixed(Instant.parse("2026-12-02T10:00:00Z"), ZoneOffset.UTC);
    private static final List<String> FILES = List.of(ReportJson.FILE, EvalReports.JUNIT_XML, EvalReports.HTML, "events.jsonl");

    /** Twelve cases: most pass (a tool call, then the answer), one answers wrong, one's agent cannot be built, two run twice. */
    private Dataset dataset() throws Exception {
        StringBuilder lines = new StringBuilder();
        for (int c = 1; c <= 12; c++) {
            lines.append("{\"id\": \"case-").append(c).append("\", \"input\": \"Weather in city ").append(c)
                    .append("?\", \"tags\": [\"t").append(c % 3).append("\"], \"expect\": {\"contains\": \"city ").append(c)
                    .append("\", \"tools\": {\"match\": \"strict\", \"calls\": [\"get_weather\"]}}")
                    .append(c % 5 == 0 ? ", \"repeat\": 2" : "").append("}\n");
        }
        return Dataset.read(Files.writeString(dir.resolve("cases.jsonl"), lines.toString()));
    }

    /** An agent per run; {@code before}, if not null, runs before each agent is built (to hold a case back). */
    private static AgentFactory agents(Waiter before) {
        return (evalCase, probe) -> {
            if (before != null) {
                before.await(evalCase);
            }
            if (evalCase.id().equals("case-7")) {
                throw new IllegalStateException("no agent for case 7");
            }
            String city = evalCase.task().replace("Weather in ", "").replace("?", "");
            String answer = evalCase.id().equals("case-4") ? "somewhere else" : city + " is cloudy";
            MockScript script = MockScript.of(MockTurn.content(EvalRunnerTest.weather(city)),
                    MockTurn.content(EvalRunnerTest.done(answer)));
            return probe.install(DefaultAgent.builder().provider(new ScriptedProvider(script)).model("mock")
                    .toolRegistry(new ToolRegistry().registerMethods(new EvalRunnerTest.WeatherTools()))).build();
        };
    }

    private interface Waiter {
        void await(EvalCase evalCase) throws InterruptedException;
    }

    private static EvalRunner.Builder runner(AgentFactory factory, Path out) {
        return EvalRunner.builder(factory).outputDirectory(out).reportFiles(ReportFiles::open).model("mock").clock(CLOCK)
                .nanoTime(() -> 0);     // every duration 0: two evaluations' files can be compared whole
    }

    private static String read(Path file) throws Exception {
        return Files.readString(file, StandardCharsets.UTF_8);
    }

    /** The three files as they were written before this change: from the whole report, once it is done. */
    private static void assertFilesAreTheWholeReports(EvalReport report, Path out) throws Exception {
        JsonNode json = ReportJson.toJson(report);
        assertThat(read(out.resolve(ReportJson.FILE))).isEqualTo(ReportJson.text(json));
        StringWriter xml = new StringWriter();
        EvalReports.writeJunitXml(json, xml);
        assertThat(read(out.resolve(EvalReports.JUNIT_XML))).isEqualTo(xml.toString());
        StringWriter page = new StringWriter();
        EvalReports.writeHtml(json, out, page);
        assertThat(read(out.resolve(EvalReports.HTML))).isEqualTo(page.toString());
        try (Stream<Path> files = Files.list(out)) {
            assertThat(files.map(file -> file.getFileName().toString())).containsExactlyInAnyOrderElementsOf(FILES);    // no part left
        }
    }

    @Test
    void theFilesWrittenAsTheRunsGoAreTheFilesOfTheWholeReport() throws Exception {
        Path out = dir.resolve("out");
        EvalReport report = runner(agents(null), out).concurrency(3).build().run(dataset());
        assertThat(report.summary().failed()).isEqualTo(2);
        assertFilesAreTheWholeReports(report, out);
        assertThat(read(out.resolve(EvalReports.HTML))).contains("no agent for case 7", "\"tool_name\":\"get_weather\"");
    }

    @Test
    void withABaselineTheFilesHoldTheComparisonAsTheWholeReportDoes() throws Exception {
        JsonNode baseline = Runs.MAPPER.readTree("""
                {"cases": [
                  {"id": "case-4", "passed": true, "runs": [{"passed": true, "scores": [{"evaluator": "contains", "score": 1.0}]}]},
                  {"id": "case-5", "passed": false, "runs": [{"passed": false, "scores": [{"evaluator": "contains", "score": 0.0}]}]},
                  {"id": "gone", "passed": true, "runs": []}]}
                """);
        Path out = dir.resolve("out");
        EvalReport report = runner(agents(null), out).concurrency(4).baseline("old/report.json", baseline, 0.05).build()
                .run(dataset());
        EvalReport expected = report.withComparison(Comparison.of("old/report.json", baseline, report, 0.05));
        assertThat(report.comparison()).isEqualTo(expected.comparison());
        assertThat(report.comparison().orElseThrow().regressed()).isTrue();      // case-4 passed there
        assertFilesAreTheWholeReports(report, out);
        assertThat(read(out.resolve(EvalReports.HTML))).contains("Scores against the baseline", "<span class=\"badge\">regressed</span>");
    }

    @Test
    void casesThatEndOutOfOrderGiveTheFilesOfCasesThatEndInOrder() throws Exception {
        Dataset dataset = dataset();
        int runs = dataset.cases().stream().mapToInt(c -> c.repeatOr(1)).sum();
        Path inOrder = dir.resolve("in-order");
        EvalReport one = runner(agents(null), inOrder).concurrency(1).build().run(dataset);

        // case-1 and case-2 wait until every other run has ended: their parts come last, after the others' are held back
        CountDownLatch others = new CountDownLatch(runs - 2);
        Path outOfOrder = dir.resolve("out-of-order");
        EvalReport four = runner(agents(evalCase -> {
            if (evalCase.id().equals("case-1") || evalCase.id().equals("case-2")) {
                assertThat(others.await(30, TimeUnit.SECONDS)).isTrue();
            }
        }), outOfOrder).concurrency(4).progress(new EvalProgress() {
            @Override
            public void finished(String caseId, int index, boolean passed, int done, int total) {
                if (!caseId.equals("case-1") && !caseId.equals("case-2")) {
                    others.countDown();
                }
            }
        }).build().run(dataset);

        assertThat(four).isEqualTo(one);
        for (String file : FILES) {
            assertThat(read(outOfOrder.resolve(file))).as(file).isEqualTo(read(inOrder.resolve(file)));
        }
        assertFilesAreTheWholeReports(four, outOfOrder);
    }

    @Test
    void aCancelledEvaluationWritesNoReportFileAndLeavesTheEarlierOnes(@TempDir Path out) throws Exception {
        Files.writeString(out.resolve(ReportJson.FILE), "an earlier report\n");
        CountDownLatch started = new CountDownLatch(6);
        CountDownLatch never = new CountDownLatch(1);
        AtomicReference<Throwable> thrown = new AtomicReference<>();
        Thread evaluation = Thread.ofPlatform().start(() -> {
            try {
                runner(agents(evalCase -> {
                    if (evalCase.id().equals("case-9")) {
                        never.await();      // until cancelled
                    }
                }), out).concurrency(2).progress(new EvalProgress() {
                    @Override
                    public void finished(String caseId, int index, boolean passed, int done, int total) {
                        started.countDown();
                    }
                }).build().run(dataset());
            } catch (Throwable e) {
                thrown.set(e);
            }
        });
        assertThat(started.await(30, TimeUnit.SECONDS)).isTrue();     // cases before case-9 ended, their parts written
        evaluation.interrupt();
        evaluation.join(30_000);
        assertThat(evaluation.isAlive()).isFalse();
        assertThat(thrown.get()).isInstanceOf(InterruptedException.class);
        try (Stream<Path> files = Files.list(out)) {
            assertThat(files.map(file -> file.getFileName().toString())).containsExactlyInAnyOrder(ReportJson.FILE, "events.jsonl");
        }
        assertThat(read(out.resolve(ReportJson.FILE))).isEqualTo("an earlier report\n");
    }

    @Test
    void aReportFileThatCannotBePutInPlaceFailsTheEvaluationAndLeavesNoPartBehind() throws Exception {
        Path out = dir.resolve("out");
        Files.createDirectories(out.resolve(EvalReports.JUNIT_XML).resolve("taken"));   // a folder where junit.xml goes
        assertThatThrownBy(() -> runner(agents(null), out).concurrency(3).build().run(dataset()))
                .isInstanceOf(java.io.IOException.class);
        try (Stream<Path> files = Files.list(out)) {
            // the other two files are joined beside it and may be in place; no hidden part or joined file is left
            assertThat(files.map(file -> file.getFileName().toString())).noneMatch(name -> name.startsWith("."))
                    .contains(EvalReports.JUNIT_XML, "events.jsonl");
        }
    }

    @Test
    void anEmptyDatasetGivesTheFilesOfTheEmptyReport() throws Exception {
        Path out = dir.resolve("out");
        EvalReport report = runner(agents(null), out).build().run(new Dataset(dir.resolve("none.jsonl"), List.of()));
        assertFilesAreTheWholeReports(report, out);
        assertThat(read(out.resolve(ReportJson.FILE))).contains("\"cases\" : [ ]");
    }

    /**
     * The report files written as the runs go have the permissions every other file the process
     * writes has (the umask's), as events.jsonl and the whole-report writers' files: not
     * owner-only, as they were when made as temporary files.
     */
    @Test
    void theReportFilesHaveThePermissionsOfEveryOtherFileWritten() throws Exception {
        Path out = dir.resolve("out");
        runner(agents(null), out).build().run(dataset());
        Path plain = Files.createFile(dir.resolve("a file as the process makes it"));
        var expected = Files.getPosixFilePermissions(plain);
        assertThat(expected).contains(java.nio.file.attribute.PosixFilePermission.OWNER_READ);
        for (String file : FILES) {
            assertThat(Files.getPosixFilePermissions(out.resolve(file))).as(file).isEqualTo(expected);
        }
    }

    /**
     * The cases' parts are made from the runner's records, not from the case's redacted JSON tree:
     * a secret in a text input, in a conversation's message, in a tag, an answer and a reason is
     * redacted in them as the whole report's tree redacts it.
     */
    @Test
    void aSecretInACaseIsRedactedInItsPartsAsInTheWholeReport() throws Exception {
        String secret = "sk-in-the-streamed-parts-51";
        dev.bellows.secret.Secrets.register(secret);
        Dataset dataset = Dataset.read(Files.writeString(dir.resolve("secret.jsonl"), """
                {"id": "text", "input": "My key is %1$s.", "tags": ["%1$s"], "expect": {"contains": "%1$s", "max_iterations": 4}}
                {"id": "conversation", "input": [{"role": "user", "content": "Keep %1$s"}, {"role": "assistant", "content": "Kept."}, {"role": "user", "content": "Which key?"}], "expect": {"contains": "nothing"}}
                """.formatted(secret)));
        AgentFactory factory = (evalCase, probe) -> probe.install(DefaultAgent.builder().model("mock")
                .toolRegistry(new ToolRegistry())
                .provider(new ScriptedProvider(MockScript.of(MockTurn.content(EvalRunnerTest.done("the key is " + secret)))))).build();
        Path out = dir.resolve("out");
        EvalReport report = runner(factory, out).build().run(dataset);
        assertFilesAreTheWholeReports(report, out);
        for (String file : FILES) {
            assertThat(read(out.resolve(file))).contains("[REDACTED]").doesNotContain(secret);
        }
    }

    @Test
    void reportFilesNeedAnOutputDirectory() {
        assertThatThrownBy(() -> EvalRunner.builder((evalCase, probe) -> null).reportFiles(ReportFiles::open).build())
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("output directory");
    }
}
