package dev.bellows.eval.report;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import tools.jackson.databind.node.ObjectNode;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ReportReaderTest {

    @Test
    void readsTheSampleWithItsOptionalFields(@TempDir Path dir) throws Exception {
        Path file = Sample.copyTo(dir);
        Report report = ReportReader.read(ReportReader.readTree(file), file.toString());
        assertThat(report.summary()).isEqualTo(new Report.Summary(5, 4, 1, 0.8));
        assertThat(report.cases()).hasSize(5);
        Report.RunResult failed = report.cases().get(3).runs().get(1);
        assertThat(failed.error()).isEqualTo("the model server closed the connection");
        assertThat(failed.answer()).isEmpty();
        assertThat(report.cases().get(0).runs().get(2).inputTokens()).isEqualTo(812L);
        assertThat(report.comparison().regressed()).isTrue();
        assertThat(report.comparison().cases().get(1).before().scores()).containsEntry("judge", 0.9);
        assertThat(report.comparison().cases().get(4).before()).isNull();      // a new case
    }

    @Test
    void aMissingFileOrOneThatIsNotJsonIsNamed(@TempDir Path dir) throws Exception {
        Path missing = dir.resolve("nope.json");
        assertThatThrownBy(() -> EvalReports.check(missing)).isInstanceOf(InvalidReportException.class)
                .hasMessage(missing + ": no such file");
        Path broken = Files.writeString(dir.resolve("broken.json"), "{\n  \"summary\": {,\n");
        assertThatThrownBy(() -> EvalReports.check(broken)).hasMessageStartingWith(broken + ": not JSON (")
                .hasMessageContaining("at line 2");
        Path array = Files.writeString(dir.resolve("array.json"), "[]");
        assertThatThrownBy(() -> EvalReports.check(array)).hasMessage(array + ": not a report (expected a JSON object)");
    }

    @Test
    void aFieldOfTheWrongKindIsNamedByItsPath(@TempDir Path dir) throws Exception {
        ObjectNode report = (ObjectNode) ReportReader.readTree(Sample.copyTo(dir));
        ((ObjectNode) report.get("cases").get(1).get("runs").get(0)).put("passed", "yes");
        assertThatThrownBy(() -> EvalReports.writeHtml(report, dir, new StringWriter())).isInstanceOf(InvalidReportException.class)
                .hasMessage("report: cases[1].runs[0].passed: expected true or false, found \"yes\"");

        ((ObjectNode) report.get("cases").get(1).get("runs").get(0)).put("passed", true);
        ((ObjectNode) report.get("summary")).remove("failed");
        assertThatThrownBy(() -> EvalReports.writeJunitXml(report, new StringWriter())).hasMessage("report: summary.failed: missing");

        ((ObjectNode) report.get("summary")).put("failed", -1);
        assertThatThrownBy(() -> EvalReports.writeJunitXml(report, new StringWriter()))
                .hasMessage("report: summary.failed: expected a whole number of at least 0, found -1");
    }

    @Test
    void aSecretTheProcessKnowsNeverReachesThePageOrTheXml(@TempDir Path dir) throws Exception {
        String secret = "sk-eval-report-test-0a1b2c3d";
        dev.bellows.secret.Secrets.register(secret);
        ObjectNode report = (ObjectNode) ReportReader.readTree(Sample.copyTo(dir));
        ObjectNode run = (ObjectNode) report.get("cases").get(1).get("runs").get(0);
        run.put("answer", "the key is " + secret);
        ((ObjectNode) run.get("scores").get(0)).put("reason", "it printed " + secret);
        StringWriter page = new StringWriter();
        StringWriter xml = new StringWriter();
        EvalReports.writeHtml(report, dir, page);
        EvalReports.writeJunitXml(report, xml);
        assertThat(page.toString()).doesNotContain(secret).contains("the key is [REDACTED]", "it printed [REDACTED]");
        assertThat(xml.toString()).doesNotContain(secret).contains("it printed [REDACTED]");
    }

    @Test
    void theTreePassedInIsNotChanged(@TempDir Path dir) throws Exception {
        ObjectNode report = (ObjectNode) ReportReader.readTree(Sample.copyTo(dir));
        ObjectNode before = report.deepCopy();
        EvalReports.writeHtml(report, dir, new StringWriter());
        EvalReports.writeJunitXml(report, new StringWriter());
        assertThat(report).isEqualTo(before);
    }
}
