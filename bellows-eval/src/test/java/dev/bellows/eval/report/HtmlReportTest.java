package dev.bellows.eval.report;

import static org.assertj.core.api.Assertions.assertThat;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The page's markup; what a person sees of it is HtmlReportBrowserTest's. */
class HtmlReportTest {

    private static final Pattern TAG = Pattern.compile("<([a-zA-Z][a-zA-Z0-9-]*)([^>]*)>");
    private static final Pattern ATTRIBUTE = Pattern.compile("([a-zA-Z-]+)=\"([^\"]*)\"");

    @Test
    void thePageLoadsNothingAndRunsOnlyItsOwnScript(@TempDir Path dir) throws Exception {
        String page = Files.readString(EvalReports.writeHtml(Sample.copyTo(dir)));
        List<String> scripts = new ArrayList<>();
        Matcher tags = TAG.matcher(page);
        while (tags.find()) {
            String name = tags.group(1).toLowerCase();
            assertThat(name).as(tags.group()).isNotIn("iframe", "img", "link", "object", "embed", "base", "form", "image");
            Matcher attributes = ATTRIBUTE.matcher(tags.group(2));
            while (attributes.find()) {
                String attribute = attributes.group(1).toLowerCase();
                assertThat(attribute).as(tags.group()).isNotIn("src", "srcset", "action", "formaction", "xlink:href").doesNotStartWith("on");
                if (attribute.equals("href")) {
                    assertThat(attributes.group(2)).as(tags.group()).matches("#case-[0-9]+");
                }
            }
            if (name.equals("script")) {
                scripts.add(tags.group());
            }
        }
        // the page's own script, and each run's events as data (no script element of a type that runs)
        assertThat(scripts).contains("<script>").containsOnly("<script>", "<script type=\"application/json\" class=\"t-events\">");
        assertThat(scripts).filteredOn(tag -> tag.equals("<script>")).hasSize(1);
        assertThat(page).doesNotContain("url(", "@import", "http:", "https:");
        String script = page.substring(page.indexOf("<script>") + 8, page.indexOf("</script>", page.indexOf("<script>")));
        String hash = Base64.getEncoder().encodeToString(MessageDigest.getInstance("SHA-256").digest(script.getBytes(StandardCharsets.UTF_8)));
        assertThat(page).contains("content=\"default-src 'none'; style-src 'unsafe-inline'; img-src data:; script-src 'sha256-" + hash + "'\"");
    }

    @Test
    void textFromTheReportIsEscapedWhereverItIsWritten(@TempDir Path dir) throws Exception {
        String page = Files.readString(EvalReports.writeHtml(Sample.copyTo(dir)));
        assertThat(page).contains("Done: &lt;script&gt;alert(&#39;pwned&#39;)&lt;/script&gt; &lt;img src=x onerror=alert(2)&gt; &amp; &quot;quotes&quot;")
                .contains("hostile-&lt;script&gt;alert(5)&lt;/script&gt;")
                .contains("&lt;i&gt;security&lt;/i&gt;")
                .doesNotContain("<script>alert", "<b>bold", "<img src=x", "<iframe", "<html>", "<!--", "\u2028", "\u2029");
        // the events, as data: every < written as JSON's escape, so nothing ends the data block or opens a comment in it
        assertThat(page).contains("\"Fetching \\u003c/details>\\u003cscript>alert(3)\\u003c/script>\"")
                .contains("\"result\":\"\\u003chtml>\\u003cscript>steal()\\u003c/script>\\u003c/html>\"")
                .contains("Ends the block \\u003c/script>\\u003cscript>alert(7)\\u003c/script> \\u003c!--\\u003cscript> \\u003c/SCRIPT >"
                        + "\\u003cscript>alert(8)\\u003c/script> \\u2028line\\u2029para");
        Matcher data = Pattern.compile("<script type=\"application/json\" class=\"t-events\">(.*?)</script>\n", Pattern.DOTALL).matcher(page);
        int blocks = 0;
        for (; data.find(); blocks++) {
            assertThat(data.group(1)).doesNotContain("<");
            for (String line : data.group(1).split("\n")) {
                if (!line.isEmpty()) {
                    ReportReader.MAPPER.readTree(line);     // still JSON, line by line
                }
            }
        }
        assertThat(blocks).as("a block for each run whose events were found").isEqualTo(8);
        // a tool call's deltas, which its end and result repeat, are left out: an empty line each
        assertThat(Files.readString(dir.resolve("events/hostile/run-1.jsonl"))).contains("{\"type\":\"tool_call_argument\"");
        assertThat(page).doesNotContain("\"tool_call_argument\"", "\"tool_call_content\"", "\"tool_call_start\"", "\"tool_call_name\"")
                .contains("\"content\":\"Fetching \\u003c/details>\\u003cscript>alert(3)\\u003c/script>\"}\n"
                        + "{\"type\":\"message_start\"}\n{\"type\":\"message_end\",\"content\":\"Ends the block")
                .contains("\"Ends the block")
                .contains("\\u2029para\"}\n\n\n\n\n\n{\"type\":\"tool_call_end\"");
    }

    /** A row's own signs (at least, no value, up or down) are entities: text from Latin-1 keeps the row's string one byte a character. */
    @Test
    void aRowOfLatin1TextIsLatin1(@TempDir Path dir) throws Exception {
        Report report = ReportReader.read(ReportReader.readTree(Sample.copyTo(dir)), "report");
        Map<String, Report.Change> changes = new HashMap<>();
        report.comparison().cases().forEach(change -> changes.put(change.id(), change));
        String rows = "";
        for (int i = 0; i < report.cases().size(); i++) {
            rows += HtmlReport.row(report.cases().get(i), changes.get(report.cases().get(i).id()), i);
        }
        assertThat(rows).contains("&ge; ", "&#9660;");
        assertThat(rows.chars().filter(c -> c > 0xff).mapToObj(Character::toString).toList()).isEmpty();
    }

