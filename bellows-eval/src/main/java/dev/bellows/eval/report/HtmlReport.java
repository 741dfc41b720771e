package dev.bellows.eval.report;

import tools.jackson.databind.JsonNode;
import dev.bellows.eval.report.Report.CaseResult;
import dev.bellows.eval.report.Report.Change;
import dev.bellows.eval.report.Report.RunResult;
import dev.bellows.eval.report.Report.Score;
import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * A report as one self-contained HTML page: summary, the chart of scores against the baseline
 * (when the report has a comparison), the table of cases with each failed case's reasons, and
 * every case's runs with their scores and transcripts. A run's transcript is its events, the
 * lines of the events file as they are (a tool call's deltas left out), written into the page
 * as data and drawn by the page's script when the run is opened: the page is made without
 * reading the events a second time or turning them into HTML, and stands alone. No external
 * link, font or script: the style and the little script (filters, expand all, transcripts) are
 * inline, and the page's Content-Security-Policy allows that one script by its hash and nothing
 * else, so text from a report could not run even if it escaped its escaping. A page of many runs is made on a few threads of its own
 * (its table and its parts side by side, written in order), which end with the page.
 */
final class HtmlReport {

    private static final String CSS = resource("report.css");
    private static final String SCRIPT = resource("report.js");
    private static final String CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; script-src 'sha256-"
            + sha256(SCRIPT) + "'";

    /** The most of one text (an answer, a tool's result) written into the page. */
    static final int TEXT_LIMIT = 20_000;
    private static final int FLUSH_AT = 64 * 1024;
    /** About how many runs one part of the page holds, when the parts are written on several threads. */
    static final int RUNS_PER_PART = 64;
    private static final int MAX_THREADS = 8;

    private final Report report;
    private final Transcripts transcripts;
    private final Writer out;
    private final Html html;
    private final Map<String, Change> changes;

    /** Where a run's events come from: the runner's block, read now, or read ahead. */
    private interface Transcripts {
        EventSource.Block of(RunResult run);
    }

    private HtmlReport(Report report, Map<String, Change> changes, Transcripts transcripts, Writer out) {
        this(report, changes, transcripts, out, new Html());
    }

    private HtmlReport(Report report, Map<String, Change> changes, Transcripts transcripts, Writer out, Html html) {
        this.html = html;
        this.report = report;
        this.changes = changes;
        this.transcripts = transcripts;
        this.out = out;
    }

    static void write(Report report, Path reportDir, Writer out) throws IOException {
        // a thread a processor, a few at most: each holds a part's events and HTML in memory
        write(report, reportDir, out, Math.min(MAX_THREADS, Runtime.getRuntime().availableProcessors()));
    }

    /**
     * Writes the page; with {@code threads} above 1 and more than one part's worth of runs, the
     * table and the runs' parts are made on that many threads of the page's own, side by side,
     * and written in order: the same page, sooner. The events file is still read once, forward,
     * by the calling thread, a part's lines ahead of its making.
     */
    static void write(Report report, Path reportDir, Writer out, int threads) throws IOException {
        Map<String, Change> changes = new HashMap<>();
        if (report.comparison() != null) {
            report.comparison().cases().forEach(change -> changes.put(change.id(), change));
        }
        try (EventSource events = new EventSource(reportDir)) {     // one reader, forward through the file, for every run
            HtmlReport page = new HtmlReport(report, changes, run -> events.block(run.events()), out);
            long runs = report.cases().stream().mapToLong(c -> c.runs().size()).sum();
            if (threads <= 1 || runs <= RUNS_PER_PART) {
                page.page(null);
            } else {
                page.page(new Parts(report, changes, events, threads, out));
            }
        }
    }

    /**
     * The page's start, up to its first table row, once every case is written ({@link ReportFiles}):
     * {@code report} holds the report's figures but no cases, {@code totals} counted case by case.
     */
    static String start(Report report, Totals totals) {
        Map<String, Change> changes = new HashMap<>();
        if (report.comparison() != null) {
            report.comparison().cases().forEach(change -> changes.put(change.id(), change));
        }
        HtmlReport page = new HtmlReport(report, changes, run -> null, null);
        page.head(totals);
        page.tableHead(totals);
        return page.html.take();
    }

    /** Case {@code index}'s row of the table; {@code change} its comparison with the baseline, or null. */
    static String row(CaseResult result, Change change, int index) {
        Html html = new Html();
        row(result, change, index, html);
        return html.take();
    }

    /** {@link #row(CaseResult, Change, int)} appended to {@code html} (a builder used for every case: no copy of its text). */
    static void row(CaseResult result, Change change, int index, Html html) {
        new HtmlReport(null, change == null ? Map.of() : Map.of(result.id(), change), run -> null, null, html).row(result, index);
    }

    /**
     * Case {@code index}'s runs and their transcripts, each run's events from {@code texts} (its
     * block's text, by the run's place; see {@link ReportFiles#add}) or else read through
     * {@code events}.
     */
    static String details(CaseResult result, Change change, int index, EventSource events, List<String> texts) {
        Html html = new Html();
        details(result, change, index, events, texts, html);
        return html.take();
    }

    /** {@link #details(CaseResult, Change, int, EventSource, List)} appended to {@code html}. */
    static void details(CaseResult result, Change change, int index, EventSource events, List<String> texts, Html html) {
        List<RunResult> runs = result.runs();
        HtmlReport part = new HtmlReport(null, change == null ? Map.of() : Map.of(result.id(), change), run -> {
            int at = -1;
            for (int i = 0; texts != null && i < runs.size() && at < 0; i++) {
                at = runs.get(i) == run ? i : -1;      // by identity: two runs may be equal records
            }
            EventSource.Block given = at < 0 || at >= texts.size() ? null : EventSource.given(run.events(), texts.get(at));
            return given == null ? events.block(run.events()) : given;
        }, null, html);
        part.caseDetails(result, index);
    }

    /** With {@code parts}, the table and the runs are made by its threads; without, here. */
    private void page(Parts parts) throws IOException {
        Totals totals = new Totals();
        report.cases().forEach(result -> totals.add(result, regressed(result)));
        head(totals);
        if (parts == null) {
            table(totals);
            flush();
        } else {
            flush();
            parts.table(totals);
        }
        if (parts == null) {
            html.raw(RUNS_HEADER);
            for (int i = 0; i < report.cases().size(); i++) {
                caseDetails(report.cases().get(i), i);
                if (html.length() > FLUSH_AT) {
                    flush();
                }
            }
        } else {
            try (parts) {
                parts.text(RUNS_HEADER);
                parts.cases();
                parts.drain();
            }
        }
        html.raw(FOOTER);
        flush();
        out.flush();
    }

    /** What the runs section starts with. */
    static final String RUNS_HEADER = "<section class=\"panel\" id=\"runs\">\n<div class=\"bar\"><h2>Runs and transcripts</h2><div class=\"buttons\">"
            + "<button type=\"button\" data-runs=\"open\">Expand all</button>"
            + "<button type=\"button\" data-runs=\"close\">Collapse all</button></div></div>\n";
    /** What the page ends with, after the runs. */
    static final String FOOTER = "</section>\n<footer>Written by <b>bellows eval</b>. This page is self-contained: it loads nothing.</footer>\n"
            + "</main>\n<script>" + SCRIPT + "</script>\n</body>\n</html>\n";
    /** What ends the table of cases. */
    static final String TABLE_END = "</tbody>\n</table></div>\n</section>\n";

    /**
     * The figures of the page that add up every case (the cards, the table's filters), counted
     * case by case: on the whole report at once, or as each case is written while the runs go.
     */
    static final class Totals {
        int cases;
        int failed;
        int regressed;
        long runs;
        long tokens;
        boolean costKnown = true;
        final java.util.DoubleSummaryStatistics cost = new java.util.DoubleSummaryStatistics();     // the sum a DoubleStream would make

        void add(CaseResult result, boolean wasRegressed) {
            cases++;
            failed += result.passed() ? 0 : 1;
            regressed += wasRegressed ? 1 : 0;
            for (RunResult r : result.runs()) {
                runs++;
                tokens += (r.inputTokens() == null ? 0 : r.inputTokens()) + (r.outputTokens() == null ? 0 : r.outputTokens());
                if (r.cost() == null) {
                    costKnown = false;
                } else {
                    cost.accept(r.cost());
                }
            }
        }
    }

    /** The page's start, up to the table of cases: the head, the header, the cards and the chart. */
    private void head(Totals totals) {
        String dataset = report.dataset() == null ? "Evaluation" : report.dataset();
        html.raw("<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n")
                .raw("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n")
                .raw("<meta http-equiv=\"Content-Security-Policy\" content=\"").raw(CSP).raw("\">\n")
                .raw("<meta name=\"referrer\" content=\"no-referrer\">\n")
                .raw("<title>").text(dataset + ": " + report.summary().passed() + " of " + report.summary().cases() + " passed")
                .raw("</title>\n<style>\n").raw(CSS).raw("</style>\n</head>\n<body>\n<main>\n");
        header(dataset);
        cards(totals);
        if (report.comparison() != null) {
            html.raw("<section class=\"panel chart\" id=\"chart\">\n<h2>Scores against the baseline</h2>\n");
            ScoreChart.write(report.comparison(), html);
            html.raw("</section>\n");
        }
    }

    /**
     * The page's parts made on threads of its own: the table, then the cases a part at a time
     * (about {@link HtmlReport#RUNS_PER_PART} runs each), each part's events read ahead by the page's
     * thread (in the file's order, as a page made on one thread reads them) and its HTML made
     * by a worker; the parts are written in order, at most a few ahead of the writing held in
     * memory. Not thread-safe: the page's thread's.
     */
    private static final class Parts implements AutoCloseable {
        private final Report report;
        private final Map<String, Change> changes;
        private final EventSource events;
        private final int ahead;
        private final ExecutorService workers;
        private final ArrayDeque<Future<String>> pending = new ArrayDeque<>();
        private final Writer out;

        Parts(Report report, Map<String, Change> changes, EventSource events, int threads, Writer out) {
            this.report = report;
            this.out = out;
            this.changes = changes;
            this.events = events;
            this.ahead = 2 * threads;
            this.workers = Executors.newFixedThreadPool(threads, Thread.ofPlatform().daemon().name("eval-page-", 0).factory());
        }

        void table(Totals totals) {
            pending.add(workers.submit(() -> {
                HtmlReport part = new HtmlReport(report, changes, run -> null, null);
                part.table(totals);
                return part.html.take();
            }));
        }

        void text(String text) {
            pending.add(java.util.concurrent.CompletableFuture.completedFuture(text));
        }

        /** Every case, a part at a time, written as the parts before it are done. */
        void cases() throws IOException {
            List<CaseResult> cases = report.cases();
            for (int from = 0; from < cases.size(); ) {
                Map<RunResult, EventSource.Block> blocks = new IdentityHashMap<>();
                int to = from;
                for (int runs = 0; to < cases.size() && runs < RUNS_PER_PART; to++) {
                    for (RunResult run : cases.get(to).runs()) {
                        if (run.events() != null) {
                            blocks.put(run, events.block(run.events()));
                        }
                    }
                    runs += cases.get(to).runs().size();
                }
                int first = from;
                int end = to;
                pending.add(workers.submit(() -> {
                    HtmlReport part = new HtmlReport(report, changes, blocks::get, null);
                    for (int i = first; i < end; i++) {
                        part.caseDetails(cases.get(i), i);
                    }
                    return part.html.take();
                }));
                while (pending.size() > ahead) {
                    write(pending.poll());
                }
                from = to;
            }
        }

        void drain() throws IOException {
            while (!pending.isEmpty()) {
                write(pending.poll());
            }
        }

        private void write(Future<String> part) throws IOException {
            try {
                out.write(part.get());
            } catch (ExecutionException e) {
                switch (e.getCause()) {
                    case RuntimeException runtime -> throw runtime;
                    case Error error -> throw error;
                    default -> throw new IllegalStateException(e.getCause());
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new InterruptedIOException("interrupted while the page was written");
            }
        }

        @Override
        public void close() {
            workers.shutdownNow();
        }
    }

    private void header(String dataset) {
        boolean ok = report.comparison() != null ? !report.comparison().regressed() : report.summary().failed() == 0;
        String verdict = report.comparison() != null ? (ok ? "No regression" : "Regressed") : (ok ? "Passed" : "Failed");
        html.raw("<header>\n<div class=\"head\"><span class=\"verdict ").raw(ok ? "ok" : "bad").raw("\">").text(verdict)
                .raw("</span><h1>").text(dataset).raw("</h1></div>\n<p class=\"meta\">");
        List<String> parts = new ArrayList<>();
        Html part = new Html();
        if (report.agent() != null) {
            parts.add(part.raw("agent <b>").text(report.agent()).raw("</b>").take());
        }
        if (report.model() != null) {
            parts.add(part.raw("model <b>").text(report.model()).raw("</b>").take());
        }
        if (report.started() != null) {
            parts.add(part.raw("started ").text(started(report.started())).take());
        }
        if (report.durationMs() != null) {
            parts.add(part.raw("took ").text(duration(report.durationMs())).take());
        }
        if (report.comparison() != null) {
            parts.add(part.raw("baseline <b>").text(String.valueOf(report.comparison().baseline())).raw("</b> (margin ")
                    .text(decimal(report.comparison().margin())).raw(")").take());
        }
        html.raw(String.join(" \u00b7 ", parts)).raw("</p>\n</header>\n");
    }

    private void cards(Totals totals) {
        Report.Summary summary = report.summary();
        long runs = totals.runs;
        long tokens = totals.tokens;
        html.raw("<section class=\"cards\">\n");
        card("", String.valueOf(summary.cases()), "cases", null);
        card("ok", String.valueOf(summary.passed()), "passed", null);
        card(summary.failed() > 0 ? "bad" : "", String.valueOf(summary.failed()), "failed", null);
        card("", percent(summary.passRate()), "pass rate", summary.passRate());
        if (report.comparison() != null) {
            long regressed = report.comparison().cases().stream().filter(Change::regressed).count();
            card(regressed > 0 ? "bad" : "ok", String.valueOf(regressed), "regressed", null);
        }
        card("", Figures.grouped(runs), tokens > 0 ? "runs \u00b7 " + Figures.grouped(tokens) + " tokens" : "runs", null);
        if (runs > 0 && totals.costKnown) {
            card("", cost(totals.cost.getSum()), "cost", null);
        }
        html.raw("</section>\n");
    }

    private void card(String kind, String number, String label, Double meter) {
        html.raw("<div class=\"card ").raw(kind).raw("\"><div class=\"num\">").text(number).raw("</div><div class=\"lbl\">")
                .text(label).raw("</div>");
        if (meter != null) {
            html.raw("<div class=\"meter\"><span style=\"width:").raw(width(meter)).raw("\"></span></div>");
        }
        html.raw("</div>\n");
    }

    private void table(Totals totals) {
        tableHead(totals);
        for (int i = 0; i < report.cases().size(); i++) {
            row(report.cases().get(i), i);
        }
        html.raw(TABLE_END);
    }

    /** The table of cases up to its first row. */
    private void tableHead(Totals totals) {
        long failed = totals.failed;
        long regressed = totals.regressed;
        html.raw("<section class=\"panel\" id=\"cases\">\n<div class=\"bar\"><h2>Cases</h2><div class=\"buttons\" role=\"group\">")
                .raw("<button type=\"button\" data-filter=\"all\" aria-pressed=\"true\">All ").text(String.valueOf(totals.cases))
                .raw("</button><button type=\"button\" data-filter=\"failed\" aria-pressed=\"false\">Failed ").text(String.valueOf(failed))
                .raw("</button>");
        if (report.comparison() != null) {
            html.raw("<button type=\"button\" data-filter=\"regressed\" aria-pressed=\"false\">Regressed ").text(String.valueOf(regressed))
                    .raw("</button>");
        }
        html.raw("</div></div>\n<div class=\"wide\"><table class=\"cases\">\n<thead><tr><th>Status</th><th>Case</th><th>Pass rate</th>")
                .raw("<th class=\"num\" title=\"the chance that at least one of k runs passes\">pass@k</th>")
                .raw("<th class=\"num\" title=\"the chance that all k runs pass\">pass^k</th><th>Scores (mean)</th>")
                .raw("<th class=\"num\">Time</th></tr></thead>\n<tbody>\n");
    }

    private void row(CaseResult result, int index) {
        boolean regressed = regressed(result);
        html.raw("<tr class=\"case-row").raw(result.passed() ? "" : " failed").raw("\" data-case").raw(flags(result))
                .raw("><td>").raw(pill(result.passed(), result.passed() ? "pass" : "fail")).raw("</td>\n<td><a class=\"case-link\" href=\"#case-")
                .raw(String.valueOf(index)).raw("\">").text(result.id()).raw("</a>");
        for (String tag : result.tags()) {
            html.raw("<span class=\"tag\">").text(tag).raw("</span>");
        }
        if (regressed) {
            html.raw("<span class=\"badge\">regressed</span>");
        }
        if (!result.passed()) {
            html.raw("\n<ul class=\"reasons\">");
            for (String reason : JunitXml.reasons(result)) {
                int colon = reason.indexOf(": ");
                html.raw("<li><b>").text(reason.substring(0, colon)).raw("</b>").text(reason.substring(colon)).raw("</li>");
            }
            html.raw("</ul>");
        }
        html.raw("</td>\n<td>");
        passRate(result);
        // the signs as entities, here and below: one character outside Latin-1 makes a row's text twice as wide to copy
        html.raw("</td>\n<td class=\"num\">").raw(result.passAtK() == null ? "&ndash;" : decimal(result.passAtK()))
                .raw("</td><td class=\"num\">").raw(result.passHatK() == null ? "&ndash;" : decimal(result.passHatK()))
                .raw("</td>\n<td><div class=\"chips\">");
        Change change = changes.get(result.id());
        means(result).forEach((evaluator, mean) -> {
            html.raw("<span class=\"chip").raw(mean.failed ? " bad" : "").raw("\" title=\"").text(evaluator + ": mean score "
                    + decimal(mean.mean()) + ", failed in " + mean.failures + " of " + mean.count + " runs").raw("\">")
                    .text(evaluator + " " + decimal(mean.mean()));
            Double before = change == null || change.before() == null ? null : change.before().scores().get(evaluator);
            if (before != null && Math.abs(mean.mean() - before) >= 0.005) {
                boolean down = mean.mean() < before;
                html.raw("<span class=\"delta ").raw(down ? "down" : "up").raw("\" title=\"baseline ").text(decimal(before)).raw("\">")
                        .raw(down ? "&#9660;" : "&#9650;").text(decimal(Math.abs(mean.mean() - before))).raw("</span>");
            }
            html.raw("</span>");
        });
        html.raw("</div></td>\n<td class=\"num\">").text(duration(result.durationMs())).raw("</td></tr>\n");
    }

    private void passRate(CaseResult result) {
        long passed = result.runs().stream().filter(RunResult::passed).count();
        double rate = result.passRate() != null ? result.passRate() : result.runs().isEmpty() ? 0 : (double) passed / result.runs().size();
        html.raw("<div class=\"rate\"><span class=\"rate-bar").raw(result.passed() ? "" : " bad").raw("\"><span class=\"fill\" style=\"width:")
                .raw(width(rate)).raw("\"></span>");
        if (result.requiredPassRate() != null) {
            html.raw("<span class=\"req\" style=\"left:").raw(width(result.requiredPassRate())).raw("\" title=\"required ")
                    .text(decimal(result.requiredPassRate())).raw("\"></span>");
        }
        html.raw("</span><span>").text(passed + "/" + result.runs().size());
        if (result.requiredPassRate() != null) {
            html.raw(" <span class=\"dim\">").raw(result.passed() ? "&ge; " : "&lt; ").text(decimal(result.requiredPassRate())).raw("</span>");
        }
        html.raw("</span></div>");
    }

    private void caseDetails(CaseResult result, int index) {
        html.raw("<details class=\"case").raw(result.passed() ? "" : " failed").raw("\" id=\"case-").raw(String.valueOf(index)).raw("\"")
                .raw(result.passed() ? "" : " open").raw(" data-case").raw(flags(result)).raw(">\n<summary>")
                .raw(pill(result.passed(), result.passed() ? "pass" : "fail")).raw("<span class=\"case-id\">").text(result.id())
                .raw("</span><span class=\"dim\">").text(result.runs().size() == 1 ? "1 run" : result.runs().size() + " runs").raw("</span>");
        if (regressed(result)) {
            html.raw("<span class=\"badge\">regressed</span>");
        }
        html.raw("</summary>\n<div class=\"case-body\">\n");
        if (result.input() != null) {
            html.raw("<span class=\"label\">Input</span>");
            input(result.input());
        }
        Change change = changes.get(result.id());
        if (change != null && !change.why().isEmpty()) {
            html.raw("<span class=\"label\">Against the baseline</span><ul class=\"why\">");
            change.why().forEach(why -> html.raw("<li>").text(why).raw("</li>"));
            html.raw("</ul>\n");
        }
        html.raw("<span class=\"label\">Runs</span>\n");
        for (RunResult run : result.runs()) {
            run(run, !result.passed() && !run.passed());     // a failed case's failed runs open: what a person came to see
        }
        html.raw("</div>\n</details>\n");
    }

    private void input(JsonNode input) {
        html.raw("<div class=\"input\">");
        if (input.isArray()) {
            for (JsonNode message : input) {
                html.raw("<div><span class=\"role\">").text(message.path("role").asString("?")).raw("</span>")
                        .text(message.path("content").isString() ? message.path("content").asString() : message.path("content").toString(),
                                TEXT_LIMIT).raw("</div>");
            }
        } else {
            html.text(input.isString() ? input.asString() : input.toString(), TEXT_LIMIT);
        }
        html.raw("</div>\n");
    }

    private void run(RunResult run, boolean open) {
        List<String> facts = new ArrayList<>();
        if (run.durationMs() != null) {
            facts.add(duration(run.durationMs()));
        }
        if (run.iterations() != null) {
            facts.add(run.iterations() == 1 ? "1 iteration" : run.iterations() + " iterations");
        }
        if (run.inputTokens() != null || run.outputTokens() != null) {
            facts.add(Figures.grouped(run.inputTokens() == null ? 0 : run.inputTokens()) + " tokens in, "
                    + Figures.grouped(run.outputTokens() == null ? 0 : run.outputTokens()) + " out");
        }
        if (run.cost() != null) {
            facts.add("cost " + cost(run.cost()));
        }
        String preview = run.error() != null ? "error: " + run.error()
                : run.answer() == null || run.answer().isBlank() ? "(no answer)" : run.answer();
        html.raw(open ? "<details class=\"run\" open>\n<summary>" : "<details class=\"run\">\n<summary>").raw(pill(run.passed(), "run " + run.index()))
                .raw("<span class=\"answer-preview\">").text(preview.length() > 200 ? preview.substring(0, 200) : preview)
                .raw("</span><span class=\"dim\">");
        for (int i = 0; i < facts.size(); i++) {
            // the sign as an entity: a character outside ASCII sends the rest of the page's 8 KiB to the encoder's slow loop
            html.raw(i == 0 ? "" : " &middot; ").text(facts.get(i));
        }
        html.raw("</span></summary>\n<div class=\"run-body\">\n");
        if (!run.scores().isEmpty()) {
            html.raw("<div class=\"wide\"><table class=\"scores\"><thead><tr><th>Evaluator</th><th class=\"num\">Score</th><th>Result</th><th>Reason</th></tr></thead><tbody>");
            for (Score score : run.scores()) {
                html.raw("<tr").raw(score.passed() ? "" : " class=\"bad\"").raw("><td>").text(score.evaluator()).raw("</td><td class=\"num\">")
                        .raw(score.score() == null ? "&ndash;" : decimal(score.score())).raw("</td><td>").raw(pill(score.passed(),
                                score.passed() ? "pass" : "fail")).raw("</td><td class=\"reason\">").text(score.reason() == null ? "" : score.reason(), TEXT_LIMIT)
                        .raw("</td></tr>");
            }
            html.raw("</tbody></table></div>\n");
        }
        if (run.error() != null) {
            html.raw("<div class=\"error\"><b>The run failed:</b> ").text(run.error(), TEXT_LIMIT).raw("</div>\n");
        }
        html.raw("<span class=\"label\">Transcript</span>\n");
        if (run.events() == null) {
            html.raw("<div class=\"transcript\">\n<div class=\"t-problem\">no events file in the report</div>\n");
        } else {
            transcript(transcripts.of(run), run.passed());
        }
        if (run.answer() != null && !run.answer().isEmpty()) {
            // the report's answer, for a page read without its script and for a run whose events have no end (the script drops it otherwise)
            html.raw(run.passed() ? "<div class=\"t-end t-report\">" : "<div class=\"t-end plain t-report\">").raw("<span class=\"label\">Answer</span>").text(run.answer(), TEXT_LIMIT).raw("</div>\n");
        }
        html.raw("</div>\n</div>\n</details>\n");
    }

    /**
     * The deltas of a tool call (most of a run's bytes: the model's call as it streamed), which the
     * call's end and result repeat whole, and sections: lines the transcript never shows, known by
     * their first characters ({@code type} comes first in the events' written form), left out of
     * the page (an empty line each, so that every line keeps its number). A line written another
     * way stays; the page's script ignores it.
     */
    private static final Html.LineStarts REPEATED = new Html.LineStarts(List.of("{\"type\":\"tool_call_content\"",
            "{\"type\":\"tool_call_argument\"", "{\"type\":\"tool_call_start\"", "{\"type\":\"tool_call_name\"", "{\"type\":\"section\""));

    /**
     * A run's transcript as its events, the lines as the events file holds them, in a data block
     * the page's script draws when the run is opened (the tool calls with their arguments and
     * results, the text, the answer): the events are not read twice, nor turned into HTML for
     * runs nobody opens. What could not be read is said below them.
     */
    private void transcript(EventSource.Block events, boolean passed) {
        html.raw("<div class=\"transcript\" data-events=\"").text(events.file()).raw("\" data-line=\"").raw(String.valueOf(events.from()))
                .raw(passed ? "\" data-passed=\"true\">\n" : "\" data-passed=\"false\">\n");
        if (!events.text().isEmpty()) {
            html.raw("<script type=\"application/json\" class=\"t-events\">").json(events.text(), REPEATED).raw("</script>\n");
        }
        if (events.problem() != null) {
            html.raw("<div class=\"t-problem\">").text(events.problem()).raw("</div>\n");
        }
    }

    private boolean regressed(CaseResult result) {
        Change change = changes.get(result.id());
        return change != null && change.regressed();
    }

    private String flags(CaseResult result) {
        return " data-failed=\"" + !result.passed() + "\" data-regressed=\"" + regressed(result) + "\"";
    }

    record Mean(double sum, int count, int failures, boolean failed) {
        double mean() {
            return count == 0 ? 0 : sum / count;
        }
    }

    /** Each evaluator's mean score over the case's runs (a score missing counts as 1 when it passed, else 0). */
    static Map<String, Mean> means(CaseResult result) {
        Map<String, Mean> means = new LinkedHashMap<>();
        for (RunResult run : result.runs()) {
            for (Score score : run.scores()) {
                double value = score.score() != null ? score.score() : score.passed() ? 1 : 0;
                means.merge(score.evaluator(), new Mean(value, 1, score.passed() ? 0 : 1, !score.passed()),
                        (a, b) -> new Mean(a.sum + b.sum, a.count + b.count, a.failures + b.failures, a.failed || b.failed));
            }
        }
        return means;
    }

    private void flush() throws IOException {
        out.write(html.take());
    }

    private static String pill(boolean ok, String text) {
        return "<span class=\"pill " + (ok ? "ok" : "bad") + "\">" + Html.escape(text) + "</span>";
    }

    /** A cost, in the prices' currency: a run of a cheap model costs a few millionths. */
    static String cost(double value) {
        return Figures.fixed(value, value >= 1 ? 2 : value >= 0.01 ? 4 : 6);
    }

    static String decimal(double value) {
        return Figures.fixed(value, 2);
    }

    private static String percent(double rate) {
        return Figures.fixed(rate * 100, 0) + "%";
    }

    /** A CSS width for a rate in 0..1, clamped: a report's number never writes more than a percentage. */
    static String width(double rate) {
        double clamped = Double.isNaN(rate) ? 0 : Math.max(0, Math.min(1, rate));
        return Figures.fixed(clamped * 100, 1) + "%";
    }

    static String duration(long millis) {
        if (millis < 1000) {
            return millis + " ms";
        }
        if (millis < 60_000) {
            return Figures.fixed(millis / 1000.0, 1) + " s";
        }
        return String.format(Locale.ROOT, "%d min %02d s", millis / 60_000, millis / 1000 % 60);
    }

    private static String started(String started) {
        try {
            return DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss 'UTC'", Locale.ROOT).format(Instant.parse(started).atOffset(ZoneOffset.UTC));
        } catch (DateTimeParseException e) {
            return started;
        }
    }

    private static String resource(String name) {
        try (InputStream in = HtmlReport.class.getResourceAsStream(name)) {
            if (in == null) {
                throw new IllegalStateException("bellows-eval is missing its resource " + name);
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String sha256(String text) {
        try {
            return Base64.getEncoder().encodeToString(MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is in every JDK", e);
        }
    }
}
