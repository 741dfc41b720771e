package dev.bellows.docs;

import dev.bellows.json.internal.Jackson;
import static org.assertj.core.api.Assertions.assertThat;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.node.ObjectNode;
import dev.bellows.eval.Dataset;
import dev.bellows.testkit.MockLlmServer;
import dev.bellows.testkit.MockScript;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * docs/eval.md as a reader follows it: the example's output, the datasets it shows, the report
 * and the baseline's printout are what {@code bellows eval} reads and writes.
 */
class EvalGuideTest {

    static final Path ROOT = Path.of("").toAbsolutePath().getParent();
    static final ObjectMapper JSON = Jackson.JSON;

    @TempDir
    Path dir;

    static String block(String language) throws Exception {
        return blocks(language).getFirst();
    }

    static List<String> blocks(String language) throws Exception {
        String page = Files.readString(ROOT.resolve("docs/eval.md"));
        Matcher fence = Pattern.compile("(?m)^```" + language + "\\n(.*?)^```$", Pattern.DOTALL).matcher(page);
        List<String> found = new ArrayList<>();
        while (fence.find()) {
            found.add(fence.group(1));
        }
        assertThat(found).as("```" + language + " blocks of docs/eval.md").isNotEmpty();
        return found;
    }

    /** {@code bellows eval} on the example, in {@link #dir}, against a fresh mock server. */
    private String[] example(String... more) throws Exception {
        try (MockLlmServer server = MockLlmServer.start(MockScript.read(ROOT.resolve("examples/eval/mock-script.json")))) {
            List<String> args = new ArrayList<>(List.of("eval", ROOT.resolve("examples/eval/cases.jsonl").toString(),
                    "--base-url", server.baseUrl().toString(), "--model", "mock"));
            args.addAll(List.of(more));
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            ByteArrayOutputStream err = new ByteArrayOutputStream();
            int status = dev.bellows.cli.CliAccess.commandLine(new ByteArrayInputStream(new byte[0]), out, err, dir)
                    .execute(args.toArray(String[]::new));
            return new String[] {String.valueOf(status), out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8)};
        }
    }

    @Test
    void theExamplePrintsWhatThePageShowsAndTheReportHasItsFields() throws Exception {
        String[] run = example();
        assertThat(run[1]).as(run[2]).isEqualTo(block("output"));
        assertThat(run[0]).isEqualTo("1");

        JsonNode report = JSON.readTree(dir.resolve("eval-out/report.json").toFile());
        JsonNode shown = JSON.readTree(block("json"));
        assertThat(names(report)).isEqualTo(names(shown));
        JsonNode failing = report.get("cases").get(4);
        JsonNode shownCase = shown.get("cases").get(0);
        assertThat(names(failing)).isEqualTo(names(shownCase));
        assertThat(names(failing.get("runs").get(0))).isEqualTo(names(shownCase.get("runs").get(0)));
        for (String field : List.of("id", "passed", "input", "tags", "repeat", "pass_rate", "pass_at_k")) {
            assertThat(failing.get(field)).as(field).isEqualTo(shownCase.get(field));
        }
        for (String field : List.of("answer", "scores", "events", "iterations")) {
            assertThat(failing.get("runs").get(0).get(field)).as(field).isEqualTo(shownCase.get("runs").get(0).get(field));
        }
        assertThat(report.get("summary")).isEqualTo(shown.get("summary"));
    }

    private static List<String> names(JsonNode object) {
        List<String> names = new ArrayList<>();
        for (Iterator<String> it = object.propertyNames().iterator(); it.hasNext(); ) {
            names.add(it.next());
        }
        return names;
    }

    @Test
    void theBaselinesPrintoutIsThePages() throws Exception {
        assertThat(example("--out", "main")[0]).isEqualTo("1");
        // the baseline of the page: there, capital failed and the failing case passed
        ObjectNode before = (ObjectNode) JSON.readTree(dir.resolve("main/report.json").toFile());
        ObjectNode capital = (ObjectNode) before.get("cases").get(0);
        capital.put("passed", false).put("pass_rate", 0.0);
        ObjectNode sum = (ObjectNode) before.get("cases").get(4);
        sum.put("passed", true).put("pass_rate", 1.0);
        ((ObjectNode) sum.get("runs").get(0).get("scores").get(0)).put("score", 1.0);
        Files.writeString(dir.resolve("main/report.json"), before.toString());

        String[] run = example("--baseline", "main/report.json");
        assertThat(run[0]).isEqualTo("1");
        assertThat(run[1]).endsWith(block("baseline-output"));
    }

    @Test
    void theDatasetsOfThePageAreValid() throws Exception {
        Path jsonl = Files.writeString(dir.resolve("page.jsonl"), block("jsonl"));
        Path yaml = Files.writeString(dir.resolve("page.yaml"), block("yaml"));
        Dataset fromJsonl = Dataset.read(jsonl);
        Dataset fromYaml = Dataset.read(yaml);
        assertThat(fromJsonl.cases()).hasSize(2);
        assertThat(fromYaml.cases()).hasSize(1);
        assertThat(fromYaml.cases().getFirst().input()).isEqualTo(fromJsonl.cases().getFirst().input());
        assertThat(fromYaml.cases().getFirst().evaluators()).extracting(e -> e.name())
                .isEqualTo(fromJsonl.cases().getFirst().evaluators().stream().map(e -> e.name()).toList());
        assertThat(fromYaml.cases().getFirst().tags()).isEqualTo(fromJsonl.cases().getFirst().tags());
    }
}
