package dev.bellows.eval.report;

import dev.bellows.eval.report.Report.CaseResult;
import dev.bellows.eval.report.Report.RunResult;
import dev.bellows.eval.report.Report.Score;
import java.io.IOException;
import java.io.Writer;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * A report as JUnit XML, the form CI systems show (Ant's: {@code testsuites}, one
 * {@code testsuite} for the dataset, one {@code testcase} per case named by its id with the
 * dataset as class name). A failed case has one {@code failure}: its message says how many
 * runs passed of how many were required, its text gives each failing evaluator's reason per
 * run (a reason shared by several runs once, with their numbers) and each run's error.
 */
final class JunitXml {

    private static final java.time.format.DateTimeFormatter TIMESTAMP =
            java.time.format.DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss", Locale.ROOT);

    private JunitXml() {
    }

    static void write(Report report, Writer out) throws IOException {
        int failures = (int) report.cases().stream().filter(c -> !c.passed()).count();
        out.write(start(report, report.cases().size(), failures, report.cases().stream().mapToLong(CaseResult::durationMs).sum()));
        String suite = suite(report);
        for (CaseResult result : report.cases()) {
            out.write(testcase(result, suite));
        }
        out.write(END);
        out.flush();
    }

    /** What follows the last test case. */
    static final String END = "  </testsuite>\n</testsuites>\n";

    /** The suite's name, and each test case's class name: the dataset's. */
    static String suite(Report report) {
        return report.dataset() == null ? "bellows eval" : report.dataset();
    }

    /**
     * The file up to its first test case: the totals ({@code cases} test cases, {@code failures}
     * of them failed, the time: the report's, else {@code durationMs}, the cases' added up).
     */
    static String start(Report report, int cases, int failures, long durationMs) {
        String suite = suite(report);
        String time = seconds(report.durationMs() != null ? report.durationMs() : durationMs);
        StringBuilder out = new StringBuilder(512);
        out.append("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
        out.append("<testsuites name=\"bellows eval\" tests=\"" + cases + "\" failures=\"" + failures
                + "\" errors=\"0\" time=\"" + time + "\">\n");
        out.append("  <testsuite name=\"" + Xml.attribute(suite) + "\" tests=\"" + cases + "\" failures=\""
                + failures + "\" errors=\"0\" skipped=\"0\" time=\"" + time + "\"");
        if (report.started() != null) {
            out.append(" timestamp=\"" + Xml.attribute(timestamp(report.started())) + "\"");
        }
        out.append(">\n");
        Map<String, String> properties = new LinkedHashMap<>();
        properties.put("agent", report.agent());
        properties.put("model", report.model());
        properties.put("baseline", report.comparison() == null ? null : report.comparison().baseline());
        properties.values().removeIf(value -> value == null);
        if (!properties.isEmpty()) {
            out.append("    <properties>\n");
            for (Map.Entry<String, String> property : properties.entrySet()) {
                out.append("      <property name=\"" + property.getKey() + "\" value=\"" + Xml.attribute(property.getValue()) + "\"/>\n");
            }
            out.append("    </properties>\n");
        }
        return out.toString();
    }

    /** One case's {@code testcase}, its failure with the reasons when it failed. */
    static String testcase(CaseResult result, String suite) {
        String head = "    <testcase name=\"" + Xml.attribute(result.id()) + "\" classname=\"" + Xml.attribute(suite)
                + "\" time=\"" + seconds(result.durationMs()) + "\"";
        if (result.passed()) {
            return head + "/>\n";
        }
        return head + ">\n      <failure type=\"eval\" message=\"" + Xml.attribute(message(result)) + "\">"
                + Xml.text(String.join("\n", reasons(result))) + "</failure>\n    </testcase>\n";
    }

    /** {@code 1 of 2 runs passed (required pass rate 1.00)}. */
    static String message(CaseResult result) {
        long passed = result.runs().stream().filter(RunResult::passed).count();
        String message = passed + " of " + result.runs().size() + " runs passed";
        return result.requiredPassRate() == null ? message
                : message + " (required pass rate " + String.format(Locale.ROOT, "%.2f", result.requiredPassRate()) + ")";
    }

    /**
     * Each failing evaluator's reason and each run's error, one line each, the runs that share
     * one named together: {@code contains (runs 1, 3): the answer does not contain "Paris"}.
     */
    static List<String> reasons(CaseResult result) {
        Map<List<String>, List<Integer>> runsByReason = new LinkedHashMap<>();     // (label, text) -> run numbers
        for (RunResult run : result.runs()) {
            if (run.error() != null) {
                runsByReason.computeIfAbsent(List.of("error", run.error()), k -> new ArrayList<>()).add(run.index());
            }
            for (Score score : run.scores()) {
                if (!score.passed()) {
                    String reason = score.reason() == null || score.reason().isBlank() ? "failed" : score.reason();
                    runsByReason.computeIfAbsent(List.of(score.evaluator(), reason), k -> new ArrayList<>()).add(run.index());
                }
            }
        }
        List<String> lines = new ArrayList<>();
        runsByReason.forEach((reason, runs) -> lines.add(reason.get(0) + " (" + runs(runs) + "): " + reason.get(1)));
        if (lines.isEmpty()) {
            lines.add("no evaluator failed, but the pass rate is below the required one");
        }
        return lines;
    }

    /** {@code run 2}, {@code runs 1, 3}. */
    static String runs(List<Integer> numbers) {
        return numbers.size() == 1 ? "run " + numbers.get(0)
                : "runs " + String.join(", ", numbers.stream().map(String::valueOf).toList());
    }

    private static String seconds(long millis) {
        return Figures.fixed(millis / 1000.0, 3);
    }

    /** Ant writes the timestamp without a zone ({@code 2026-12-02T01:30:00}); some readers refuse one with a zone. */
    private static String timestamp(String started) {
        try {
            return TIMESTAMP.format(java.time.Instant.parse(started).atOffset(java.time.ZoneOffset.UTC));
        } catch (java.time.format.DateTimeParseException e) {
            return started;
        }
    }
}
