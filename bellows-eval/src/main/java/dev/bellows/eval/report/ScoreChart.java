package dev.bellows.eval.report;

import dev.bellows.eval.report.Report.Change;
import dev.bellows.eval.report.Report.Comparison;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * The chart of scores against the baseline, as inline SVG: one row per case and figure (its
 * pass rate, each evaluator's mean score), a hollow dot for the baseline and a filled one for
 * this report on a 0..1 axis, red where the figure fell by more than the margin. Regressed
 * cases come first, then the rows that changed most; past {@link #MAX_ROWS} rows the rest are
 * counted, not drawn, so a thousand-case report keeps a chart a person can read.
 */
final class ScoreChart {

    static final int MAX_ROWS = 48;
    private static final int WIDTH = 860;
    private static final int CASE_X = 0;
    private static final int EVALUATOR_X = 190;
    private static final int PLOT_LEFT = 340;
    private static final int PLOT_RIGHT = WIDTH - 20;
    private static final int TOP = 26;
    private static final int ROW = 24;

    record Row(String caseId, String figure, double before, double after, boolean regressedCase) {
        double change() {
            return after - before;
        }
    }

    private ScoreChart() {
    }

    static void write(Comparison comparison, Html html) {
        List<Row> rows = rows(comparison);
        if (rows.isEmpty()) {
            html.raw("<p class=\"dim\">No case has figures on both sides of the comparison.</p>\n");
            return;
        }
        List<Row> shown = rows.subList(0, Math.min(MAX_ROWS, rows.size()));
        html.raw("<div class=\"legend\"><span><i class=\"before\"></i>baseline</span><span><i class=\"after\"></i>this run</span>")
                .raw("<span><i class=\"fell\"></i>fell by more than the margin (").text(HtmlReport.decimal(comparison.margin()))
                .raw(")</span><span><i class=\"rose\"></i>rose</span></div>\n");
        int height = TOP + shown.size() * ROW + 8;
        html.raw("<div class=\"plot\"><svg viewBox=\"0 0 " + WIDTH + " " + height + "\" role=\"img\" aria-label=\"")
                .text("Scores of " + shown.size() + " figures against the baseline").raw("\">\n");
        for (int tick = 0; tick <= 4; tick++) {
            double x = x(tick / 4.0);
            html.raw(String.format(Locale.ROOT, "<line class=\"grid\" x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\"/>", x, TOP - 6, x, height - 4))
                    .raw(String.format(Locale.ROOT, "<text class=\"axis\" x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%s</text>\n", x, TOP - 10,
                            tick == 0 ? "0" : tick == 4 ? "1" : HtmlReport.decimal(tick / 4.0)));
        }
        String previousCase = null;
        boolean band = false;
        for (int i = 0; i < shown.size(); i++) {
            Row row = shown.get(i);
            int y = TOP + i * ROW + ROW / 2;
            boolean newCase = !row.caseId().equals(previousCase);
            if (newCase) {
                band = !band;
            }
            String kind = row.change() < -comparison.margin() ? "fell" : row.change() > 1e-9 ? "rose" : "same";
            html.raw("<g class=\"").raw(kind).raw("\"><title>").text(row.caseId() + " \u00b7 " + row.figure() + ": "
                    + HtmlReport.decimal(row.before()) + " \u2192 " + HtmlReport.decimal(row.after())).raw("</title>");
            if (band) {
                html.raw(String.format(Locale.ROOT, "<rect class=\"band\" x=\"0\" y=\"%d\" width=\"%d\" height=\"%d\" rx=\"4\"/>", y - ROW / 2,
                        WIDTH, ROW));
            }
            if (newCase) {
                html.raw(String.format(Locale.ROOT, "<text class=\"case\" x=\"%d\" y=\"%d\">", CASE_X + 6, y + 4))
                        .text(shorten(row.caseId(), 24)).raw("</text>");
            }
            html.raw(String.format(Locale.ROOT, "<text class=\"evaluator\" x=\"%d\" y=\"%d\">", EVALUATOR_X, y + 4)).text(shorten(row.figure(), 20))
                    .raw("</text>")
                    .raw(String.format(Locale.ROOT, "<line class=\"link\" x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\"/>", x(row.before()), y,
                            x(row.after()), y))
                    .raw(String.format(Locale.ROOT, "<circle class=\"before\" cx=\"%.1f\" cy=\"%d\" r=\"5.5\"/>", x(row.before()), y))
                    .raw(String.format(Locale.ROOT, "<circle class=\"after\" cx=\"%.1f\" cy=\"%d\" r=\"5\"/>", x(row.after()), y))
                    .raw("</g>\n");
            previousCase = row.caseId();
        }
        html.raw("</svg></div>\n");
        if (rows.size() > shown.size()) {
            html.raw("<p class=\"dim\">").text(String.format(Locale.ROOT, "%,d more figures, which changed less, are not drawn.",
                    rows.size() - shown.size())).raw("</p>\n");
        }
    }

    /** The rows: a case's figures together, regressed cases first, then the cases whose figures moved most. */
    static List<Row> rows(Comparison comparison) {
        List<List<Row>> groups = new ArrayList<>();
        for (Change change : comparison.cases()) {
            if (change.before() == null || change.after() == null) {
                continue;
            }
            List<Row> group = new ArrayList<>();
            if (change.before().passRate() != null && change.after().passRate() != null) {
                group.add(new Row(change.id(), "pass rate", change.before().passRate(), change.after().passRate(), change.regressed()));
            }
            Set<String> evaluators = new LinkedHashSet<>(change.before().scores().keySet());
            evaluators.retainAll(change.after().scores().keySet());
            for (String evaluator : evaluators) {
                Double before = change.before().scores().get(evaluator);
                Double after = change.after().scores().get(evaluator);
                if (before != null && after != null) {
                    group.add(new Row(change.id(), evaluator, before, after, change.regressed()));
                }
            }
            if (!group.isEmpty()) {
                groups.add(group);
            }
        }
        groups.sort(Comparator.<List<Row>, Boolean>comparing(group -> !group.get(0).regressedCase())
                .thenComparing(group -> -group.stream().mapToDouble(row -> Math.abs(row.change())).max().orElse(0)));
        return groups.stream().flatMap(List::stream).toList();
    }

    private static double x(double value) {
        double clamped = Double.isNaN(value) ? 0 : Math.max(0, Math.min(1, value));
        return PLOT_LEFT + clamped * (PLOT_RIGHT - PLOT_LEFT);
    }

    private static String shorten(String text, int max) {
        return text.length() <= max ? text : text.substring(0, max - 1) + "\u2026";
    }
}
