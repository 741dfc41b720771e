package dev.bellows.eval.report;

import dev.bellows.json.internal.Jackson;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;
import dev.bellows.eval.report.Report.CaseResult;
import dev.bellows.eval.report.Report.Change;
import dev.bellows.eval.report.Report.Comparison;
import dev.bellows.eval.report.Report.RunResult;
import dev.bellows.eval.report.Report.Score;
import dev.bellows.eval.report.Report.Side;
import dev.bellows.eval.report.Report.Summary;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

/**
 * Reads a report.json into a {@link Report}, checking the kind of every field it uses: a
 * required field missing or of the wrong kind fails with its path
 * ({@code report.json: cases[1].runs[0].passed: expected true or false, found "yes"}); fields
 * it does not know are ignored, so a newer runner's reports still open.
 */
final class ReportReader {

    static final ObjectMapper MAPPER = Jackson.JSON;

    private final String file;

    private ReportReader(String file) {
        this.file = file;
    }

    static JsonNode readTree(Path path) throws InvalidReportException {
        try {
            return MAPPER.readTree(Files.readString(path));
        } catch (NoSuchFileException e) {
            throw new InvalidReportException(path + ": no such file");
        } catch (JacksonException e) {
            throw new InvalidReportException(path + ": not JSON (" + e.getOriginalMessage() + " at line "
                    + e.getLocation().getLineNr() + ")", e);
        } catch (IOException e) {
            throw new InvalidReportException(path + ": cannot be read (" + e.getMessage() + ")", e);
        }
    }

    /** The report in {@code tree}; {@code file} names it in error messages. */
    static Report read(JsonNode tree, String file) throws InvalidReportException {
        return new ReportReader(file).report(tree);
    }

    private Report report(JsonNode tree) throws InvalidReportException {
        if (tree == null || !tree.isObject()) {
            throw new InvalidReportException(file + ": not a report (expected a JSON object)");
        }
        JsonNode summary = object(tree, "summary", "summary", true);
        List<CaseResult> cases = new ArrayList<>();
        JsonNode list = array(tree, "cases", "cases", true);
        for (int i = 0; i < list.size(); i++) {
            cases.add(caseResult(list.get(i), "cases[" + i + "]"));
        }
        JsonNode comparison = object(tree, "comparison", "comparison", false);
        return new Report(text(tree, "dataset", "dataset"), text(tree, "agent", "agent"), text(tree, "model", "model"),
                text(tree, "started", "started"), integer(tree, "duration_ms", "duration_ms"),
                new Summary(count(summary, "cases", "summary.cases"), count(summary, "passed", "summary.passed"),
                        count(summary, "failed", "summary.failed"), requiredNumber(summary, "pass_rate", "summary.pass_rate")),
                List.copyOf(cases), comparison == null ? null : comparison(comparison));
    }

    private CaseResult caseResult(JsonNode node, Object at) throws InvalidReportException {
        requireObject(node, at);
        List<RunResult> runs = new ArrayList<>();
        JsonNode list = array(node, "runs", new At(at, ".runs", -1), true);
        for (int i = 0; i < list.size(); i++) {
            runs.add(run(list.get(i), new At(at, ".runs", i), i));
        }
        List<String> tags = new ArrayList<>();
        JsonNode tagList = array(node, "tags", new At(at, ".tags", -1), false);
        if (tagList != null) {
            for (int i = 0; i < tagList.size(); i++) {
                tags.add(requiredText(tagList, i, new At(at, ".tags", i)));
            }
        }
        Long repeat = integer(node, "repeat", new At(at, ".repeat", -1));
        return new CaseResult(requiredText(node, "id", new At(at, ".id", -1)), node.get("input"), List.copyOf(tags),
                repeat == null ? null : repeat.intValue(), bool(node, "passed", new At(at, ".passed", -1)),
                number(node, "pass_rate", new At(at, ".pass_rate", -1)),
                number(node, "required_pass_rate", new At(at, ".required_pass_rate", -1)),
                number(node, "pass_at_k", new At(at, ".pass_at_k", -1)), number(node, "pass_hat_k", new At(at, ".pass_hat_k", -1)),
                List.copyOf(runs));
    }

