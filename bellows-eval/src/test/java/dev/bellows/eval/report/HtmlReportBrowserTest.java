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
        Path chromium = Chromium.debian();
        Path playwright = Chromium.playwright();
        Path page = EvalReports.writeHtml(Sample.copyTo(dir.resolve("report")));
        Path driver = dir.resolve("report-page.cjs");
        try (InputStream in = getClass().getResourceAsStream("report-page.cjs")) {
            Files.write(driver, in.readAllBytes());
        }
        Path shots = Files.createDirectories(Path.of("target", "report-screenshots").toAbsolutePath());

        ProcessBuilder builder = new ProcessBuilder("node", driver.toString(), page.toUri().toString(), shots.toString())
                .redirectError(dir.resolve("driver.err").toFile());
        builder.environment().put("PLAYWRIGHT", playwright.toString());
        builder.environment().put("CHROMIUM", chromium.toString());
        Process process = builder.start();
        CompletableFuture<String> out = Background.supply(() -> read(process.getInputStream()));
        assertThat(process.waitFor(180, TimeUnit.SECONDS)).as("a hang guard: the driver ends").isTrue();
        String lastLine = out.get(30, TimeUnit.SECONDS).strip().lines().reduce((a, b) -> b).orElse("{}");
        JsonNode seen = ReportReader.MAPPER.readTree(lastLine);
        assertThat(seen.path("error").asString("")).as(Files.readString(dir.resolve("driver.err"))).isEmpty();
        assertThat(process.exitValue()).isZero();

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
        assertThat(seen.get("toolArguments").asString()).contains("\"city\" : \"Oslo\"");
        assertThat(seen.get("toolResult").asString()).isEqualTo("{\"temp_c\": 4, \"sky\": \"light snow\"}");
        assertThat(seen.get("answer").asString()).contains("It is 4 °C with light snow in Oslo.");

        assertThat(seen.get("hostileId").asString()).isEqualTo("hostile-<script>alert(5)</script>");
        assertThat(seen.get("hostileAnswer").asString()).contains("Done: <script>alert('pwned')</script> <img src=x onerror=alert(2)> & \"quotes\"");
        assertThat(seen.get("hostileArguments").asString()).contains("<iframe src=//evil.example></iframe>");
        assertThat(seen.get("scripts").asInt()).as("the page's own script only").isEqualTo(1);
        assertThat(seen.get("images").asInt()).isZero();

        assertThat(seen.get("rowsShownWhenFailed").asInt()).isEqualTo(1);
        assertThat(seen.get("rowsShownWhenAll").asInt()).isEqualTo(5);
        assertThat(seen.get("chartFell").asInt()).isPositive();
        assertThat(seen.get("horizontalScroll").asBoolean()).as("a narrow screen scrolls no sideways").isFalse();
        for (String name : new String[] {"01-report", "02-transcript", "03-hostile", "04-chart", "05-dark", "06-narrow"}) {
            assertThat(shots.resolve(name + ".png")).isNotEmptyFile();
        }
    }

    private static String read(InputStream in) {
        try (in) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            return "";
        }
    }
}
