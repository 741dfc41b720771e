package dev.bellows.eval;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import tools.jackson.databind.JsonNode;

/**
 * Where {@link EvalRunner} gives an evaluation's report while its runs go
 * ({@link EvalRunner.Builder#reportFiles}): each case once its runs, and those of every case
 * before it, have ended, in dataset order; then, after the last run, the report's head. The
 * runner's own records are given, not a JSON tree of them: {@code dev.bellows.eval.report.ReportFiles}
 * writes {@code report.json}, {@code junit.xml} and {@code report.html} from them.
 *
 * <p>Called by one thread at a time (the cases on the runner's events writer, then
 * {@link #finish} or {@link #close} on the thread that called {@link EvalRunner#run}).
 */
public interface ReportSink extends AutoCloseable {

    /** Opens a sink for one evaluation. */
    @FunctionalInterface
    interface Opener {
        /**
         * @param directory the runner's output directory (it exists)
         * @param dataset   the report's {@code dataset}, secrets redacted
         * @throws IOException when the sink cannot start
         */
        ReportSink open(Path directory, String dataset) throws IOException;
    }

    /**
     * The next case, complete: every run's result and events reference known.
     *
     * @param result the case (its texts not yet redacted: the sink redacts what it writes)
     * @param change its comparison with the baseline; empty without one
     * @param events per run of the case, in its order, the lines of {@code events.jsonl} its
     *               reference names, as the file holds them (secrets redacted), each ended by a
     *               line break; a run without events has an empty text
     * @throws IOException when the case cannot be written (the evaluation stops)
     */
    void add(CaseResult result, Optional<Comparison.CaseComparison> change, List<String> events) throws IOException;

    /**
     * Every case was given: what adds them up is written and the files made whole.
     *
     * @param report the report as {@code report.json} holds it, secrets redacted, its
     *               {@code cases} an empty array that marks where the cases go
     * @throws IOException when a file cannot be written
     */
    void finish(JsonNode report) throws IOException;

    /** Releases the sink; without {@link #finish} (a failed or cancelled evaluation) what it wrote is thrown away. */
    @Override
    void close();
}
