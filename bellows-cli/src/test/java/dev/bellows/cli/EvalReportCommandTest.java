package dev.bellows.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code bellows eval report FILE}: the page written again from a report.json, or one line saying what is wrong. */
class EvalReportCommandTest {

    private static final String REPORT = """
            {"dataset": "weather.jsonl", "summary": {"cases": 1, "passed": 0, "failed": 1, "pass_rate": 0.0},
             "cases": [{"id": "capital-france", "passed": false, "pass_at_k": 0.0, "pass_hat_k": 0.0,
                        "runs": [{"passed": false, "answer": "Lyon <script>x()</script>", "events": "events/capital-france/run-1.jsonl",
                                  "scores": [{"evaluator": "contains", "passed": false, "score": 0.0,
                                              "reason": "the answer does not contain \\"Paris\\""}]}]}]}
            """;
    private static final String EVENTS = """
            {"type":"loop_start","task":"What is the capital of France?"}
            {"type":"iteration_start","iteration":1}
            {"type":"tool_result","server_name":"local","tool_name":"search_atlas","arguments":{"query":"capital"},"result":"Lyon"}
            {"type":"loop_end","reason":"task_completion","result":"Lyon <script>x()</script>"}
            """;

    private static Host in(Path dir) {
        return new Host(Map.of(), dir, Interrupts.NONE, false);
    }

    @Test
    void writesThePageBesideTheReportAndPrintsItsPath(@TempDir Path dir) throws Exception {
        Path out = Files.createDirectories(dir.resolve("eval-out"));
        Files.writeString(out.resolve("report.json"), REPORT);
        Files.createDirectories(out.resolve("events/capital-france"));
        Files.writeString(out.resolve("events/capital-france/run-1.jsonl"), EVENTS);

        Cli.Run run = Cli.run(in(dir), "eval", "report", "eval-out/report.json");
        assertThat(run.err()).isEmpty();
        assertThat(run.status()).isZero();
        assertThat(run.out()).isEqualTo(out.resolve("report.html") + "\n");
        String page = Files.readString(out.resolve("report.html"));
        assertThat(page).contains("capital-france", "the answer does not contain &quot;Paris&quot;", "search_atlas",
                "Lyon &lt;script&gt;x()&lt;/script&gt;").doesNotContain("<script>x()");

        Files.writeString(out.resolve("report.html"), "old");
        Cli.Run again = Cli.run(in(dir), "eval", "report", "eval-out");      // the folder that holds it
        assertThat(again.status()).isZero();
        assertThat(again.out()).isEqualTo(run.out());
        assertThat(Files.readString(out.resolve("report.html"))).isEqualTo(page);
    }

    @Test
    void aMissingOrInvalidReportIsNamedWithStatus2(@TempDir Path dir) throws Exception {
        Cli.Run missing = Cli.run(in(dir), "eval", "report", "nope.json");
        assertThat(missing.status()).isEqualTo(2);
        assertThat(missing.out()).isEmpty();
        assertThat(missing.err()).isEqualTo("bellows eval report: " + dir.resolve("nope.json") + ": no such file\n");

        Files.writeString(dir.resolve("report.json"), REPORT.replace("\"passed\": false, \"pass_at_k\"", "\"passed\": \"no\", \"pass_at_k\""));
        Cli.Run invalid = Cli.run(in(dir), "eval", "report", "report.json");
        assertThat(invalid.status()).isEqualTo(2);
        assertThat(invalid.err()).isEqualTo("bellows eval report: " + dir.resolve("report.json")
                + ": cases[0].passed: expected true or false, found \"no\"\n");
        assertThat(dir.resolve("report.html")).doesNotExist();

        Files.writeString(dir.resolve("report.json"), "{\"summary\": ");
        assertThat(Cli.run(in(dir), "eval", "report", "report.json").err()).startsWith("bellows eval report: "
                + dir.resolve("report.json") + ": not JSON (");
    }

    @Test
    void evalAloneIsAUsageErrorAndItsHelpReadsWhole() {
        Cli.Run alone = Cli.run("", "eval");
        assertThat(alone.status()).isEqualTo(2);
        assertThat(alone.err()).startsWith("bellows eval: ").contains("(see 'bellows eval --help')");
        for (String[] command : new String[][] {{"eval", "--help"}, {"eval", "report", "--help"}}) {
            Cli.Run help = Cli.run("", command);
            assertThat(help.status()).isZero();
            help.out().lines().forEach(line -> assertThat(line.length()).as("width of: %s", line).isLessThanOrEqualTo(80));
        }
    }
}
