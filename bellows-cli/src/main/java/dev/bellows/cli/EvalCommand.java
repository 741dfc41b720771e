package dev.bellows.cli;

import tools.jackson.core.JacksonException;
import dev.bellows.json.internal.Jackson;
import tools.jackson.databind.JsonNode;
import dev.bellows.agent.DefaultAgent;
import dev.bellows.cli.ModelOptions.Settings;
import dev.bellows.eval.AgentFactory;
import dev.bellows.eval.CaseResult;
import dev.bellows.eval.Comparison;
import dev.bellows.eval.Dataset;
import dev.bellows.eval.DatasetException;
import dev.bellows.eval.EvalReport;
import dev.bellows.eval.EvalRunner;
import dev.bellows.eval.JudgeModel;
import dev.bellows.eval.ReportJson;
import dev.bellows.eval.RunProbe;
import dev.bellows.eval.RunResult;
import dev.bellows.eval.report.ReportFiles;
import dev.bellows.mcp.McpClientOptions;
import dev.bellows.provider.Provider;
import dev.bellows.provider.RetryPolicy;
import dev.bellows.stream.StreamOptions;
import dev.bellows.tool.ToolRegistry;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

/**
 * {@code bellows eval DATASET}: runs each case of an evaluation dataset through the agent the
 * model and agent options build, scores every run, writes the report files and exits 0 when
 * every case passed (or, against a baseline, when none regressed), 1 otherwise, 2 for a usage
 * error or a bad dataset (cli.md, "Evaluations"; docs/eval.md).
 */
@Command(name = "eval",
        mixinStandardHelpOptions = true,
        versionProvider = BellowsCommand.Version.class,
        sortOptions = false,
        subcommands = {EvalReportCommand.class},
        description = {
                "Runs each case of an evaluation dataset (JSONL, or YAML: a list) through the agent, scores every run,"
                        + " and writes report.json, junit.xml, report.html and every run's events (events.jsonl, a block of"
                        + " lines a run) into the output directory. eval report FILE writes a report's page again."},
        exitCodeListHeading = "%nExit status:%n",
        exitCodeList = {
                "0:every case passed; with --baseline: no case regressed",
                "1:a case failed; with --baseline: a case that passed there fails, or a pass rate or mean score fell"
                        + " by more than --margin",
                "2:usage or configuration error, or a bad dataset (file, line and field named): nothing was run",
                "130:cancelled (Ctrl-C)"})
final class EvalCommand implements Callable<Integer> {

    private static final tools.jackson.databind.ObjectMapper JSON = Jackson.JSON;

    @ParentCommand
    BellowsCommand root;

    @Spec
    private CommandSpec spec;

    @Mixin
    ModelOptions options;

    @Parameters(index = "0", arity = "0..1", paramLabel = "DATASET", description = "The dataset: a .jsonl file (one case a line) or a"
            + " .yaml / .yml file (a list of cases).")
    String dataset;

    @Option(names = "--repeat", paramLabel = "N", description = "Runs of each case that does not say \"repeat\" itself"
            + " (default 1).")
    Integer repeat;

    @Option(names = "--concurrency", paramLabel = "N", description = "Runs at once (default 1: one after another, in"
            + " the dataset's order).")
    Integer concurrency;

    @Option(names = "--out", paramLabel = "DIR", description = "Where the report files go (default eval-out).")
    String out;

    @Option(names = "--baseline", paramLabel = "REPORT.json", description = "An earlier report.json: exit 1 only when"
            + " a case that passed there fails, or a case's pass rate or an evaluator's mean score fell by more than"
            + " --margin; what changed is printed.")
    String baseline;

    @Option(names = "--margin", paramLabel = "X", description = "How far a pass rate or mean score (0..1) may fall"
            + " against --baseline (default 0.05).")
    Double margin;

    @Option(names = "--output-schema", paramLabel = "FILE",
            description = "A JSON Schema every final answer must match, as for bellows run: the answer is a typed"
                    + " result (JSON) that \"schema\" and \"numeric\" checks read.")
    String outputSchema;

    @Option(names = "--judge-model", paramLabel = "M", description = "The model that grades \"judge\" expectations, at"
            + " the same provider (default: the agent's --model).")
    String judgeModel;