    private RunResult run(JsonNode node, Object at, int position) throws InvalidReportException {
        requireObject(node, at);
        List<Score> scores = new ArrayList<>();
        JsonNode list = array(node, "scores", new At(at, ".scores", -1), false);
        if (list != null) {
            for (int i = 0; i < list.size(); i++) {
                JsonNode score = list.get(i);
                Object where = new At(at, ".scores", i);
                requireObject(score, where);
                scores.add(new Score(requiredText(score, "evaluator", new At(where, ".evaluator", -1)),
                        bool(score, "passed", new At(where, ".passed", -1)),
                        number(score, "score", new At(where, ".score", -1)), text(score, "reason", new At(where, ".reason", -1))));
            }
        }
        JsonNode tokens = object(node, "tokens", new At(at, ".tokens", -1), false);
        Long index = integer(node, "index", new At(at, ".index", -1));
        Long iterations = integer(node, "iterations", new At(at, ".iterations", -1));
        return new RunResult(index == null ? position + 1 : index.intValue(), bool(node, "passed", new At(at, ".passed", -1)),
                text(node, "answer", new At(at, ".answer", -1)), List.copyOf(scores),
                integer(node, "duration_ms", new At(at, ".duration_ms", -1)),
                iterations == null ? null : iterations.intValue(),
                tokens == null ? null : integer(tokens, "input", new At(at, ".tokens.input", -1)),
                tokens == null ? null : integer(tokens, "output", new At(at, ".tokens.output", -1)),
                text(node, "error", new At(at, ".error", -1)), text(node, "events", new At(at, ".events", -1)),
                number(node, "cost", new At(at, ".cost", -1)));
    }

    private Comparison comparison(JsonNode node) throws InvalidReportException {
        List<Change> changes = new ArrayList<>();
        JsonNode list = array(node, "cases", "comparison.cases", true);
        for (int i = 0; i < list.size(); i++) {
            changes.add(change(list.get(i), "comparison.cases[" + i + "]"));
        }
        Double margin = number(node, "margin", "comparison.margin");
        Boolean regressed = node.has("regressed") ? bool(node, "regressed", "comparison.regressed") : null;
        return new Comparison(text(node, "baseline", "comparison.baseline"), margin == null ? 0.05 : margin,
                regressed != null ? regressed : changes.stream().anyMatch(Change::regressed), List.copyOf(changes));
    }

    private Change change(JsonNode change, Object at) throws InvalidReportException {
        requireObject(change, at);
        List<String> why = new ArrayList<>();
        JsonNode reasons = array(change, "why", new At(at, ".why", -1), false);
        if (reasons != null) {
            for (int j = 0; j < reasons.size(); j++) {
                why.add(requiredText(reasons, j, new At(at, ".why", j)));
            }
        }
        return new Change(requiredText(change, "id", new At(at, ".id", -1)), side(change, "before", new At(at, ".before", -1)),
                side(change, "after", new At(at, ".after", -1)), bool(change, "regressed", new At(at, ".regressed", -1)),
                List.copyOf(why));
    }

    /** Case {@code index} of a report, {@code node} as its {@code cases} would hold it. */
    static CaseResult caseResult(JsonNode node, int index, String file) throws InvalidReportException {
        return new ReportReader(file).caseResult(node, "cases[" + index + "]");
    }

    /** Case {@code index}'s comparison, {@code node} as its {@code comparison.cases} would hold it. */
    static Change change(JsonNode node, int index, String file) throws InvalidReportException {
        return new ReportReader(file).change(node, "comparison.cases[" + index + "]");
    }

    private Side side(JsonNode parent, String name, Object at) throws InvalidReportException {
        JsonNode node = object(parent, name, at, false);
        if (node == null) {
            return null;        // a case new in this report, or gone from it
        }
        Map<String, Double> scores = new LinkedHashMap<>();
        JsonNode means = object(node, "scores", new At(at, ".scores", -1), false);
        if (means != null) {
            for (Map.Entry<String, JsonNode> entry : means.properties()) {
                scores.put(entry.getKey(), number(means, entry.getKey(), at + ".scores." + entry.getKey()));
            }
        }
        return new Side(node.has("passed") && !node.get("passed").isNull() ? bool(node, "passed", new At(at, ".passed", -1)) : null,
                number(node, "pass_rate", new At(at, ".pass_rate", -1)), scores);
    }

