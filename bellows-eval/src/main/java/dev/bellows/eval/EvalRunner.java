package dev.bellows.eval;

import dev.bellows.agent.Agent;
import dev.bellows.agent.AgentResult;
import dev.bellows.agent.AgentRun;
import dev.bellows.agent.Session;
import dev.bellows.event.AgentEvent;
import dev.bellows.tool.LoopEndReason;
import dev.bellows.event.LoopEvent;
import dev.bellows.memory.ConversationMemory;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import dev.bellows.secret.Secrets;
import tools.jackson.databind.JsonNode;

/**
 * Runs a dataset through an agent: each case {@code repeat} times, at most {@code concurrency}
 * runs at once, each run scored by its case's evaluators (and the runner's own), its events
 * written to a file, and with {@link Builder#reportFiles} the report files written as the runs
 * go. The report lists cases in dataset order and runs by index, whatever order they finished in.
 *
 * <pre>{@code
 * EvalReport report = EvalRunner.builder(factory).repeat(3).concurrency(4)
 *         .outputDirectory(Path.of("eval-out")).reportFiles(ReportFiles::open).build()
 *         .run(Dataset.read(Path.of("evals/weather.jsonl")));
 * }</pre>
 *
 * <p>A runner may run several datasets, one after another or at once; it keeps nothing between them.
 */
public final class EvalRunner {

    private final AgentFactory factory;
    private final int repeat;
    private final int concurrency;
    private final EvalContext context;
    private final List<Evaluator> evaluators;
    private final Path outputDirectory;
    private final EvalProgress progress;
    private final String agentName;
    private final String model;
    private final Clock clock;
    private final Supplier<ConversationMemory> memory;
    private final java.util.Map<String, Price> prices;
    private final ReportSink.Opener reportFiles;
    private final Baseline baseline;
    private final LongSupplier nanoTime;

    /** The report compared with: its name, its cases' sides, the margin. */
    private record Baseline(String name, java.util.Map<String, Comparison.Side> sides, double margin) {
    }

    private EvalRunner(Builder builder) {
        this.factory = builder.factory;
        this.repeat = builder.repeat;
        this.concurrency = builder.concurrency;
        this.context = new EvalContext(Optional.ofNullable(builder.judge));
        this.evaluators = List.copyOf(builder.evaluators);
        this.outputDirectory = builder.outputDirectory;
        this.progress = builder.progress;
        this.agentName = builder.agentName;
        this.model = builder.model;
        this.clock = builder.clock;
        this.memory = builder.memory;
        this.prices = java.util.Map.copyOf(builder.prices);
        this.reportFiles = builder.reportFiles;
        this.baseline = builder.baseline;
        this.nanoTime = builder.nanoTime;
    }

    public static Builder builder(AgentFactory factory) {
        return new Builder(factory);
    }

