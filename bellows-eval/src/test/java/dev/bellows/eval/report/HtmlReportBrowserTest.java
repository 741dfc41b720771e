package dev.bellows.eval.report;

import static org.assertj.core.api.Assertions.assertThat;

import tools.jackson.databind.JsonNode;
import dev.bellows.testkit.Background;
import dev.bellows.testkit.Chromium;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.io.Writer;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The sample report's page in a real headless Chromium (Debian's), driven with playwright-core
 * as a person would look at it (report-page.cjs); its screenshots go to
 * {@code target/report-screenshots/}.
 */
class HtmlReportBrowserTest {

    @Test
    void aPersonSeesTheFailingCaseAndItsReasonOpensATranscriptAndHostileTextIsOnlyText(@TempDir Path dir) throws Exception {
        Path page = EvalReports.writeHtml(Sample.copyTo(dir.resolve("report")));
        Path shots = Files.createDirectories(Path.of("target", "report-screenshots").toAbsolutePath());
        JsonNode seen = drive("report-page.cjs", dir, page.toUri().toString(), shots.toString());

        assertThat(seen.get("consoleErrors")).as("console errors and warnings").isEmpty();
        assertThat(seen.get("requests")).as("the page loads nothing").isEmpty();
        assertThat(seen.get("dialogs")).isEmpty();
        assertThat(seen.get("title").asString()).isEqualTo("examples/eval/weather.jsonl: 4 of 5 passed");
        assertThat(seen.get("verdict").asString()).isEqualTo("Regressed");

        assertThat(seen.get("failedRows").asInt()).isEqualTo(1);
        assertThat(seen.get("failedCase").asString()).isEqualTo("capital-france");
        assertThat(seen.get("failedReasonsVisible").asBoolean()).isTrue();
        assertThat(seen.get("failedReasons").asString()).contains("contains (run 1): the answer does not contain \"Paris\"",
                "judge (run 1): Names Lyon, which is not the capital");

        assertThat(seen.get("caseOpenedByLink").asBoolean()).isTrue();
        assertThat(seen.get("transcriptVisibleBefore").asBoolean()).isFalse();
        assertThat(seen.get("transcriptVisibleAfter").asBoolean()).isTrue();
        assertThat(seen.get("toolName").asString()).isEqualTo("get_weather");
        assertThat(seen.get("toolArguments").asString()).contains("\"city\": \"Oslo\"");
        assertThat(seen.get("toolResult").asString()).isEqualTo("{\"temp_c\": 4, \"sky\": \"light snow\"}");
        assertThat(seen.get("answer").asString()).contains("It is 4 °C with light snow in Oslo.");

        assertThat(seen.get("hostileId").asString()).isEqualTo("hostile-<script>alert(5)</script>");
        assertThat(seen.get("hostileAnswer").asString()).contains("Done: <script>alert('pwned')</script> <img src=x onerror=alert(2)> & \"quotes\"");
        assertThat(seen.get("hostileArguments").asString()).contains("<iframe src=//evil.example></iframe>")
                .contains("\"ticket\": 9007199254740993");      // 2^53 + 1: JSON.parse alone shows ...992
        assertThat(seen.get("hostileMessage").asString())
                .isEqualTo("Ends the block </script><script>alert(7)</script> <!--<script> </SCRIPT ><script>alert(8)</script> \u2028line\u2029para");
        assertThat(seen.get("scripts").asInt()).as("the page's own script only").isEqualTo(1);
        assertThat(seen.get("images").asInt()).isZero();

        assertThat(seen.get("rowsShownWhenFailed").asInt()).isEqualTo(1);
        assertThat(seen.get("rowsShownWhenAll").asInt()).isEqualTo(5);
        assertThat(seen.get("chartFell").asInt()).isPositive();
        assertThat(seen.get("horizontalScroll").asBoolean()).as("a narrow screen scrolls no sideways").isFalse();

        assertThat(seen.get("noScriptRows").asInt()).as("without the script: the table").isEqualTo(5);
        assertThat(seen.get("noScriptCards").asInt()).isPositive();
        assertThat(seen.get("noScriptChart").asBoolean()).isTrue();
        assertThat(seen.get("noScriptHint").asString()).contains("drawn by the page's script from events/capital-france/run-1.jsonl, line 1 on");
        assertThat(seen.get("noScriptAnswer").asString()).contains("The capital of France is Lyon.");
        for (String name : new String[] {"01-report", "02-transcript", "03-hostile", "04-chart", "05-dark", "06-narrow", "07-no-script"}) {
            assertThat(shots.resolve(name + ".png")).isNotEmptyFile();
        }
    }

