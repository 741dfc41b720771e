package dev.bellows.eval.report;

import dev.bellows.eval.report.Report.CaseResult;
import dev.bellows.eval.report.Report.Change;
import dev.bellows.eval.Comparison;
import dev.bellows.eval.ReportJson;
import dev.bellows.eval.ReportSink;
import dev.bellows.json.internal.Jackson;
import dev.bellows.secret.Secrets;
import java.io.IOException;
import java.io.OutputStreamWriter;
import java.io.StringWriter;
import java.io.Writer;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import tools.jackson.core.JsonGenerator;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.SerializationFeature;

/**
 * {@code report.json}, {@code junit.xml} and {@code report.html} written while an evaluation
 * runs, the same files, byte for byte, as {@code ReportJson.WRITER} and {@link EvalReports}
 * write from the whole report once it is done. Each case's parts (its entry in
 * {@code report.json}, its test case, its row of the page's table and its runs with their
 * transcripts) are written as the case is given, in dataset order, to its parts: held in memory
 * while the four together hold less than 16 MiB (some 3,000 cases of a tool call and an answer),
 * then in hidden part files beside the report. What adds up every case (the totals, the pass
 * rate, the chart of scores against the baseline), which each file places first, is written by
 * {@link #finish}, which then writes each file from its start and its parts (from memory in one
 * gathering write; from a part file, a copy the kernel makes, the part never read back into
 * memory) and moves it into place. So once the last case is given, only that case's parts and
 * the files' starts remain to be made, and a report of any size holds at most 16 MiB of parts
 * in memory.
 * The cases are the runner's own records: this is the {@link ReportSink} an {@link
 * dev.bellows.eval.EvalRunner} writes the report files through ({@code reportFiles(ReportFiles::open)}),
 * and no case is built as a JSON tree and read back (its {@code report.json} entry is written by
 * {@link ReportJson#writeCase}).
 *
 * <pre>{@code
 * try (ReportFiles files = ReportFiles.open(directory, "evals/weather.jsonl")) {
 *     for (...) files.add(caseResult, Optional.empty(), null); // each case, in dataset order
 *     files.finish(reportJson);    // the report as report.json holds it, "cases" empty
 * }
 * }</pre>
 *
 * <p>The page's transcripts are made from the runs' events given with each case; those not given
 * are read from the events files the cases name, which must be on disk (flushed) then. Until {@link #finish},
 * none of the three files is touched; {@link #close} without it (a failed or cancelled
 * evaluation) deletes the parts and leaves the folder's report files as they were. {@link
 * #finish} joins the three at once (on threads of its own) and moves each into place when it is
 * whole: when one cannot be, it throws, and the others may be in place. Not thread-safe: one
 * thread gives the cases, then finishes or closes.
 */
public final class ReportFiles implements ReportSink {

    private static final String JSON = "report.json";
    /**
     * How much of the parts is held in memory, the four together, before each part that would
     * go past it goes to a hidden file: about 3,000 cases of a tool call and an answer each.
     */
    static final long MEMORY = 16L << 20;

    private final Path directory;
    private final String suite;
    private final List<Path> temporary = new ArrayList<>();
    private final Part json;
    private final Part xml;
    private final Part rows;
    private final Part runs;
    /**
     * The parts' texts, encoded into them by writers that keep their buffers (no copy of a case's
     * text as a string and again as bytes): flushed by {@link #finish}.
     */
    private final Writer jsonOut;
    private final Writer xmlOut;
    private final Writer rowsOut;
    private final Writer runsOut;
    private final StringWriter jsonText = new StringWriter(8192);
    private final JsonGenerator cases;
    private final EventSource events;
    private final HtmlReport.Totals totals = new HtmlReport.Totals();
    /** A window onto a case's text as it goes to its part (see {@link #write(Writer, String)}). */
    private final char[] chunk = new char[8192];
    /** The page's row and runs of each case in turn, written from here to their parts. */
    private final Html page = new Html();
    private long durationMs;
    private boolean finished;