    @Override
    public Integer call() {
        Settings settings;
        Provider chosen;
        StreamOptions streamOptions;
        Dataset cases;
        JsonNode before = null;
        McpClientOptions client;
        try {
            if (dataset == null) {
                throw new UsageException("DATASET: missing: the dataset to run, e.g. bellows eval evals/cases.jsonl (see '"
                        + spec.qualifiedName() + " --help')", true);
            }
            checkFlags();
            cases = readDataset();
            if (baseline != null) {
                before = readBaseline();
            }
            settings = options.resolve(root.host, null, outputSchema, true);
            streamOptions = DialectOption.streamOptions(options.dialect(root.host), settings.model());
            // nobody answers a server's questions in the middle of an evaluation
            client = settings.mcpServers().isEmpty() ? McpClientOptions.DEFAULTS
                    : McpSetup.clientOptions(root, spec.qualifiedName(), options.dataDir, McpSetup.browser(root.host),
                    false, dev.bellows.mcp.ElicitationHandler.DECLINE);
            chosen = ModelOptions.provider(settings);
        } catch (UsageException e) {
            return e.verbatim ? shown(e.getMessage()) : usage(e.getMessage());
        }
        JsonNode baselineReport = before;
        try (Provider closing = chosen) {
            return McpSetup.withServers(settings.mcpServers(), root.host, spec.qualifiedName(), root.stderr,
                    settings.apiKey(), client,
                    registry -> evaluate(settings, closing, streamOptions, registry, cases, baselineReport));
        } catch (UsageException e) {
            return usage(e.getMessage());
        }
    }

    private void checkFlags() throws UsageException {
        if (options.session != null) {
            throw new UsageException("--session: eval runs every case in a fresh conversation; a case gives its own"
                    + " conversation as its input");
        }
        if (repeat != null && (repeat < 1 || repeat > 10_000)) {
            throw new UsageException("--repeat: must be from 1 to 10000, got " + repeat);
        }
        if (concurrency != null && (concurrency < 1 || concurrency > 1_000)) {
            throw new UsageException("--concurrency: must be from 1 to 1000, got " + concurrency);
        }
        if (margin != null && !(margin >= 0 && margin <= 1)) {
            throw new UsageException("--margin: must be in 0..1, got " + margin);
        }
        if (margin != null && baseline == null) {
            throw new UsageException("--margin: only with --baseline REPORT.json");
        }
        if (judgeModel != null && judgeModel.isBlank()) {
            throw new UsageException("--judge-model: empty");
        }
    }

    private Dataset readDataset() throws UsageException {
        Path file = root.host.workingDirectory().resolve(dataset);
        try {
            // the report names the dataset as it was given
            return new Dataset(Path.of(dataset), Dataset.read(file).cases());
        } catch (DatasetException e) {
            // verbatim: the dataset's name is a file's, shown as given (the usual filter hides positional values)
            throw new UsageException(dataset + ":" + e.line() + ": " + (e.field().isEmpty() ? "" : e.field() + ": ")
                    + e.problem(), true);
        } catch (IOException e) {
            throw new UsageException("DATASET: cannot read " + dataset + ": " + reason(e), true);
        }
    }

    private JsonNode readBaseline() throws UsageException {
        try {
            Path file = root.host.workingDirectory().resolve(baseline);
            JsonNode report = JSON.readTree(Files.readString(file));
            if (!report.path("cases").isArray()) {
                throw new UsageException("--baseline: " + baseline + " is not an evaluation report (no \"cases\")");
            }
            return report;
        } catch (IOException | JacksonException e) {
            throw new UsageException("--baseline: cannot read " + baseline + ": " + reason(e));
        }
    }

    private static String reason(Exception e) {
        return e instanceof JacksonException json ? "not JSON: " + json.getOriginalMessage()
                : e instanceof java.nio.file.NoSuchFileException ? "no such file"
                : e instanceof java.nio.file.AccessDeniedException ? "permission denied"
                : String.valueOf(e.getMessage());
    }