    private void requireObject(JsonNode node, Object at) throws InvalidReportException {
        if (!node.isObject()) {
            throw wrong(at, "an object", node);
        }
    }

    private JsonNode object(JsonNode parent, String name, Object at, boolean required) throws InvalidReportException {
        return field(parent, name, at, required, JsonNode::isObject, "an object");
    }

    private JsonNode array(JsonNode parent, String name, Object at, boolean required) throws InvalidReportException {
        return field(parent, name, at, required, JsonNode::isArray, "an array");
    }

    private String text(JsonNode parent, String name, Object at) throws InvalidReportException {
        JsonNode node = field(parent, name, at, false, JsonNode::isString, "a string");
        return node == null ? null : node.asString();
    }

    private String requiredText(JsonNode parent, String name, Object at) throws InvalidReportException {
        return field(parent, name, at, true, JsonNode::isString, "a string").asString();
    }

    private String requiredText(JsonNode array, int index, Object at) throws InvalidReportException {
        JsonNode node = array.get(index);
        if (!node.isString()) {
            throw wrong(at, "a string", node);
        }
        return node.asString();
    }

    private boolean bool(JsonNode parent, String name, Object at) throws InvalidReportException {
        return field(parent, name, at, true, JsonNode::isBoolean, "true or false").booleanValue();
    }

    private Double number(JsonNode parent, String name, Object at) throws InvalidReportException {
        JsonNode node = field(parent, name, at, false, JsonNode::isNumber, "a number");
        return node == null ? null : node.doubleValue();
    }

    private double requiredNumber(JsonNode parent, String name, Object at) throws InvalidReportException {
        return field(parent, name, at, true, JsonNode::isNumber, "a number").doubleValue();
    }

    private Long integer(JsonNode parent, String name, Object at) throws InvalidReportException {
        JsonNode node = field(parent, name, at, false, ReportReader::wholeNumber, "a whole number of at least 0");
        return node == null ? null : node.longValue();
    }

    private static boolean wholeNumber(JsonNode node) {
        return node.isIntegralNumber() && node.canConvertToLong() && node.longValue() >= 0;
    }

    /** The field if it is of the kind asked; null when it is absent (or JSON null) and not required. */
    private JsonNode field(JsonNode parent, String name, Object at, boolean required, Predicate<JsonNode> kind, String expected)
            throws InvalidReportException {
        JsonNode node = present(parent, name, at, required);
        if (node != null && !kind.test(node)) {
            throw wrong(at, expected, node);
        }
        return node;
    }

    private int count(JsonNode parent, String name, Object at) throws InvalidReportException {
        present(parent, name, at, true);
        long value = integer(parent, name, at);
        if (value > Integer.MAX_VALUE) {
            throw wrong(at, "a count", parent.get(name));
        }
        return (int) value;
    }

    /** The field, or null when it is absent or JSON null and not required. */
    private JsonNode present(JsonNode parent, String name, Object at, boolean required) throws InvalidReportException {
        JsonNode node = parent.get(name);
        if (node == null || node.isNull()) {
            if (required) {
                throw new InvalidReportException(file + ": " + at + ": missing");
            }
            return null;
        }
        return node;
    }

    /**
     * Where a field is, for an error message: made into text only when one is thrown (a report's
     * every field is checked, and building each one's path up front cost more than the checks).
     */
    private record At(Object parent, String name, int index) {
        @Override
        public String toString() {
            return index < 0 ? parent + name : parent + name + "[" + index + "]";
        }
    }

    private InvalidReportException wrong(Object at, String expected, JsonNode found) {
        String shown = found.toString();
        if (shown.length() > 60) {
            shown = shown.substring(0, 57) + "...";
        }
        return new InvalidReportException(file + ": " + at + ": expected " + expected + ", found " + shown);
    }
}
