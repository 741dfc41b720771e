package dev.bellows.eval.junit;

import dev.bellows.eval.AgentFactory;
import dev.bellows.eval.CaseResult;
import dev.bellows.eval.Dataset;
import dev.bellows.eval.DatasetException;
import dev.bellows.eval.EvalCase;
import dev.bellows.eval.EvalRunner;
import dev.bellows.eval.RunResult;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;

/**
 * A dataset as JUnit 5 dynamic tests, one per case, with the same evaluators {@code bellows
 * eval} uses: each test runs its case's repeats and fails, with every failing evaluator's
 * reason, when the case's pass rate falls short. The tests link to the case's line in the
 * dataset, so an IDE opens it.
 *
 * <pre>{@code
 * @TestFactory
 * Stream<DynamicTest> weatherAgent() throws Exception {
 *     return EvalTests.dynamicTests(Path.of("src/test/resources/weather.jsonl"),
 *             (evalCase, probe) -> probe.install(DefaultAgent.builder().provider(provider).model("mock")).build());
 * }
 * }</pre>
 */
public final class EvalTests {

    private EvalTests() {
    }

    /**
     * The dataset's cases as tests, each run once (or its own {@code repeat}) by a runner of the factory's agents.
     *
     * @throws DatasetException when the dataset is bad (file, line and field named)
     * @throws IOException      when it cannot be read
     */
    public static Stream<DynamicTest> dynamicTests(Path dataset, AgentFactory factory) throws DatasetException, IOException {
        return dynamicTests(Dataset.read(dataset), EvalRunner.builder(factory).build());
    }

    /** The dataset's cases as tests run by {@code runner} (its repeat, judge, evaluators, output directory). */
    public static Stream<DynamicTest> dynamicTests(Dataset dataset, EvalRunner runner) {
        return dataset.cases().stream().map(evalCase -> DynamicTest.dynamicTest(evalCase.id(), source(dataset, evalCase),
                () -> check(runner.run(new Dataset(dataset.source(), List.of(evalCase))).cases().getFirst())));
    }

    private static URI source(Dataset dataset, EvalCase evalCase) {
        URI file = dataset.source().toAbsolutePath().toUri();
        return evalCase.line() > 0 ? URI.create(file + "?line=" + evalCase.line()) : file;
    }

    /** Fails with the case's verdict and every failed run's reasons. */
    static void check(CaseResult result) {
        if (result.passed()) {
            return;
        }
        StringBuilder message = new StringBuilder();
        message.append(result.id()).append(": ").append(result.passedRuns()).append(" of ").append(result.repeat())
                .append(" runs passed, ").append(String.format(Locale.ROOT, "%.0f%%", result.requiredPassRate() * 100))
                .append(" needed");
        for (RunResult run : result.runs()) {
            if (run.passed()) {
                continue;
            }
            message.append("\n  run ").append(run.index()).append(": ");
            if (run.error().isPresent()) {
                message.append(run.error().get());
            } else {
                message.append(run.scores().stream().filter(score -> !score.passed())
                        .map(score -> score.evaluator() + ": " + score.reason()).collect(Collectors.joining("; ")));
            }
        }
        throw new AssertionError(message.toString());
    }
}
