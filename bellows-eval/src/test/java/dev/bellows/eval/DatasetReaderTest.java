package dev.bellows.eval;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.bellows.provider.Message;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DatasetReaderTest {

    @TempDir
    Path dir;

    private Path file(String name, String text) throws IOException {
        return Files.writeString(dir.resolve(name), text);
    }

    @Test
    void readsJsonLinesWithEveryPartOfACase() throws Exception {
        Path file = file("cases.jsonl", """
                {"id": "weather-oslo", "input": "What is the weather in Oslo?", "expect": {"contains": "Oslo", "tools": {"match": "superset", "calls": [{"name": "get_weather", "arguments": {"city": "Oslo"}}]}, "max_iterations": 4, "judge": {"rubric": "Answers with a temperature.", "min_score": 0.7}}, "repeat": 3, "pass_rate": 0.66, "tags": ["weather"]}

                // a comment line, skipped
                {"id": "chat", "input": [{"role": "user", "content": "Hi"}, {"role": "assistant", "content": "Hello!"}, {"role": "user", "content": "Bye"}]}
                """);
        Dataset dataset = Dataset.read(file);

        assertThat(dataset.cases()).hasSize(2);
        EvalCase weather = dataset.cases().get(0);
        assertThat(weather.id()).isEqualTo("weather-oslo");
        assertThat(weather.task()).isEqualTo("What is the weather in Oslo?");
        assertThat(weather.history()).isEmpty();
        assertThat(weather.evaluators()).extracting(Evaluator::name)
                .containsExactly("contains", "tools", "max_iterations", "judge");
        assertThat(weather.repeat()).hasValue(3);
        assertThat(weather.requiredPassRate()).isEqualTo(0.66);
        assertThat(weather.maxIterations()).hasValue(4);
        assertThat(weather.tags()).containsExactly("weather");
        assertThat(weather.line()).isEqualTo(1);

        EvalCase chat = dataset.cases().get(1);
        assertThat(chat.line()).isEqualTo(4);
        assertThat(chat.task()).isEqualTo("Bye");
        assertThat(chat.history()).containsExactly(Message.user("Hi"), Message.assistant("Hello!"));
        assertThat(chat.repeat()).isEmpty();
        assertThat(chat.requiredPassRate()).isEqualTo(1.0);
        assertThat(chat.input().isArray()).isTrue();
    }

    @Test
    void readsYamlAsAListOfCases() throws Exception {
        Path file = file("cases.yaml", """
                - id: sum
                  input: What is 2 + 3?
                  expect:
                    equals: "5"
                    numeric: {value: 5, tolerance: 0.1}
                  tags: [math]
                - id: typed
                  input: Give the weather as JSON
                  expect:
                    schema:
                      type: object
                      required: [city]
                """);
        Dataset dataset = Dataset.read(file);
        assertThat(dataset.cases()).extracting(EvalCase::id).containsExactly("sum", "typed");
        assertThat(dataset.cases().get(0).line()).isEqualTo(1);
        assertThat(dataset.cases().get(1).line()).isEqualTo(7);
        assertThat(dataset.cases().get(0).evaluators()).extracting(Evaluator::name).containsExactly("equals", "numeric");
    }

    @Test
    void aBadFieldIsNamedWithItsFileAndLine() throws IOException {
        Path jsonl = file("bad.jsonl", """
                {"id": "a", "input": "x"}
                {"id": "b", "input": "y", "expect": {"tools": {"match": "any", "calls": []}}}
                """);
        assertThatThrownBy(() -> Dataset.read(jsonl)).isInstanceOfSatisfying(DatasetException.class, e -> {
            assertThat(e.file()).isEqualTo(jsonl);
            assertThat(e.line()).isEqualTo(2);
            assertThat(e.field()).isEqualTo("expect.tools.match");
            assertThat(e.getMessage()).isEqualTo(jsonl + ":2: expect.tools.match: must be strict, unordered, subset or"
                    + " superset, got \"any\"");
        });
    }

    @Test
    void aYamlProblemIsOnTheLineOfItsField() throws IOException {
        Path yaml = file("bad.yaml", """
                - id: a
                  input: x
                  expect:
                    tools:
                      calls:
                        - name: get_weather
                        - name: 7
                """);
        assertThatThrownBy(() -> Dataset.read(yaml)).isInstanceOfSatisfying(DatasetException.class, e -> {
            assertThat(e.line()).isEqualTo(7);
            assertThat(e.field()).isEqualTo("expect.tools.calls[1].name");
            assertThat(e.problem()).isEqualTo("must be a string");
        });
    }

    @Test
    void everyKindOfMistakeIsCaught() throws IOException {
        assertProblem("{\"id\": \"a\", \"input\": \"x\"", 1, "", "not valid JSON");
        assertProblem("[1]", 1, "", "a case must be a JSON object");
        assertProblem("{\"input\": \"x\"}", 1, "id", "missing");
        assertProblem("{\"id\": \"a\"}", 1, "input", "missing");
        assertProblem("{\"id\": \"a\", \"input\": \"x\", \"expects\": {}}", 1, "expects", "unknown field");
        assertProblem("{\"id\": \"a\", \"input\": \"x\", \"expect\": {\"contain\": \"y\"}}", 1, "expect.contain", "unknown check");
        assertProblem("{\"id\": \"a\", \"input\": \"x\", \"expect\": {\"regex\": \"(\"}}", 1, "expect.regex", "not a valid regular expression");
        assertProblem("{\"id\": \"a\", \"input\": \"x\", \"expect\": {\"schema\": {\"type\": 5}}}", 1, "expect.schema", "not a usable JSON Schema");
        assertProblem("{\"id\": \"a\", \"input\": \"x\", \"expect\": {\"judge\": {\"rubric\": \"r\", \"min_score\": 2}}}", 1,
                "expect.judge.min_score", "must be a number in 0..1");
        assertProblem("{\"id\": \"a\", \"input\": \"x\", \"expect\": {\"max_iterations\": 0}}", 1, "expect.max_iterations", "at least 1");
        assertProblem("{\"id\": \"a\", \"input\": \"x\", \"expect\": {\"max_cost\": \"cheap\"}}", 1, "expect.max_cost",
                "must be a number of at least 0");
        assertProblem("{\"id\": \"a\", \"input\": \"x\", \"repeat\": 0}", 1, "repeat", "from 1 to 10000");
        assertProblem("{\"id\": \"a\", \"input\": \"x\", \"pass_rate\": 1.5}", 1, "pass_rate", "in 0..1");
        assertProblem("{\"id\": \"a\", \"input\": [{\"role\": \"assistant\", \"content\": \"hi\"}]}", 1, "input[0].role",
                "the conversation's last message is the user's");
        assertProblem("{\"id\": \"a\", \"input\": [{\"role\": \"bot\", \"content\": \"hi\"}]}", 1, "input[0].role", "must be user");
        assertProblem("{\"id\": \"a\", \"input\": \"x\"}\n{\"id\": \"a\", \"input\": \"y\"}", 2, "id", "the case on line 1 too");
        assertProblem("", 1, "", "no cases");
    }

    private void assertProblem(String text, int line, String field, String problem) throws IOException {
        Path file = file("case.jsonl", text);
        assertThatThrownBy(() -> Dataset.read(file)).as(text).isInstanceOfSatisfying(DatasetException.class, e -> {
            assertThat(e.line()).as(text).isEqualTo(line);
            assertThat(e.field()).as(text).isEqualTo(field);
            assertThat(e.problem()).as(text).contains(problem);
        });
    }

    @Test
    void customExpectationKeysAreReadByTheirFactory() throws Exception {
        Path file = file("custom.jsonl", "{\"id\": \"a\", \"input\": \"x\", \"expect\": {\"shorter_than\": 10}}\n");
        DatasetReader reader = new DatasetReader().expectation("shorter_than", spec -> {
            if (!spec.isInt()) {
                throw new ExpectationException("must be a number");
            }
            int max = spec.asInt();
            return Evaluator.of("shorter_than", run -> run.answer().length() < max
                    ? Score.pass("shorter_than", "short") : Score.fail("shorter_than", "long"));
        });
        assertThat(reader.read(file).cases().getFirst().evaluators()).extracting(Evaluator::name).containsExactly("shorter_than");

        Path bad = file("bad.jsonl", "{\"id\": \"a\", \"input\": \"x\", \"expect\": {\"shorter_than\": \"ten\"}}\n");
        assertThatThrownBy(() -> reader.read(bad)).hasMessage(bad + ":1: expect.shorter_than: must be a number");
        assertThatThrownBy(() -> Dataset.read(file)).hasMessageContaining("expect.shorter_than: unknown check");
    }

    @Test
    void aByteOrderMarkBeforeTheFirstCaseIsNotAMistake() throws Exception {
        Path file = file("bom.jsonl", "\uFEFF{\"id\": \"a\", \"input\": \"x\"}\n");
        assertThat(Dataset.read(file).cases()).extracting(EvalCase::id).containsExactly("a");
    }

    @Test
    void noToolErrorsFalseAsksForNothing() throws Exception {
        Path file = file("c.jsonl", "{\"id\": \"a\", \"input\": \"x\", \"expect\": {\"no_tool_errors\": false}}\n");
        assertThat(Dataset.read(file).cases().getFirst().evaluators()).isEmpty();
    }
}