    /**
     * The page's script draws each run's transcript from its events: whole blocks, a run cut off
     * mid-answer, members of the wrong type, a sub-agent, blocks of one file, and what could not
     * be read (said by the page itself).
     */
    @Test
    void eachRunsTranscriptIsDrawnFromItsEvents(@TempDir Path dir) throws Exception {
        Path reportDir = dir.resolve("report");
        ObjectNode report = (ObjectNode) ReportReader.readTree(Sample.copyTo(reportDir));
        Files.writeString(reportDir.resolve("cut.jsonl"), """
                {"type":"loop_start","task":"Add"}
                {"type":"iteration_start","iteration":1}
                {"type":"retry","attempt":2,"reason":"HTTP 503","delay_ms":500}
                {"type":"message_start"}
                {"type":"message_content","content":"Adding "}
                {"type":"message_content","content":"them"}
                {"type":"tool_call_end","content":"{}","server_name":"local","tool_name":"add","arguments":{"a":1}}
                not json
                {"type":"tool_result_error","error":"could not decode the call"}
                """);
        // an events file is outside input: members of the wrong type read as 0 or "", never an error
        Files.writeString(reportDir.resolve("odd.jsonl"), """
                {"type":"loop_start","task":"Add"}
                {"type":"iteration_start","iteration":"one"}
                {"type":"retry","attempt":{"n":2},"reason":"HTTP 503","delay_ms":"soon"}
                {"type":"tool_result_error","error":"could not decode the call","server_name":["local"]}
                """);
        Files.writeString(reportDir.resolve("team.jsonl"), """
                {"type":"loop_start","task":"When does water boil?","agent":"lead"}
                {"type":"iteration_start","iteration":1,"agent":"lead"}
                {"type":"loop_start","task":"find the boiling point","agent":"researcher","parent_call_id":"call_1"}
                {"type":"iteration_start","iteration":1,"agent":"researcher","parent_call_id":"call_1"}
                {"type":"message_start","agent":"researcher","parent_call_id":"call_1"}
                {"type":"message_content","content":"Looking","agent":"researcher","parent_call_id":"call_1"}
                {"type":"tool_result","server_name":"local","tool_name":"task_completion","arguments":{},"result":"100 C","agent":"researcher","parent_call_id":"call_1"}
                {"type":"loop_end","reason":"task_completion","result":"100 C","agent":"researcher","parent_call_id":"call_1"}
                {"type":"tool_result","server_name":"local","tool_name":"researcher","arguments":{"task":"find the boiling point"},"result":"100 C","agent":"lead"}
                {"type":"plan_update","steps":[{"description":"Ask","status":"completed"},{"description":"Answer","status":"in_progress"}]}
                {"type":"loop_end","reason":"task_completion","result":"At 100 C.","agent":"lead"}
                """);
        Files.writeString(reportDir.resolve("events.jsonl"), """
                {"type":"loop_start","task":"First"}
                {"type":"loop_end","reason":"task_completion","result":"one"}
                {"type":"loop_start","task":"Second"}
                {"type":"message_start"}
                {"type":"message_content","content":"Half "}
                {"type":"message_content","content":"said"}
                {"type":"loop_end","reason":"error","result":"broke"}
                """);
        Files.writeString(dir.resolve("secret.jsonl"), "{\"type\":\"loop_start\",\"task\":\"secret\"}\n");
        ArrayNode runs = (ArrayNode) report.get("cases").get(4).get("runs");      // multi-turn's one run, made many
        ObjectNode template = (ObjectNode) runs.get(0);
        runs.removeAll();
        for (String events : List.of("cut.jsonl", "odd.jsonl", "team.jsonl", "events.jsonl#L1-L2", "events.jsonl#L3-L7",
                "events.jsonl#L6-L9", "../secret.jsonl")) {
            runs.add(template.deepCopy().put("index", runs.size() + 1).put("events", events));
        }
        Path page = reportDir.resolve("report.html");
        try (Writer out = Files.newBufferedWriter(page)) {
            EvalReports.writeHtml(report, reportDir, out);
        }

        JsonNode seen = drive("report-transcripts.cjs", dir, page.toUri().toString());
        assertThat(seen.get("consoleErrors")).isEmpty();
        assertThat(seen.get("dialogs")).isEmpty();
        assertThat(seen.get("requests")).isEmpty();
        Map<String, List<String>> shown = new LinkedHashMap<>();
        List<List<String>> blocks = new ArrayList<>();      // events.jsonl's, in the page's order
        for (JsonNode transcript : seen.get("transcripts")) {
            List<String> entries = new ArrayList<>();
            transcript.get("entries").forEach(entry -> entries.add(entry.get(0).asString() + " | " + entry.get(1).asString()));
            if (transcript.path("events").isString()) {
                assertThat(transcript.get("drawn").asBoolean()).as(transcript.toString()).isTrue();
                shown.put(transcript.get("events").asString(), entries);
            }
            if (transcript.path("events").asString("").equals("events.jsonl")) {
                blocks.add(entries);
            }
        }
        // as a person sees them: the labels in capitals (the style's)
        assertThat(shown.get("events/weather-oslo/run-1.jsonl")).containsExactly("t-task | TASK\nWhat is the weather in Oslo?",
                "t-step | STEP 1", "t-think | Thinking: The user wants the weather. I call get_weather for Oslo.", "t-msg | Let me look that up.",
                "t-tool ok | get_weather\nlocal\nOK\n{\n  \"city\": \"Oslo\",\n  \"unit\": \"celsius\"\n}\n{\"temp_c\": 4, \"sky\": \"light snow\"}",
                "t-step | STEP 2", "t-end | ANSWER\nIt is 4 °C with light snow in Oslo.");
        assertThat(shown.get("events/capital-france/run-1.jsonl")).last().isEqualTo("t-end plain | ANSWER\nThe capital of France is Lyon.");
        assertThat(shown.get("events/flaky-sum/run-2.jsonl")).last()
                .isEqualTo("t-end bad | ENDED: ERROR\nthe model server closed the connection");
        assertThat(shown.get("cut.jsonl")).containsExactly("t-task | TASK\nAdd", "t-step | STEP 1", "t-note | retry 2 in 500 ms: HTTP 503",
                "t-problem | cut.jsonl line 8 is not JSON", "t-tool bad | (a call that could not be decoded)\nERROR\ncould not decode the call",
                "t-msg | Adding them (cut off)", "t-tool none | add\nlocal\nNO RESULT\n{\n  \"a\": 1\n}",
                "t-end t-report | ANSWER\nBye!");     // no end in the events: the report's answer stays
        assertThat(shown.get("odd.jsonl")).containsExactly("t-task | TASK\nAdd", "t-step | STEP 0", "t-note | retry 0 in 0 ms: HTTP 503",
                "t-tool bad | (a call that could not be decoded)\nERROR\ncould not decode the call", "t-end t-report | ANSWER\nBye!");
        assertThat(shown.get("team.jsonl")).containsExactly("t-task | TASK\nWhen does water boil?", "t-step | STEP 1",
                "t-note | agent researcher works on: find the boiling point",
                "t-tool ok | researcher\nlocal\nOK\n{\n  \"task\": \"find the boiling point\"\n}\n100 C",
                "t-plan | Ask completed\nAnswer in progress", "t-end | ANSWER\nAt 100 C.");
        assertThat(blocks).containsExactly(List.of("t-task | TASK\nFirst", "t-end | ANSWER\none"),
                List.of("t-task | TASK\nSecond", "t-msg | Half said (cut off)", "t-end bad | ENDED: ERROR\nbroke"),
                List.of("t-end bad | ENDED: ERROR\nbroke", "t-problem | events file events.jsonl ends at line 7, before 9"));
        assertThat(shown.get("../secret.jsonl")).containsExactly(
                "t-problem | events file ../secret.jsonl is outside the report's folder: not read", "t-end t-report | ANSWER\nBye!");
        assertThat(Files.readString(page)).doesNotContain("\"task\":\"secret\"");
    }