    /**
     * Runs every case of the dataset and reports.
     *
     * @throws IOException          when the events file or a report file cannot be written
     * @throws InterruptedException when the calling thread is interrupted: the runs in flight are cancelled
     */
    public EvalReport run(Dataset dataset) throws IOException, InterruptedException {
        Instant started = clock.instant();
        long start = nanoTime.getAsLong();
        List<EvalCase> cases = dataset.cases();
        int total = cases.stream().mapToInt(c -> c.repeatOr(repeat)).sum();
        Progress shown = new Progress(progress, total);
        // One job per run, in dataset order, taken in that order by a fixed set of workers: with
        // concurrency 1 the runs go one after another in file order (a scripted model's turns
        // are taken in a known order), and never more than `concurrency` at once.
        List<int[]> jobs = new ArrayList<>();
        RunResult[][] results = new RunResult[cases.size()][];
        for (int c = 0; c < cases.size(); c++) {
            results[c] = new RunResult[cases.get(c).repeatOr(repeat)];
            for (int i = 1; i <= results[c].length; i++) {
                jobs.add(new int[] {c, i});
            }
        }
        AtomicInteger next = new AtomicInteger();
        java.util.concurrent.atomic.AtomicBoolean stopped = new java.util.concurrent.atomic.AtomicBoolean();
        progress.started(total);
        List<Future<Void>> workers = new ArrayList<>();
        ReportSink[] reports = new ReportSink[1];
        EventFiles[] events = new EventFiles[1];
        // the writer thread places each run's events in dataset order; once a case's last run is
        // placed, the case is complete, and its parts of the report files are written there
        // the case's blocks kept as text until its last run is placed: the page's transcripts are
        // made from them, not from the file flushed and read back (on the writer thread alone)
        String[] blocks = reportFiles != null ? new String[jobs.size()] : null;
        EventFiles.Written placed = (job, reference, block) -> {
            int c = jobs.get(job)[0];
            int index = jobs.get(job)[1];
            results[c][index - 1] = results[c][index - 1].withEvents(reference);
            if (reports[0] != null) {
                blocks[job] = block;   // the file's text, as a read gives it
                if (index == results[c].length) {
                    List<String> texts = new ArrayList<>(results[c].length);
                    for (int first = job - index + 1, j = first; j <= job; j++) {
                        texts.add(blocks[j]);
                        blocks[j] = null;
                    }
                    caseDone(cases.get(c), results[c], texts, reports[0]);
                }
            }
        };
        if (reportFiles != null) {
            java.nio.file.Files.createDirectories(outputDirectory);
        }
        // closed in the reverse order: the runs stopped, then the writer thread, then the report's parts
        try (ReportSink opened = reportFiles != null ? reportFiles.open(outputDirectory, Secrets.redact(dataset.source().toString())) : null;
             EventFiles files = outputDirectory == null ? null : new EventFiles(outputDirectory, jobs.size(), placed);
             ExecutorService threads = Executors.newThreadPerTaskExecutor(Thread.ofVirtual().name("eval-run-", 0).factory())) {
            reports[0] = opened;
            events[0] = files;
            for (int w = 0; w < Math.min(concurrency, jobs.size()); w++) {
                workers.add(threads.submit(() -> {
                    for (int j = next.getAndIncrement(); j < jobs.size(); j = next.getAndIncrement()) {
                        EvalCase evalCase = cases.get(jobs.get(j)[0]);
                        int index = jobs.get(j)[1];
                        Ran ran = runOnce(evalCase, index);
                        if (stopped.get()) {
                            return null;    // a run cut short by the stop is no result (the loop may end it "cancelled")
                        }
                        results[jobs.get(j)[0]][index - 1] = ran.result();    // before the writer may place it
                        if (files != null) {
                            files.write(j, ran.events());     // its reference is known once the runs before it are written
                        }
                        shown.finished(evalCase.id(), index, ran.result().passed());
                    }
                    return null;
                }));
            }
            try {
                for (Future<Void> worker : workers) {
                    await(worker);
                }
            } catch (InterruptedException | IOException | RuntimeException | Error e) {
                stopped.set(true);
                next.set(jobs.size());      // no further run starts
                workers.forEach(worker -> worker.cancel(true));
                throw e;
            }
            if (files != null) {
                files.finish();     // every run's events on disk (and placed in the results) before the report names them
            }
            List<CaseResult> caseResults = new ArrayList<>();
            for (int c = 0; c < cases.size(); c++) {
                caseResults.add(caseResult(cases.get(c), results[c]));
            }
            EvalReport report = new EvalReport(dataset.source().toString(), agentName, model, started,
                    (nanoTime.getAsLong() - start) / 1_000_000, caseResults, Optional.empty());
            if (baseline != null) {
                report = report.withComparison(Comparison.of(baseline.name(), baseline.sides(),
                        caseResults.stream().map(c -> Comparison.compare(c, baseline.sides(), baseline.margin())).toList(),
                        baseline.margin()));
            }
            if (opened != null) {
                opened.finish(ReportJson.headJson(report));
            }
            return report;
        }
    }

    /** A case whose runs have all ended: its parts of the report files, written on the events' writer thread. */
    private void caseDone(EvalCase evalCase, RunResult[] runs, List<String> blocks, ReportSink reports) throws IOException {
        CaseResult result = caseResult(evalCase, runs);
        reports.add(result, baseline == null ? Optional.empty()
                : Optional.of(Comparison.compare(result, baseline.sides(), baseline.margin())), blocks);
    }

    private static CaseResult caseResult(EvalCase evalCase, RunResult[] runs) {
        return new CaseResult(evalCase.id(), evalCase.input(), evalCase.tags(), evalCase.requiredPassRate(), List.of(runs));
    }

    /** A run's result and its events, for the events file. */
    private record Ran(RunResult result, List<AgentEvent> events) {
    }

    private static void await(Future<Void> future) throws IOException, InterruptedException {
        try {
            future.get();
        } catch (ExecutionException e) {
            switch (e.getCause()) {
                case IOException io -> throw io;
                case RuntimeException runtime -> throw runtime;
                case Error error -> throw error;
                default -> throw new IllegalStateException(e.getCause());
            }
        }
    }