    private ReportFiles(Path directory, String dataset, long memory) {
        this.directory = directory;
        this.suite = dataset == null ? "bellows eval" : dataset;
        Part.Budget budget = new Part.Budget(memory);
        this.json = new Part(budget, () -> part(JSON));
        this.xml = new Part(budget, () -> part(EvalReports.JUNIT_XML));
        this.rows = new Part(budget, () -> part(EvalReports.HTML + ".rows"));
        this.runs = new Part(budget, () -> part(EvalReports.HTML + ".runs"));
        this.jsonOut = new OutputStreamWriter(json, StandardCharsets.UTF_8);
        this.xmlOut = new OutputStreamWriter(xml, StandardCharsets.UTF_8);
        this.rowsOut = new OutputStreamWriter(rows, StandardCharsets.UTF_8);
        this.runsOut = new OutputStreamWriter(runs, StandardCharsets.UTF_8);
        // report.json's cases are written by a generator that stands where they stand in the whole
        // file (inside the top object's "cases" array), so each is indented as the whole file
        // indents it; what it writes before the first case is the start's, written by finish
        this.cases = Jackson.JSON.writer(SerializationFeature.INDENT_OUTPUT).createGenerator(jsonText);
        cases.writeStartObject();
        cases.writeName("cases");
        cases.writeStartArray();
        cases.flush();
        jsonText.getBuffer().setLength(0);
        this.events = new EventSource(directory);
    }

    /**
     * Starts the report files in {@code directory} (which exists).
     *
     * @param dataset the report's {@code dataset}, as {@code report.json} will hold it (the JUnit
     *                test cases' class name)
     * @throws IOException when the report files cannot be started
     */
    public static ReportFiles open(Path directory, String dataset) throws IOException {
        return open(directory, dataset, MEMORY);
    }

    /** As {@link #open(Path, String)}, the parts held in memory up to {@code memory} bytes together (tests: 0, every part in a file). */
    static ReportFiles open(Path directory, String dataset, long memory) {
        return new ReportFiles(directory, dataset, memory);
    }

    /**
     * Writes the next case's parts, from the runner's records (no JSON tree of the case is built).
     *
     * @param result the case (its texts are redacted as they are written)
     * @param change the case's comparison with the baseline; empty without one
     * @param events per run of the case, in its order, the lines its {@code events} reference
     *               names ({@code FILE#Lfirst-Llast}), as the events file holds them, each ended
     *               by a line break: the page's transcripts are made from these, not read back
     *               from the file; a run whose text is null, or whose reference is not such a
     *               block, is read from the file, which must then be on disk. Null: every run's
     *               read from the file
     * @throws IOException when a part cannot be written
     */
    @Override
    public void add(dev.bellows.eval.CaseResult result, Optional<Comparison.CaseComparison> change, List<String> events)
            throws IOException {
        if (finished) {
            throw new IllegalStateException("the report files are finished");
        }
        int index = totals.cases;
        CaseResult shown = RunnerCases.caseResult(result);
        Change compared = change.map(RunnerCases::change).orElse(null);
        ReportJson.writeCase(result, cases);
        cases.flush();
        write(jsonOut, Secrets.redact(jsonText.toString()));
        jsonText.getBuffer().setLength(0);
        write(xmlOut, JunitXml.testcase(shown, suite));
        HtmlReport.row(shown, compared, index, page);
        page.writeTo(rowsOut);
        HtmlReport.details(shown, compared, index, this.events, events, page);
        page.writeTo(runsOut);
        totals.add(shown, compared != null && compared.regressed());
        durationMs += shown.durationMs();
    }

    /**
     * {@code text} to {@code out} through {@link #chunk}: a writer given a string longer than a
     * kilobyte copies it into a new array first, a case's entry every time.
     */
    private void write(Writer out, String text) throws IOException {
        for (int at = 0; at < text.length(); at += chunk.length) {
            int end = Math.min(text.length(), at + chunk.length);
            text.getChars(at, end, chunk, 0);
            out.write(chunk, 0, end - at);
        }
    }

    /**
     * Writes what adds up the cases, joins each file's start and its cases' parts, and moves the
     * three files into place, the three at once; the parts are deleted as they are joined.
     *
     * @param report the report as {@code report.json} holds it (secrets redacted), its
     *               {@code cases} an empty array that marks where the cases go
     * @throws InvalidReportException when {@code report} is not a report
     * @throws IOException            when a file cannot be written
     */
    @Override
    public void finish(JsonNode report) throws IOException {
        if (finished) {
            throw new IllegalStateException("the report files are finished");
        }
        if (!report.path("cases").isArray() || !report.get("cases").isEmpty()) {
            throw new InvalidReportException("report: cases: expected an empty array, where the cases go");
        }
        Report head = ReportReader.read(report, "report");
        finished = true;
        String[] json = jsonEnds(report);
        String xmlStart = JunitXml.start(head, totals.cases, totals.failed, durationMs);
        String htmlStart = HtmlReport.start(head, totals);
        events.close();
        for (Writer part : List.of(jsonOut, xmlOut, rowsOut, runsOut)) {
            part.flush();       // what the encoders hold, into the parts
        }
        Path jsonJoined = created("." + JSON, ".tmp");
        Path xmlJoined = created("." + EvalReports.JUNIT_XML, ".tmp");
        Path htmlJoined = created("." + EvalReports.HTML, ".tmp");
        // The three files joined at once, each on a thread of its own: they are copies the kernel
        // makes, which the evaluation's caller waits for after its last run, and the page's (every
        // transcript) is the longest: the other two go beside it, not after it.
        try (ExecutorService joins = Executors.newVirtualThreadPerTaskExecutor()) {
            Future<?> jsonJoin = joins.submit(() -> {
                join(jsonJoined, directory.resolve(JSON), json[0], this.json, json[1]);
                return null;
            });
            Future<?> xmlJoin = joins.submit(() -> {
                join(xmlJoined, directory.resolve(EvalReports.JUNIT_XML), xmlStart, xml, JunitXml.END);
                return null;
            });
            join(htmlJoined, directory.resolve(EvalReports.HTML), htmlStart, rows,
                    HtmlReport.TABLE_END + HtmlReport.RUNS_HEADER, runs, HtmlReport.FOOTER);
            joined(jsonJoin);
            joined(xmlJoin);
        }
    }

