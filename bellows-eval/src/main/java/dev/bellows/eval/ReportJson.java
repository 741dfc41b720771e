package dev.bellows.eval;

import dev.bellows.json.internal.FrozenJson;
import tools.jackson.databind.ObjectWriter;
import dev.bellows.json.internal.Jackson;
import tools.jackson.core.JsonGenerator;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.SerializationFeature;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;
import dev.bellows.secret.Secrets;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * {@code report.json}: the report as JSON (docs/eval.md, "The report"). Every text in it is
 * passed through {@link Secrets#redact}: the tree {@link #toJson} makes, which every
 * {@link ReportWriter} renders, holds no secret Bellows knows of.
 */
public final class ReportJson {

    /** The file name in the output directory. */
    public static final String FILE = "report.json";

    /** Writes {@code report.json}. */
    public static final ReportWriter WRITER = new ReportWriter() {
        @Override
        public String fileName() {
            return FILE;
        }

        @Override
        public void write(JsonNode report, Path directory) throws IOException {
            Files.writeString(directory.resolve(FILE), text(report), StandardCharsets.UTF_8);
        }
    };

    private static final ObjectMapper MAPPER = Jackson.JSON;
    private static final ObjectWriter INDENTED = Jackson.JSON.writer(SerializationFeature.INDENT_OUTPUT);

    private ReportJson() {
    }

    /** The report's JSON, secrets redacted; frozen (read-only; {@link JsonNode#deepCopy()} to change a copy). */
    public static JsonNode toJson(EvalReport report) {
        ObjectNode json = tree(report);
        redact(json);
        return FrozenJson.freeze(json);
    }

    /** Every text value of the tree passed through {@link Secrets#redact}, in place. */
    private static void redact(JsonNode node) {
        if (node instanceof ObjectNode object) {
            for (var fields = object.properties().iterator(); fields.hasNext(); ) {
                var field = fields.next();
                if (field.getValue().isString()) {
                    String text = field.getValue().asString();
                    String redacted = Secrets.redact(text);
                    if (!redacted.equals(text)) {
                        field.setValue(object.stringNode(redacted));
                    }
                } else {
                    redact(field.getValue());
                }
            }
        } else if (node instanceof ArrayNode array) {
            for (int i = 0; i < array.size(); i++) {
                if (array.get(i).isString()) {
                    array.set(i, array.stringNode(Secrets.redact(array.get(i).asString())));
                } else {
                    redact(array.get(i));
                }
            }
        }
    }

    private static ObjectNode tree(EvalReport report) {
        ObjectNode json = head(report);
        ArrayNode cases = (ArrayNode) json.get("cases");
        for (CaseResult result : report.cases()) {
            cases.add(caseTree(result));
        }
        return json;
    }

    /**
     * The report's JSON but its cases ({@code "cases"} an empty array, where they go), secrets
     * redacted, frozen: what {@code ReportFiles.finish} takes once the cases are written.
     */
    static JsonNode headJson(EvalReport report) {
        ObjectNode json = head(report);
        redact(json);
        return FrozenJson.freeze(json);
    }

    /**
     * Writes a case as the report's {@code cases} holds it (the object {@link #toJson}'s tree has
     * there, secrets redacted) to {@code out}, without building its tree: for writers of a report
     * one case at a time ({@code dev.bellows.eval.report.ReportFiles}), which stand {@code out}
     * where the case goes. Not flushed.
     *
     * @throws tools.jackson.core.JacksonException when the generator cannot write
     */
    public static void writeCase(CaseResult result, JsonGenerator out) {
        out.writeStartObject();
        out.writeStringProperty("id", Secrets.redact(result.id()));
        out.writeBooleanProperty("passed", result.passed());
        out.writeName("input");
        if (result.input().isString()) {
            out.writeString(Secrets.redact(result.input().asString()));
        } else {
            JsonNode input = result.input().deepCopy();     // as the tree's: its texts redacted in a copy
            redact(input);
            out.writeTree(input);
        }
        out.writeName("tags");
        out.writeStartArray();
        for (String tag : result.tags()) {
            out.writeString(Secrets.redact(tag));
        }
        out.writeEndArray();
        out.writeNumberProperty("repeat", result.repeat());
        out.writeNumberProperty("pass_rate", result.passRate());
        out.writeNumberProperty("required_pass_rate", result.requiredPassRate());
        out.writeNumberProperty("pass_at_k", result.passAtK());
        out.writeNumberProperty("pass_hat_k", result.passHatK());
        out.writeName("runs");
        out.writeStartArray();
        for (RunResult run : result.runs()) {
            out.writeStartObject();
            out.writeNumberProperty("index", run.index());
            out.writeBooleanProperty("passed", run.passed());
            out.writeStringProperty("answer", Secrets.redact(run.answer()));
            if (run.error().isPresent()) {
                out.writeStringProperty("error", Secrets.redact(run.error().get()));
            }
            out.writeName("scores");
            out.writeStartArray();
            for (Score score : run.scores()) {
                out.writeStartObject();
                out.writeStringProperty("evaluator", Secrets.redact(score.evaluator()));
                out.writeBooleanProperty("passed", score.passed());
                out.writeNumberProperty("score", score.score());
                out.writeStringProperty("reason", Secrets.redact(score.reason()));
                out.writeEndObject();
            }
            out.writeEndArray();
            if (!run.events().isEmpty()) {
                out.writeStringProperty("events", Secrets.redact(run.events()));
            }
            out.writeNumberProperty("duration_ms", run.durationMs());
            out.writeNumberProperty("iterations", run.iterations());
            if (run.tokens().isPresent()) {
                out.writeName("tokens");
                out.writeStartObject();
                out.writeNumberProperty("input", run.tokens().get().inputTokens());
                out.writeNumberProperty("output", run.tokens().get().outputTokens());
                out.writeEndObject();
            }
            if (run.cost().isPresent()) {
                out.writeNumberProperty("cost", run.cost().get());
            }
            out.writeEndObject();
        }
        out.writeEndArray();
        out.writeEndObject();
    }

    /** The report without its cases: "cases" an empty array, in its place. */
    private static ObjectNode head(EvalReport report) {
        ObjectNode json = MAPPER.createObjectNode();
        json.put("dataset", report.dataset());
        json.put("agent", report.agent());
        json.put("model", report.model());
        json.put("started", report.started().toString());
        json.put("duration_ms", report.durationMs());
        EvalReport.Summary summary = report.summary();
        ObjectNode sums = json.putObject("summary").put("cases", summary.cases()).put("passed", summary.passed())
                .put("failed", summary.failed()).put("pass_rate", summary.passRate());
        // the evaluation's cost when every run's is known
        List<RunResult> all = report.cases().stream().flatMap(c -> c.runs().stream()).toList();
        if (!all.isEmpty() && all.stream().allMatch(run -> run.cost().isPresent())) {
            sums.put("cost", all.stream().mapToDouble(run -> run.cost().get()).sum());
        }
        json.putArray("cases");
        report.comparison().ifPresent(comparison -> json.set("comparison", toJson(comparison)));
        return json;
    }

    private static ObjectNode caseTree(CaseResult result) {
        ObjectNode c = MAPPER.createObjectNode();
        c.put("id", result.id());
        c.put("passed", result.passed());
        c.set("input", result.input().deepCopy());
        ArrayNode tags = c.putArray("tags");
        result.tags().forEach(tags::add);
        c.put("repeat", result.repeat());
        c.put("pass_rate", result.passRate());
        c.put("required_pass_rate", result.requiredPassRate());
        c.put("pass_at_k", result.passAtK());
        c.put("pass_hat_k", result.passHatK());
        ArrayNode runs = c.putArray("runs");
        for (RunResult run : result.runs()) {
            ObjectNode r = runs.addObject();
            r.put("index", run.index());
            r.put("passed", run.passed());
            r.put("answer", run.answer());
            run.error().ifPresent(error -> r.put("error", error));
            ArrayNode scores = r.putArray("scores");
            for (Score score : run.scores()) {
                scores.addObject().put("evaluator", score.evaluator()).put("passed", score.passed())
                        .put("score", score.score()).put("reason", score.reason());
            }
            if (!run.events().isEmpty()) {
                r.put("events", run.events());
            }
            r.put("duration_ms", run.durationMs());
            r.put("iterations", run.iterations());
            run.tokens().ifPresent(tokens -> r.putObject("tokens")
                    .put("input", tokens.inputTokens()).put("output", tokens.outputTokens()));
            run.cost().ifPresent(cost -> r.put("cost", cost));
        }
        return c;
    }

    private static ObjectNode toJson(Comparison comparison) {
        ObjectNode json = MAPPER.createObjectNode();
        json.put("baseline", comparison.baseline());
        json.put("margin", comparison.margin());
        json.put("regressed", comparison.regressed());
        ArrayNode cases = json.putArray("cases");
        for (Comparison.CaseComparison c : comparison.cases()) {
            cases.add(changeTree(c));
        }
        return json;
    }

    private static ObjectNode changeTree(Comparison.CaseComparison c) {
        ObjectNode item = MAPPER.createObjectNode();
        item.put("id", c.id());
        item.set("before", c.before().map(ReportJson::side).orElse(null));
        item.set("after", c.after().map(ReportJson::side).orElse(null));
        item.put("regressed", c.regressed());
        ArrayNode why = item.putArray("why");
        c.why().forEach(why::add);
        return item;
    }

    private static JsonNode side(Comparison.Side side) {
        ObjectNode json = MAPPER.createObjectNode();
        json.put("passed", side.passed());
        json.put("pass_rate", side.passRate());
        ObjectNode scores = json.putObject("scores");
        for (Map.Entry<String, Double> score : side.scores().entrySet()) {
            scores.put(score.getKey(), score.getValue());
        }
        return json;
    }

    /** The JSON as the file holds it: indented, secrets redacted, a final newline. */
    public static String text(JsonNode report) throws IOException {
        return Secrets.redact(INDENTED.writeValueAsString(report)) + "\n";
    }

    /**
     * Reads a report file back (a baseline).
     *
     * @throws IOException when it cannot be read or is not JSON
     */
    public static JsonNode read(Path file) throws IOException {
        return MAPPER.readTree(file.toFile());
    }
}