    /** One run: the agent asked for, the task run to its end, the evaluators asked. */
    private Ran runOnce(EvalCase evalCase, int index) throws InterruptedException {
        RunProbe probe = new RunProbe(index);
        long start = nanoTime.getAsLong();
        RunRecord record;
        AgentRun run = null;
        RunProbe.CURRENT.set(probe);        // for RunProbe.counter() in an agent shared by the runs
        try {
            Agent agent = factory.create(evalCase, probe);
            run = agent.run(evalCase.task(), session(evalCase));
            AgentResult result = run.await();
            long duration = (nanoTime.getAsLong() - start) / 1_000_000;
            // one pass over the run's events: copied once (RunRecord keeps an immutable copy), iterations counted
            List<AgentEvent> events = new ArrayList<>(128);
            int iterations = 0;
            for (java.util.Iterator<AgentEvent> all = run.iterator(); all.hasNext(); ) {
                AgentEvent event = all.next();
                events.add(event);
                if (event instanceof LoopEvent.IterationStart) {
                    iterations++;
                }
            }
            LoopEndReason reason = result.reason();
            record = new RunRecord(evalCase, index, reason.successful() ? result.result() : "", Optional.of(reason),
                    events, iterations, probe.tokens(), duration,
                    reason.successful() ? Optional.empty() : Optional.of(reason.wireName() + ": " + result.result()),
                    probe.cost(prices));
        } catch (java.util.concurrent.CancellationException e) {
            if (run != null) {
                run.cancel();
            }
            throw new InterruptedException("the evaluation was interrupted");
        } catch (Exception e) {
            if (e instanceof InterruptedException) {
                throw (InterruptedException) e;
            }
            record = new RunRecord(evalCase, index, "", Optional.empty(), List.of(), 0, probe.tokens(),
                    (nanoTime.getAsLong() - start) / 1_000_000, Optional.of("the agent could not run: " + e), probe.cost(prices));
        } finally {
            RunProbe.CURRENT.remove();
        }
        List<Score> scores = new ArrayList<>();
        boolean passed = record.error().isEmpty();
        for (Evaluator evaluator : evaluators(evalCase)) {
            Score score = score(evaluator, record);
            scores.add(score);
            passed &= score.passed();
        }
        return new Ran(new RunResult(index, passed, record.answer(), scores, "", record.durationMs(), record.iterations(),
                record.tokens(), record.error(), record.cost()), record.events());
    }

    private List<Evaluator> evaluators(EvalCase evalCase) {
        if (evaluators.isEmpty()) {
            return evalCase.evaluators();
        }
        List<Evaluator> all = new ArrayList<>(evalCase.evaluators());
        all.addAll(evaluators);
        return all;
    }

    private Score score(Evaluator evaluator, RunRecord record) throws InterruptedException {
        try {
            return Objects.requireNonNull(evaluator.evaluate(record, context), "the evaluator returned no score");
        } catch (RuntimeException e) {
            // one broken evaluator fails its check, not the evaluation
            return Score.fail(evaluator.name(), "the evaluator failed: " + e);
        }
    }

    /** The run's own session: a fresh memory, holding the case's conversation (if any) before its task. */
    private Session session(EvalCase evalCase) {
        ConversationMemory memory = Objects.requireNonNull(this.memory.get(), "the runner's memory supplier returned null");
        if (!evalCase.history().isEmpty()) {
            memory.addTurn(evalCase.history());
        }
        return new Session(memory);
    }

    /** The progress listener, told of one finished run at a time, with the running count. */
    private static final class Progress {
        private final EvalProgress listener;
        private final int total;
        private int done;

        Progress(EvalProgress listener, int total) {
            this.listener = listener;
            this.total = total;
        }

        synchronized void finished(String caseId, int index, boolean passed) {
            listener.finished(caseId, index, passed, ++done, total);
        }
    }

    /** Not thread-safe. */
    public static final class Builder {
        private final AgentFactory factory;
        private int repeat = 1;
        private int concurrency = 1;
        private JudgeModel judge;
        private final List<Evaluator> evaluators = new ArrayList<>();
        private Path outputDirectory;
        private EvalProgress progress = EvalProgress.NONE;
        private String agentName = "default";
        private String model = "";
        private Clock clock = Clock.systemUTC();
        private Supplier<ConversationMemory> memory = () -> ConversationMemory.builder().build();
        private java.util.Map<String, Price> prices = java.util.Map.of();
        private ReportSink.Opener reportFiles;
        private Baseline baseline;
        private LongSupplier nanoTime = System::nanoTime;

