package dev.bellows.eval;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bellows.eval.ToolTrajectory.ArgumentsMatch;
import dev.bellows.eval.ToolTrajectory.ExpectedCall;
import dev.bellows.eval.ToolTrajectory.Match;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The four match modes as LangChain's agentevals defines them, with and without arguments. */
class ToolTrajectoryTest {

    /** The run: get_weather(Oslo), then get_time(Oslo), then task_completion (left out of the comparison). */
    private final RunRecord run = Runs.run()
            .call("get_weather", "{\"city\": \"Oslo\", \"unit\": \"C\"}")
            .call("get_time", "{\"city\": \"Oslo\"}")
            .answer("5 °C at noon");

    private static ExpectedCall call(String name) {
        return new ExpectedCall(name, Optional.empty());
    }

    private static ExpectedCall call(String name, String arguments) {
        return new ExpectedCall(name, Optional.of(Runs.json(arguments)));
    }

    private boolean matches(Match match, ArgumentsMatch arguments, ExpectedCall... calls) {
        return new ToolTrajectory(match, arguments, List.of(calls)).check(run.toolCalls()).passed();
    }

    private boolean matches(Match match, ExpectedCall... calls) {
        return matches(match, ArgumentsMatch.SUBSET, calls);
    }

    @Test
    void theCallThatEndsTheLoopIsNotPartOfTheTrajectory() {
        assertThat(run.toolCalls()).extracting(CalledTool::toolName).containsExactly("get_weather", "get_time");
    }

    @Test
    void strictIsTheSameCallsInTheSameOrder() {
        assertThat(matches(Match.STRICT, call("get_weather"), call("get_time"))).isTrue();
        assertThat(matches(Match.STRICT, call("get_time"), call("get_weather"))).isFalse();
        assertThat(matches(Match.STRICT, call("get_weather"))).isFalse();
        assertThat(matches(Match.STRICT, call("get_weather"), call("get_time"), call("get_time"))).isFalse();
    }

    @Test
    void unorderedIsTheSameCallsInAnyOrder() {
        assertThat(matches(Match.UNORDERED, call("get_time"), call("get_weather"))).isTrue();
        assertThat(matches(Match.UNORDERED, call("get_time"))).isFalse();
        assertThat(matches(Match.UNORDERED, call("get_time"), call("get_time"))).isFalse();
    }

    @Test
    void subsetIsEveryCallOfTheRunAmongTheExpected() {
        assertThat(matches(Match.SUBSET, call("get_time"), call("get_weather"), call("get_news"))).isTrue();
        assertThat(matches(Match.SUBSET, call("get_weather"))).isFalse();
    }

    @Test
    void supersetIsEveryExpectedCallAmongTheRuns() {
        assertThat(matches(Match.SUPERSET, call("get_weather"))).isTrue();
        assertThat(matches(Match.SUPERSET, call("get_weather"), call("get_news"))).isFalse();
        assertThat(matches(Match.SUPERSET, call("get_weather"), call("get_weather"))).isFalse();
    }

    @Test
    void argumentsMatchAsASubsetOrExactly() {
        assertThat(matches(Match.SUPERSET, ArgumentsMatch.SUBSET, call("get_weather", "{\"city\": \"Oslo\"}"))).isTrue();
        assertThat(matches(Match.SUPERSET, ArgumentsMatch.EXACT, call("get_weather", "{\"city\": \"Oslo\"}"))).isFalse();
        assertThat(matches(Match.SUPERSET, ArgumentsMatch.EXACT,
                call("get_weather", "{\"unit\": \"C\", \"city\": \"Oslo\"}"))).isTrue();
        assertThat(matches(Match.SUPERSET, call("get_weather", "{\"city\": \"Bergen\"}"))).isFalse();
        assertThat(matches(Match.STRICT, call("local/get_weather"), call("get_time"))).isTrue();
        assertThat(matches(Match.STRICT, call("other/get_weather"), call("get_time"))).isFalse();
    }

    @Test
    void aLooseExpectedCallDoesNotTakeTheOnlyCallAStricterOneMatches() {
        RunRecord twice = Runs.run().call("search", "{\"q\": \"a\"}").call("search", "{\"q\": \"b\"}").answer("x");
        ToolTrajectory trajectory = new ToolTrajectory(Match.UNORDERED, ArgumentsMatch.SUBSET,
                List.of(call("search"), call("search", "{\"q\": \"a\"}")));
        assertThat(trajectory.check(twice.toolCalls()).passed()).isTrue();
    }

    @Test
    void numbersCompareByValue() {
        RunRecord numbers = Runs.run().call("add", "{\"a\": 1.0, \"b\": [2]}").answer("3");
        ToolTrajectory trajectory = new ToolTrajectory(Match.STRICT, ArgumentsMatch.EXACT,
                List.of(call("add", "{\"b\": [2.0], \"a\": 1}")));
        assertThat(trajectory.check(numbers.toolCalls()).passed()).isTrue();
    }

    @Test
    void aSubsetMayLeaveOutFieldsAtAnyDepthButNotArrayElements() {
        RunRecord nested = Runs.run().call("find", "{\"where\": {\"city\": \"Oslo\", \"country\": \"NO\"}, \"tags\": [\"a\", \"b\"]}")
                .answer("x");
        assertThat(new ToolTrajectory(Match.STRICT, ArgumentsMatch.SUBSET,
                List.of(call("find", "{\"where\": {\"city\": \"Oslo\"}}"))).check(nested.toolCalls()).passed()).isTrue();
        assertThat(new ToolTrajectory(Match.STRICT, ArgumentsMatch.EXACT,
                List.of(call("find", "{\"where\": {\"city\": \"Oslo\"}, \"tags\": [\"a\", \"b\"]}")))
                .check(nested.toolCalls()).passed()).isFalse();
        assertThat(new ToolTrajectory(Match.STRICT, ArgumentsMatch.SUBSET,
                List.of(call("find", "{\"tags\": [\"a\"]}"))).check(nested.toolCalls()).passed()).isFalse();
    }

    @Test
    void theReasonShowsBothTrajectories() {
        Score score = new ToolTrajectory(Match.STRICT, ArgumentsMatch.SUBSET, List.of(call("get_time")))
                .check(run.toolCalls());
        assertThat(score.reason()).isEqualTo("strict mismatch: expected [get_time], the run called"
                + " [get_weather {\"city\":\"Oslo\",\"unit\":\"C\"}, get_time {\"city\":\"Oslo\"}]");
    }

    @Test
    void theExpectedCallsReadAsTheirJsonWhateverTheirArgumentsHold() {
        ToolTrajectory expected = new ToolTrajectory(Match.STRICT, ArgumentsMatch.SUBSET, List.of(
                call("get_weather", "{\"city\": \"Oslo\", \"days\": [1, 2.5, true, null], \"nested\": {}}"),
                call("quote", "{\"text\": \"a \\\"quoted\\\" line\\nand \u00e9\"}"),
                call("get_time")));
        Score score = expected.check(run.toolCalls());
        assertThat(score.reason()).startsWith("strict mismatch: expected [get_weather {\"city\":\"Oslo\",\"days\":[1,2.5,true,null],"
                + "\"nested\":{}}, quote {\"text\":\"a \\\"quoted\\\" line\\nand \u00e9\"}, get_time], the run called");
        for (ToolTrajectory.ExpectedCall call : expected.calls()) {
            assertThat(call.toString()).isEqualTo(call.name() + call.arguments().map(a -> " " + a).orElse(""));    // JsonNode's own text
        }
    }
}