    /** Runs a driver of the test resources with node, Chromium and playwright-core; what it saw, its last line. */
    private static JsonNode drive(String driverName, Path dir, String... arguments) throws Exception {
        Path chromium = Chromium.debian();
        Path playwright = Chromium.playwright();
        Path driver = dir.resolve(driverName);
        try (InputStream in = HtmlReportBrowserTest.class.getResourceAsStream(driverName)) {
            Files.write(driver, in.readAllBytes());
        }
        List<String> command = new ArrayList<>(List.of("node", driver.toString()));
        command.addAll(List.of(arguments));
        ProcessBuilder builder = new ProcessBuilder(command).redirectError(dir.resolve("driver.err").toFile());
        builder.environment().put("PLAYWRIGHT", playwright.toString());
        builder.environment().put("CHROMIUM", chromium.toString());
        Process process = builder.start();
        CompletableFuture<String> out = Background.supply(() -> read(process.getInputStream()));
        assertThat(process.waitFor(180, TimeUnit.SECONDS)).as("a hang guard: the driver ends").isTrue();
        String lastLine = out.get(30, TimeUnit.SECONDS).strip().lines().reduce((a, b) -> b).orElse("{}");
        JsonNode seen = ReportReader.MAPPER.readTree(lastLine);
        assertThat(seen.path("error").asString("")).as(Files.readString(dir.resolve("driver.err"))).isEmpty();
        assertThat(process.exitValue()).isZero();
        return seen;
    }

    private static String read(InputStream in) {
        try (in) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            return "";
        }
    }
}