        private Builder(AgentFactory factory) {
            this.factory = Objects.requireNonNull(factory, "factory");
        }

        /** How many times each case runs unless it says {@code repeat} itself (default 1). */
        public Builder repeat(int repeat) {
            if (repeat < 1) {
                throw new IllegalArgumentException("repeat must be at least 1, got " + repeat);
            }
            this.repeat = repeat;
            return this;
        }

        /** How many runs go on at once (default 1). */
        public Builder concurrency(int concurrency) {
            if (concurrency < 1) {
                throw new IllegalArgumentException("concurrency must be at least 1, got " + concurrency);
            }
            this.concurrency = concurrency;
            return this;
        }

        /** The model {@code judge} expectations ask; without one they fail saying so. */
        public Builder judge(JudgeModel judge) {
            this.judge = judge;
            return this;
        }

        /** An evaluator for every case, after the case's own. */
        public Builder evaluator(Evaluator evaluator) {
            evaluators.add(Objects.requireNonNull(evaluator, "evaluator"));
            return this;
        }

        /** Where the runs' events are written ({@code events.jsonl}, a block of lines a run); none are written without it. */
        public Builder outputDirectory(Path directory) {
            this.outputDirectory = directory;
            return this;
        }

        public Builder progress(EvalProgress progress) {
            this.progress = Objects.requireNonNull(progress, "progress");
            return this;
        }

        /** The agent's name, for the report (default {@code default}). */
        public Builder agentName(String name) {
            this.agentName = Objects.requireNonNull(name, "name");
            return this;
        }

        /** The model under test, for the report. */
        public Builder model(String model) {
            this.model = Objects.requireNonNull(model, "model");
            return this;
        }

        /** The clock the report's start time is read from (default UTC). */
        public Builder clock(Clock clock) {
            this.clock = Objects.requireNonNull(clock, "clock");
            return this;
        }

        /**
         * Each run's conversation memory (default: {@code ConversationMemory.builder().build()}):
         * every run goes in a fresh {@link Session} of a memory from {@code memory}, the case's
         * conversation in it, whatever memory the agent was built with. Called once per run.
         */
        public Builder memory(Supplier<ConversationMemory> memory) {
            this.memory = Objects.requireNonNull(memory, "memory");
            return this;
        }

        /**
         * The models' prices, by the model name each call names: with them each run has a cost
         * ({@link RunResult#cost()}) and {@code max_cost} can pass. A run's tokens must be counted
         * ({@link RunProbe}).
         */
        public Builder prices(java.util.Map<String, Price> prices) {
            this.prices = java.util.Map.copyOf(prices);
            return this;
        }

        /**
         * Gives the report, while the runs go, to a sink {@code opener} opens in the output
         * directory for each {@link EvalRunner#run}: each case as soon as its runs and those of
         * every case before it have ended, the report's head once the last has; when the run
         * throws (a file that cannot be written, an interrupt) the sink is closed unfinished.
         * With {@code dev.bellows.eval.report.ReportFiles::open} the report files are written so
         * ({@code report.json}, {@code junit.xml}, {@code report.html}: the files
         * {@link ReportJson#WRITER} and {@code EvalReports} write from the report), and none of
         * them when the run throws. Null (the default): none.
         */
        public Builder reportFiles(ReportSink.Opener opener) {
            this.reportFiles = opener;
            return this;
        }

        /**
         * Compares the evaluation with {@code report}, an earlier report's JSON (as
         * {@link ReportJson#read} reads it): the report {@link EvalRunner#run} returns has its
         * {@link EvalReport#comparison()} ({@link Comparison#of}), and so have the report files.
         *
         * @param name   the baseline's name for the report (its path, as given)
         * @param margin how far a rate or mean score may fall without counting
         * @throws IllegalArgumentException when {@code report} is not a report
         */
        public Builder baseline(String name, JsonNode report, double margin) {
            this.baseline = new Baseline(Objects.requireNonNull(name, "name"), Comparison.sides(report), margin);
            return this;
        }

        /** The clock the runs' and the evaluation's durations are read from, in nanoseconds (tests: fixed durations). */
        Builder nanoTime(LongSupplier nanoTime) {
            this.nanoTime = Objects.requireNonNull(nanoTime, "nanoTime");
            return this;
        }

        public EvalRunner build() {
            if (reportFiles != null && outputDirectory == null) {
                throw new IllegalStateException("reportFiles: the report files go in the output directory; none is set");
            }
            return new EvalRunner(this);
        }
    }
}
