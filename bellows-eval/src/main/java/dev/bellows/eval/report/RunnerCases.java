package dev.bellows.eval.report;

import dev.bellows.eval.Comparison;
import dev.bellows.eval.Comparison.CaseComparison;
import dev.bellows.eval.report.Report.CaseResult;
import dev.bellows.eval.report.Report.Change;
import dev.bellows.eval.report.Report.RunResult;
import dev.bellows.eval.report.Report.Score;
import dev.bellows.eval.report.Report.Side;
import dev.bellows.json.internal.FrozenJson;
import dev.bellows.secret.Secrets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * The runner's records as the page and {@code junit.xml} read a report: the same values
 * {@link ReportReader} would read from the case's {@code report.json} entry (every text redacted,
 * a field the entry leaves out null), made directly, without that entry's tree.
 */
final class RunnerCases {

    private RunnerCases() {
    }

    static CaseResult caseResult(dev.bellows.eval.CaseResult result) {
        List<RunResult> runs = new ArrayList<>(result.runs().size());
        for (dev.bellows.eval.RunResult run : result.runs()) {
            List<Score> scores = new ArrayList<>(run.scores().size());
            for (dev.bellows.eval.Score score : run.scores()) {
                scores.add(new Score(Secrets.redact(score.evaluator()), score.passed(), score.score(),
                        Secrets.redact(score.reason())));
            }
            runs.add(new RunResult(run.index(), run.passed(), Secrets.redact(run.answer()), List.copyOf(scores),
                    run.durationMs(), run.iterations(), run.tokens().map(tokens -> tokens.inputTokens()).orElse(null),
                    run.tokens().map(tokens -> tokens.outputTokens()).orElse(null),
                    run.error().map(Secrets::redact).orElse(null), run.events().isEmpty() ? null : Secrets.redact(run.events()),
                    run.cost().orElse(null)));
        }
        List<String> tags = new ArrayList<>(result.tags().size());
        for (String tag : result.tags()) {
            tags.add(Secrets.redact(tag));
        }
        return new CaseResult(Secrets.redact(result.id()), redacted(result.input()), List.copyOf(tags), result.repeat(),
                result.passed(), result.passRate(), result.requiredPassRate(), result.passAtK(), result.passHatK(),
                List.copyOf(runs));
    }

    static Change change(CaseComparison change) {
        List<String> why = new ArrayList<>(change.why().size());
        for (String reason : change.why()) {
            why.add(Secrets.redact(reason));
        }
        return new Change(Secrets.redact(change.id()), side(change.before()), side(change.after()), change.regressed(),
                List.copyOf(why));
    }

    private static Side side(Optional<Comparison.Side> side) {
        if (side.isEmpty()) {
            return null;
        }
        Map<String, Double> scores = new LinkedHashMap<>(side.get().scores());     // the entry's keys, in order
        return new Side(side.get().passed(), side.get().passRate(), scores);
    }

    /** {@code node} with its texts redacted: itself when none holds a secret (no copy), else a frozen copy. */
    static JsonNode redacted(JsonNode node) {
        if (node.isString()) {
            String text = node.asString();
            String redacted = Secrets.redact(text);
            return redacted.equals(text) ? node : JsonNodeFactory.instance.stringNode(redacted);
        }
        if (!node.isContainer() || !holdsSecret(node)) {
            return node;
        }
        if (node.isObject()) {
            ObjectNode copy = JsonNodeFactory.instance.objectNode();
            for (Map.Entry<String, JsonNode> field : node.properties()) {
                copy.set(field.getKey(), redacted(field.getValue()));
            }
            return FrozenJson.freeze(copy);
        }
        ArrayNode copy = JsonNodeFactory.instance.arrayNode(node.size());
        for (JsonNode item : node) {
            copy.add(redacted(item));
        }
        return FrozenJson.freeze(copy);
    }

    private static boolean holdsSecret(JsonNode node) {
        if (node.isString()) {
            return Secrets.appearIn(node.asString());
        }
        for (JsonNode child : node.values()) {
            if (holdsSecret(child)) {
                return true;
            }
        }
        return false;
    }
}