    /** Waits for a join on another thread; what it threw is thrown here. */
    private static void joined(Future<?> join) throws IOException {
        try {
            join.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new java.io.InterruptedIOException("interrupted while the report files were joined");
        } catch (ExecutionException e) {
            switch (e.getCause()) {
                case IOException io -> throw io;
                case RuntimeException runtime -> throw runtime;
                case Error error -> throw error;
                default -> throw new IOException(e.getCause());
            }
        }
    }

    /** report.json's text before its first case and after its last, redacted. */
    private String[] jsonEnds(JsonNode report) throws IOException {
        StringWriter start = new StringWriter(1024);
        boolean after = false;
        try (JsonGenerator head = Jackson.JSON.writer(SerializationFeature.INDENT_OUTPUT).createGenerator(start)) {
            head.writeStartObject();
            for (Map.Entry<String, JsonNode> field : report.properties()) {
                if (after) {
                    cases.writeName(field.getKey());
                    cases.writeTree(field.getValue());
                } else if (field.getKey().equals("cases")) {
                    head.writeName("cases");
                    head.writeStartArray();
                    head.flush();
                    cases.writeEndArray();
                    after = true;
                } else {
                    head.writeName(field.getKey());
                    head.writeTree(field.getValue());
                }
            }
            cases.writeEndObject();
            cases.close();
            return new String[] {Secrets.redact(start.toString()), Secrets.redact(jsonText.toString()) + "\n"};
        }
    }

    /**
     * Writes {@code target} from its pieces (a text, or a {@link Part}), through {@code joined},
     * a temporary file moved over it. Touches no field: the three files are joined at once.
     */
    private static void join(Path joined, Path target, Object... pieces) throws IOException {
        try (FileChannel out = FileChannel.open(joined, StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING)) {
            for (Object piece : pieces) {
                if (piece instanceof Part part) {
                    part.copyTo(out);
                } else {
                    ByteBuffer bytes = ByteBuffer.wrap(((String) piece).getBytes(StandardCharsets.UTF_8));
                    while (bytes.hasRemaining()) {
                        out.write(bytes);
                    }
                }
            }
        }
        try {
            Files.move(joined, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } catch (AtomicMoveNotSupportedException e) {
            Files.move(joined, target, StandardCopyOption.REPLACE_EXISTING);
        }
    }

    private Path part(String name) throws IOException {
        return created("." + name, ".part");
    }

    /**
     * A new hidden file in the directory, created as any file the process writes (the umask's
     * permissions, as {@code events.jsonl} and the whole-report writers' files have), not as
     * {@code Files.createTempFile}'s owner-only: the joined file is moved into place as it is.
     */
    private Path created(String prefix, String suffix) throws IOException {
        while (true) {
            Path file = directory.resolve(prefix + Long.toUnsignedString(ThreadLocalRandom.current().nextLong(), 36) + suffix);
            try {
                Files.createFile(file);
                temporary.add(file);
                return file;
            } catch (FileAlreadyExistsException e) {
                // another evaluation's, or a left-over part: another name
            }
        }
    }

    /** Deletes the part files; without {@link #finish}, no report file is written. */
    @Override
    public void close() {
        for (AutoCloseable open : List.<AutoCloseable>of(jsonOut, xmlOut, rowsOut, runsOut, cases, events)) {     // the parts let go of what they hold
            try {
                open.close();
            } catch (Exception e) {
                // a part being thrown away: nothing to keep
            }
        }
        for (Path file : temporary) {
            try {
                Files.deleteIfExists(file);
            } catch (IOException e) {
                // a hidden part file left behind: the report files are right either way
            }
        }
    }
}