    @Test
    void aSecretTheProcessKnowsIsNotInTheEvents(@TempDir Path dir) throws Exception {
        Path report = Sample.copyTo(dir);
        String secret = "sk-page-test-4f1c9a0b";       // registered for the rest of this JVM: no other test writes it
        Path events = dir.resolve("events/weather-oslo/run-1.jsonl");
        Files.writeString(events, Files.readString(events).replace("light snow", secret));
        dev.bellows.secret.Secrets.register(secret);
        String page = Files.readString(EvalReports.writeHtml(report));
        assertThat(page).doesNotContain(secret).contains("\"result\":\"{\\\"temp_c\\\": 4, \\\"sky\\\": \\\"" + dev.bellows.secret.Secrets.REDACTED);
    }

    @Test
    void theSummaryTableAndChartSayWhatFailedAndWhy(@TempDir Path dir) throws Exception {
        String page = Files.readString(EvalReports.writeHtml(Sample.copyTo(dir)));
        assertThat(page).contains("<title>examples/eval/weather.jsonl: 4 of 5 passed</title>")
                .contains("<span class=\"verdict bad\">Regressed</span>")
                .contains("<li><b>contains (run 1)</b>: the answer does not contain &quot;Paris&quot;</li>")
                .contains("<li><b>judge (run 1)</b>: Names Lyon, which is not the capital; the rubric asks for the capital.</li>")
                .contains("<li>passed before, fails now</li>")
                .contains("<details class=\"run\" open>\n<summary><span class=\"pill bad\">run 1</span>")     // capital-france's failed run
                .contains("<details class=\"run\">\n<summary><span class=\"pill ok\">run 2</span>")
                // each run's transcript: its events, its file and first line, and whether it passed, for the page's script
                .contains("<div class=\"transcript\" data-events=\"events/capital-france/run-1.jsonl\" data-line=\"1\" data-passed=\"false\">\n"
                        + "<script type=\"application/json\" class=\"t-events\">{\"type\":\"loop_start\"")
                .contains("<div class=\"t-end plain t-report\"><span class=\"label\">Answer</span>The capital of France is Lyon.</div>")
                .contains("events file events/multi-turn/run-1.jsonl not found")
                .contains("<div class=\"error\"><b>The run failed:</b> the model server closed the connection</div>");
        // capital-france's rows first (regressed): its pass rate 1.0 -> 0.5 fell by more than the margin
        List<ScoreChart.Row> rows = ScoreChart.rows(ReportReader.read(ReportReader.readTree(dir.resolve("report.json")), "r").comparison());
        assertThat(rows.get(0)).isEqualTo(new ScoreChart.Row("capital-france", "pass rate", 1.0, 0.5, true));
        assertThat(rows).extracting(ScoreChart.Row::caseId).doesNotContain("multi-turn");      // new: nothing to compare with
        assertThat(page).contains("<g class=\"fell\"><title>capital-france \u00b7 pass rate: 1.00 \u2192 0.50</title>")
                .contains("<g class=\"same\"><title>weather-oslo \u00b7 judge: 0.93 \u2192 0.90</title>");   // within the margin
    }

    @Test
    void aReportWithoutComparisonHasNoChartAndLongTextsAreCut(@TempDir Path dir) throws Exception {
        ObjectNode report = (ObjectNode) ReportReader.readTree(Sample.copyTo(dir));
        report.remove("comparison");
        // multi-turn's events file is missing: its answer is shown from the report, cut
        ((ObjectNode) report.get("cases").get(4).get("runs").get(0)).put("answer", "x".repeat(HtmlReport.TEXT_LIMIT + 5));
        StringWriter out = new StringWriter();
        EvalReports.writeHtml(report, dir, out);
        assertThat(out.toString()).doesNotContain("<svg", "Regressed").contains("<span class=\"verdict bad\">Failed</span>")
                .contains("x".repeat(200) + "</span>")          // the preview in the run's summary line
                .contains("x".repeat(HtmlReport.TEXT_LIMIT) + "<span class=\"cut\"> &hellip; (5 more characters not shown)</span>")
                .doesNotContain("x".repeat(HtmlReport.TEXT_LIMIT + 1));
    }

    @Test
    void aPageMadeOnSeveralThreadsIsThePageMadeOnOne(@TempDir Path dir) throws Exception {
        // the sample's cases forty times over (200 cases, 360 runs: several parts), their events read
        // back and forth (each copy goes back to the first files), one file missing
        ObjectNode report = (ObjectNode) ReportReader.readTree(Sample.copyTo(dir));
        ArrayNode cases = (ArrayNode) report.get("cases");
        List<JsonNode> sample = new ArrayList<>();
        cases.forEach(sample::add);
        for (int copy = 1; copy < 40; copy++) {
            for (JsonNode c : sample) {
                ObjectNode again = (ObjectNode) c.deepCopy();
                again.put("id", c.get("id").asString() + "-" + copy);
                cases.add(again);
            }
        }
        Report parsed = ReportReader.read(report, "report");
        assertThat(parsed.cases().stream().mapToLong(c -> c.runs().size()).sum()).isGreaterThan(4L * HtmlReport.RUNS_PER_PART);
        StringWriter one = new StringWriter();
        HtmlReport.write(parsed, dir, one, 1);
        StringWriter three = new StringWriter();
        HtmlReport.write(parsed, dir, three, 3);
        assertThat(three.toString()).isEqualTo(one.toString())
                .contains("<span class=\"case-id\">capital-france-39</span>")
                .contains("events file events/multi-turn/run-1.jsonl not found");
    }
}
