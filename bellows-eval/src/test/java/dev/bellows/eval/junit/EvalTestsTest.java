package dev.bellows.eval.junit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.bellows.agent.DefaultAgent;
import dev.bellows.eval.AgentFactory;
import dev.bellows.testkit.MockScript;
import dev.bellows.testkit.MockTurn;
import dev.bellows.testkit.ScriptedProvider;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.io.TempDir;

class EvalTestsTest {

    @TempDir
    static Path dir;

    /** The model answers "Oslo" to every task. */
    static final AgentFactory OSLO = (evalCase, probe) -> probe.install(DefaultAgent.builder().model("mock")
            .toolRegistry(new dev.bellows.tool.ToolRegistry())
            .provider(new ScriptedProvider(MockScript.of(MockTurn.content(
                    "<tool>{\"tool_name\": \"task_completion\", \"arguments\": {\"result\": \"Oslo\"}}</tool>"))))).build();

    static Path dataset(String name, String jsonl) throws Exception {
        return Files.writeString(dir.resolve(name), jsonl);
    }

    @Test
    void eachCaseIsATestThatFailsWithItsReasons() throws Throwable {
        Path file = dataset("two.jsonl", """
                {"id": "capital", "input": "Capital of Norway?", "expect": {"equals": "Oslo"}}
                {"id": "wrong", "input": "Capital of Sweden?", "expect": {"equals": "Stockholm"}, "repeat": 2}
                """);
        List<DynamicTest> tests = EvalTests.dynamicTests(file, OSLO).toList();
        assertThat(tests).extracting(DynamicTest::getDisplayName).containsExactly("capital", "wrong");
        assertThat(tests.get(1).getTestSourceUri()).hasValue(java.net.URI.create(file.toUri() + "?line=2"));

        tests.get(0).getExecutable().execute();
        assertThatThrownBy(() -> tests.get(1).getExecutable().execute()).isInstanceOf(AssertionError.class)
                .hasMessage("wrong: 0 of 2 runs passed, 100% needed\n"
                        + "  run 1: equals: expected \"Stockholm\", got \"Oslo\"\n"
                        + "  run 2: equals: expected \"Stockholm\", got \"Oslo\"");
    }

    /** As a user writes it: JUnit runs the dataset's case as a test of this class. */
    @TestFactory
    Stream<DynamicTest> aDatasetInTheSuite() throws Exception {
        return EvalTests.dynamicTests(dataset("one.jsonl",
                "{\"id\": \"oslo\", \"input\": \"Capital of Norway?\", \"expect\": {\"contains\": \"Oslo\"}}\n"), OSLO);
    }
}