    private int evaluate(Settings settings, Provider provider, StreamOptions streamOptions, ToolRegistry registry,
                         Dataset cases, JsonNode before) throws UsageException {
        Path directory = root.host.workingDirectory().resolve(out == null ? "eval-out" : out);
        try {
            Files.createDirectories(directory);
        } catch (IOException e) {
            throw new UsageException("--out: cannot create " + (out == null ? "eval-out" : out) + ": " + reason(e));
        }
        String agentName = settings.configuredAgent() != null ? settings.configuredAgent().name()
                : settings.toolMode() == dev.bellows.agent.ToolMode.REACT ? "react" : "default";
        try (AgentTree tree = new AgentTree(settings, provider, streamOptions, registry, root.host::envValue, RunProbe.counter())) {
            EvalRunner.Builder runner = EvalRunner.builder(agentFactory(settings, provider, streamOptions, registry, tree, cases))
                    .repeat(repeat == null ? 1 : repeat)
                    .concurrency(concurrency == null ? 1 : concurrency)
                    .judge(new JudgeModel(provider, judgeModel == null ? settings.model() : judgeModel))
                    .outputDirectory(directory)
                    .progress(new EvalProgressLines(root.stderr, root.host.terminal()))
                    .agentName(agentName)
                    .model(settings.configuredAgent() != null && settings.configuredAgent().model() != null
                            ? settings.configuredAgent().model() : settings.model())
                    .memory(() -> RunCommand.memory(settings))
                    .prices(options.configFile(root.host).prices())
                    .reportFiles(ReportFiles::open);     // report.json, junit.xml and report.html written as the runs go
            if (before != null) {
                try {
                    runner.baseline(baseline, before, margin == null ? 0.05 : margin);
                } catch (IllegalArgumentException e) {
                    throw new UsageException("--baseline: " + baseline + ": " + e.getMessage());
                }
            }
            return evaluate(runner.build(), directory, cases);
        }
    }

    private int evaluate(EvalRunner runner, Path directory, Dataset cases) {
        EvalReport report;
        Thread evaluating = Thread.currentThread();
        try (AutoCloseable interrupt = root.host.interrupts().onInterrupt(evaluating::interrupt)) {
            report = runner.run(cases);
        } catch (InterruptedException e) {
            root.stderr.println(spec.qualifiedName() + ": cancelled");
            root.stderr.flush();
            return AgentRunner.CANCELLED;
        } catch (IOException e) {
            root.stderr.println(spec.qualifiedName() + ": cannot write the report: " + BellowsCommand.oneLine(e.getMessage()));
            root.stderr.flush();
            return 1;
        } catch (Exception e) {     // closing the interrupt handler
            throw new IllegalStateException(e);
        }
        print(report, directory);
        if (report.comparison().isPresent()) {
            return report.comparison().get().regressed() ? 1 : 0;
        }
        return report.passed() ? 0 : 1;
    }

    /**
     * The agents under test: built before any run, once for each iteration limit the cases need
     * (a case's {@code max_iterations} is a limit as well as a check), each shared by its cases'
     * runs, a fresh session a run; the tool list, the prompts and the sub-agents are not rebuilt
     * per run. A configured agent ({@code --agent NAME}) is built as {@code bellows run} builds it,
     * its sub-agents counting their tokens into the run's.
     */
    private static AgentFactory agentFactory(Settings settings, Provider provider, StreamOptions streamOptions,
                                             ToolRegistry registry, AgentTree tree, Dataset cases) throws UsageException {
        RetryPolicy retryPolicy = RetryPolicy.defaults().withMaxRetries(settings.maxRetries());
        java.util.Map<Integer, DefaultAgent> agents = new java.util.HashMap<>();
        for (dev.bellows.eval.EvalCase evalCase : cases.cases()) {
            int limit = limit(settings, evalCase);
            if (agents.containsKey(limit)) {
                continue;
            }
            DefaultAgent.Builder builder = DefaultAgent.builder().modelInterceptor(RunProbe.counter());
            if (settings.answerSchema() != null) {
                builder.answerSchema(settings.answerSchema());
            }
            builder.toolMode(settings.toolMode())
                    .provider(provider)
                    .model(settings.model())
                    .streamOptions(streamOptions)
                    .instructions(settings.system())
                    .toolRegistry(registry)
                    .maxIterations(limit)
                    .maxToolResultTokens(settings.maxToolResultTokens())
                    .maxConsecutiveErrors(settings.maxConsecutiveErrors())
                    .retryPolicy(retryPolicy);
            for (String pattern : settings.approve()) {
                builder.requireApproval(pattern);
            }
            if (settings.configuredAgent() != null) {
                tree.configure(builder, settings.configuredAgent());
            }
            agents.put(limit, builder.build());
        }
        java.util.Map<Integer, DefaultAgent> built = java.util.Map.copyOf(agents);
        return (evalCase, probe) -> built.get(limit(settings, evalCase));
    }

