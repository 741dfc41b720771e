package dev.bellows.eval;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bellows.tool.LoopEndReason;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class EvaluatorsTest {

    private static Score score(Evaluator evaluator, RunRecord run) throws InterruptedException {
        return evaluator.evaluate(run, EvalContext.none());
    }

    @Test
    void equalsComparesTheStrippedAnswerOrAJsonValue() throws Exception {
        assertThat(score(Evaluators.equalsTo("Paris"), Runs.run().answer(" Paris\n")).passed()).isTrue();
        Score wrong = score(Evaluators.equalsTo("Paris"), Runs.run().answer("paris"));
        assertThat(wrong.passed()).isFalse();
        assertThat(wrong.score()).isZero();
        assertThat(wrong.reason()).isEqualTo("expected \"Paris\", got \"paris\"");

        Evaluator typed = Evaluators.equalsJson(Runs.json("{\"city\": \"Oslo\", \"temp\": 5}"));
        assertThat(score(typed, Runs.run().answer("{\"temp\": 5.0, \"city\": \"Oslo\"}")).passed()).isTrue();
        assertThat(score(typed, Runs.run().answer("{\"temp\": 6, \"city\": \"Oslo\"}")).passed()).isFalse();
        assertThat(score(typed, Runs.run().answer("Oslo, 5 degrees")).passed()).isFalse();
    }

    @Test
    void containsNeedsEveryPart() throws Exception {
        Evaluator both = Evaluators.contains(List.of("Oslo", "°C"));
        assertThat(score(both, Runs.run().answer("Oslo: 5 °C")).passed()).isTrue();
        Score missing = score(both, Runs.run().answer("Oslo: 5 F"));
        assertThat(missing.passed()).isFalse();
        assertThat(missing.reason()).startsWith("the answer does not contain \"°C\"");
    }

    @Test
    void regexIsFoundAnywhereUnlessAnchored() throws Exception {
        assertThat(score(Evaluators.regex("\\d+ °C"), Runs.run().answer("It is 5 °C.")).passed()).isTrue();
        assertThat(score(Evaluators.regex("^\\d+$"), Runs.run().answer("It is 5")).passed()).isFalse();
    }

    @Test
    void schemaChecksATypedResult() throws Exception {
        Evaluator schema = Evaluators.schema(Runs.json("""
                {"type": "object", "required": ["city", "temp"],
                 "properties": {"city": {"type": "string"}, "temp": {"type": "number"}}}"""));
        assertThat(score(schema, Runs.run().answer("{\"city\": \"Oslo\", \"temp\": 5}")).passed()).isTrue();
        Score missing = score(schema, Runs.run().answer("{\"city\": \"Oslo\"}"));
        assertThat(missing.passed()).isFalse();
        assertThat(missing.reason()).contains("temp");
        assertThat(score(schema, Runs.run().answer("not json")).reason()).startsWith("the answer is not JSON");
    }

    @Test
    void numericReadsTheNumberWithinATolerance() throws Exception {
        Evaluator near = Evaluators.numeric(21.5, 0.5, Optional.empty());
        assertThat(score(near, Runs.run().answer("About 21.9 degrees")).passed()).isTrue();
        assertThat(score(near, Runs.run().answer("About 22.1 degrees")).passed()).isFalse();
        assertThat(score(near, Runs.run().answer("22")).passed()).isTrue();
        assertThat(score(near, Runs.run().answer("warm")).reason()).startsWith("no number in the answer");

        Evaluator at = Evaluators.numeric(5, 0, Optional.of("/temp"));
        assertThat(score(at, Runs.run().answer("{\"day\": 3, \"temp\": 5}")).passed()).isTrue();
        assertThat(score(at, Runs.run().answer("{\"day\": 5}")).passed()).isFalse();
    }

    @Test
    void noToolErrorsFailsOnAnyFailedCall() throws Exception {
        assertThat(score(Evaluators.noToolErrors(), Runs.run().call("get_weather", "{}").answer("x")).passed()).isTrue();
        Score failed = score(Evaluators.noToolErrors(),
                Runs.run().failedCall("get_weather", "unknown city").answer("x"));
        assertThat(failed.passed()).isFalse();
        assertThat(failed.reason()).isEqualTo("1 tool call(s) failed: get_weather: unknown city");
    }

    @Test
    void limitsOnIterationsTokensAndLatency() throws Exception {
        RunRecord run = Runs.run().iteration().iteration().tokens(100, 20).durationMs(300).answer("x");
        assertThat(score(Evaluators.maxIterations(2), run).passed()).isTrue();
        assertThat(score(Evaluators.maxIterations(1), run).reason()).isEqualTo("2 iteration(s), at most 1 allowed");
        assertThat(score(Evaluators.maxTokens(120), run).passed()).isTrue();
        assertThat(score(Evaluators.maxTokens(119), run).passed()).isFalse();
        assertThat(score(Evaluators.maxLatencyMs(300), run).passed()).isTrue();
        assertThat(score(Evaluators.maxLatencyMs(299), run).passed()).isFalse();

        RunRecord stopped = Runs.run().iteration().iteration().ended(LoopEndReason.MAX_ITERATIONS, "2 iterations");
        assertThat(score(Evaluators.maxIterations(2), stopped).reason()).isEqualTo(
                "2 iteration(s), stopped at the limit, at most 2 allowed");
        RunRecord unknown = Runs.run().answer("x");
        assertThat(score(Evaluators.maxTokens(10), unknown).reason()).contains("unknown");
    }

    @Test
    void theJudgesAnswerIsReadAsAScoreAndAReason() {
        JudgeEvaluator judge = new JudgeEvaluator("rubric", 0.7);
        Score json = judge.read("Sure. {\"score\": 0.8, \"reason\": \"Gives 5 °C.\"}");
        assertThat(json).isEqualTo(new Score("judge", true, 0.8, "score 0.8 >= 0.7: Gives 5 °C."));
        Score loose = judge.read("Score: 0.4 - no temperature given");
        assertThat(loose.passed()).isFalse();
        assertThat(loose.score()).isEqualTo(0.4);
        assertThat(judge.read("{\"score\": 7, \"reason\": \"out of 10\"}").reason())
                .startsWith("the judge's answer has no score in 0..1");
        assertThat(judge.read("I like it").passed()).isFalse();
    }

    @Test
    void theJudgeReadsTheConversationTheTaskAndTheAnswer(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir)
            throws Exception {
        java.nio.file.Path file = java.nio.file.Files.writeString(dir.resolve("c.jsonl"), "{\"id\": \"c\", \"input\":"
                + " [{\"role\": \"user\", \"content\": \"I live in Oslo.\"}, {\"role\": \"assistant\", \"content\":"
                + " \"Noted.\"}, {\"role\": \"user\", \"content\": \"Umbrella today?\"}],"
                + " \"expect\": {\"judge\": {\"rubric\": \"Talks about Oslo.\"}}}\n");
        EvalCase evalCase = Dataset.read(file).cases().getFirst();
        RunRecord run = new RunRecord(evalCase, 1, "Yes, rain in Oslo.", Optional.of(LoopEndReason.TASK_COMPLETION),
                List.of(), 1, Optional.empty(), 0, Optional.empty());
        dev.bellows.testkit.ScriptedProvider judge = new dev.bellows.testkit.ScriptedProvider(dev.bellows.testkit.MockScript
                .of(dev.bellows.testkit.MockTurn.content("{\"score\": 1, \"reason\": \"Oslo named.\"}")));
        Score score = evaluatorOf(evalCase).evaluate(run, new EvalContext(Optional.of(new JudgeModel(judge, "j"))));
        assertThat(score).isEqualTo(new Score("judge", true, 1.0, "score 1.0 >= 0.5: Oslo named."));
        assertThat(judge.requests().getFirst().messages().getLast().content()).isEqualTo("""
                Conversation before the task:
                user: I live in Oslo.
                assistant: Noted.

                Task:
                Umbrella today?

                Answer:
                Yes, rain in Oslo.

                Rubric:
                Talks about Oslo.""");
    }

    private static Evaluator evaluatorOf(EvalCase evalCase) {
        return evalCase.evaluators().getFirst();
    }

    @Test
    void aJudgeWithoutAModelFailsSayingSo() throws Exception {
        Score none = score(Evaluators.judge("rubric", 0.5), Runs.run().answer("x"));
        assertThat(none.passed()).isFalse();
        assertThat(none.reason()).isEqualTo("no judge model is configured");
    }
}