    private static int limit(Settings settings, dev.bellows.eval.EvalCase evalCase) {
        return Math.min(settings.maxIterations(), evalCase.maxIterations().orElse(Integer.MAX_VALUE));
    }

    /** The verdicts on standard output: a line per case, the totals, and what changed against the baseline. */
    private void print(EvalReport report, Path directory) {
        StringBuilder text = new StringBuilder();
        for (CaseResult result : report.cases()) {
            text.append(result.passed() ? "PASS  " : "FAIL  ").append(result.id()).append("  ")
                    .append(result.passedRuns()).append('/').append(result.repeat()).append(" runs passed");
            if (result.requiredPassRate() < 1) {
                text.append(" (").append(percent(result.requiredPassRate())).append(" needed)");
            }
            if (!result.passed()) {
                why(result).ifPresent(why -> text.append(": ").append(why));
            }
            text.append('\n');
        }
        EvalReport.Summary summary = report.summary();
        text.append(summary.passed()).append(" of ").append(summary.cases()).append(" cases passed (")
                .append(percent(summary.passRate())).append("); report: ")
                .append(root.host.workingDirectory().relativize(directory.toAbsolutePath()).resolve(ReportJson.FILE))
                .append('\n');
        report.comparison().ifPresent(comparison -> {
            text.append("against ").append(comparison.baseline()).append(" (margin ").append(comparison.margin())
                    .append("):\n");
            int changed = 0;
            for (Comparison.CaseComparison c : comparison.cases()) {
                if (c.why().isEmpty()) {
                    continue;
                }
                changed++;
                text.append("  ").append(c.regressed() ? "REGRESSED " : "changed   ").append(c.id()).append(": ")
                        .append(String.join("; ", c.why())).append('\n');
            }
            long regressed = comparison.cases().stream().filter(Comparison.CaseComparison::regressed).count();
            text.append(changed == 0 ? "  nothing changed\n" : "")
                    .append(regressed == 0 ? "no case regressed" : regressed + (regressed == 1 ? " case" : " cases")
                            + " regressed").append('\n');
        });
        String shown = Shown.text(dev.bellows.secret.Secrets.redact(text.toString()));
        try {
            root.stdout.write(shown.getBytes(java.nio.charset.StandardCharsets.UTF_8));
            root.stdout.flush();
        } catch (IOException e) {
            // standard output closed: the report files hold everything
        }
    }

    /** Why a case failed: its first failed run's error, or the reasons of the evaluators that failed it. */
    private static java.util.Optional<String> why(CaseResult result) {
        for (RunResult run : result.runs()) {
            if (run.passed()) {
                continue;
            }
            if (run.error().isPresent()) {
                return java.util.Optional.of("run " + run.index() + ": " + BellowsCommand.oneLine(run.error().get()));
            }
            return java.util.Optional.of("run " + run.index() + ": " + run.scores().stream().filter(s -> !s.passed())
                    .map(s -> s.evaluator() + ": " + BellowsCommand.oneLine(s.reason()))
                    .collect(Collectors.joining("; ")));
        }
        return java.util.Optional.empty();
    }

    private static String percent(double rate) {
        return String.format(Locale.ROOT, "%.0f%%", rate * 100);
    }

    /** A usage error whose message may show what the command line gave (a file's name), secrets still redacted. */
    private int shown(String message) {
        root.stderr.println(spec.qualifiedName() + ": " + BellowsCommand.oneLine(dev.bellows.secret.Secrets.redact(message)));
        root.stderr.flush();
        return 2;
    }

    private int usage(String message) {
        root.stderr.println(spec.qualifiedName() + ": " + BellowsCommand.oneLine(UsageErrors.redact(message, spec)));
        root.stderr.flush();
        return 2;
    }
}
