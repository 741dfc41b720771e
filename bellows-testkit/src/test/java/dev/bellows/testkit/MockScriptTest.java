package dev.bellows.testkit;

import dev.bellows.json.internal.Jackson;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class MockScriptTest {

    /** The example of cli.md, verbatim. */
    static final String SPEC_EXAMPLE = """
            {"turns": [
              {"content": "<thinking>plan</thinking>\\nHello", "chunk_size": 4},
              {"reasoning": "deep thoughts", "content": "Done.", "delay_ms": 5},
              {"status": 429, "headers": {"Retry-After": "1"}, "body": {"error": {"message": "slow down"}}},
              {"content": "This breaks off somewhere in the middle", "cut_after": 12}
            ]}""";

    @Test
    void parses_the_spec_example() throws Exception {
        MockScript script = MockScript.parse(SPEC_EXAMPLE);
        assertThat(script.turns()).containsExactly(
                MockTurn.content("<thinking>plan</thinking>\nHello").chunkSize(4),
                MockTurn.reasoning("deep thoughts").withContent("Done.").delayMs(5),
                MockTurn.status(429).header("Retry-After", "1")
                        .body(Jackson.JSON.readTree("{\"error\": {\"message\": \"slow down\"}}")),
                MockTurn.content("This breaks off somewhere in the middle").cutAfter(12));
        assertThat(script.turns().get(2).errorMessage()).hasValue("slow down");
    }

    @Test
    void defaults() {
        MockTurn turn = MockScript.parse("{\"turns\": [{\"content\": \"x\"}]}").turns().getFirst();
        assertThat(turn.chunkSize()).isEqualTo(4);
        assertThat(turn.delayMs()).isZero();
        assertThat(turn.cutAfter()).isNull();
        assertThat(turn.headers()).isEmpty();
        assertThat(MockScript.parse("{\"turns\": []}").turns()).isEmpty();
    }

    @Test
    void the_builder_makes_the_same_script() {
        assertThat(MockScript.builder().content("a").turn(MockTurn.status(500).errorMessage("boom")).build())
                .isEqualTo(MockScript.parse("""
                        {"turns": [{"content": "a"},
                                   {"status": 500, "body": {"error": {"message": "boom", "type": "server_error",
                                                                      "param": null, "code": null}}}]}"""));
    }

    @Test
    void reads_a_file(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("script.json");
        Files.writeString(file, SPEC_EXAMPLE);
        assertThat(MockScript.read(file)).isEqualTo(MockScript.parse(SPEC_EXAMPLE));
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', textBlock = """
            {"turns": [{"content": "a", "chunksize": 2}]}       | turns[0]: unknown field "chunksize"
            {"turns": [{"content": "a"}, {"content": 5}]}       | turns[1].content: must be a string, got the number 5
            {"turns": [{"content": "a", "chunk_size": 0}]}      | turns[0].chunk_size: must be at least 1, got 0
            {"turns": [{"content": "a", "chunk_size": "4"}]}    | turns[0].chunk_size: must be a whole number, got a string "4"
            {"turns": [{"content": "a", "chunk_size": 1.5}]}    | turns[0].chunk_size: must be a whole number, got the number 1.5
            {"turns": [{"content": "a", "delay_ms": -1}]}       | turns[0].delay_ms: must be 0 or more, got -1
            {"turns": [{"content": "a", "cut_after": -1}]}      | turns[0].cut_after: must be 0 or more, got -1
            {"turns": [{"status": 99}]}                         | turns[0].status: must be an HTTP status between 100 and 599, got 99
            {"turns": [{"status": 600}]}                        | turns[0].status: must be an HTTP status between 100 and 599, got 600
            {"turns": [{"status": 429, "content": "x"}]}        | turns[0]: a turn with "status" answers with "headers" and "body" only
            {"turns": [{"chunk_size": 3}]}                      | turns[0]: a turn needs "content", "reasoning" or "status"
            {"turns": [{}]}                                     | turns[0]: a turn needs "content", "reasoning" or "status"
            {"turns": [{"content": "a", "headers": {"A": "b"}}]} | turns[0]: "headers" and "body" belong to a turn with "status"
            {"turns": [{"status": 429, "headers": ["A"]}]}      | turns[0].headers: must be an object
            {"turns": [{"status": 429, "headers": {"A": true}}]} | turns[0].headers.A: must be a string, got true
            {"turns": [{"status": 429, "headers": {"A B": "x"}}]} | turns[0].headers: "A B" is not a valid header name
            {"turns": [{"reasoning": "r", "cut_after": 2}]}     | turns[0]: "cut_after" counts characters of "content"
            {"turns": [{"content": "a", "cut_after": 99999999999}]} | turns[0].cut_after: 99999999999 is out of range
            {"turns": [{"tool_calls": [{"arguments": {}}]}]}    | turns[0].tool_calls[0].name: a call needs the function's name
            {"turns": [{"tool_calls": [{"name": "f", "args": 1}]}]} | turns[0].tool_calls[0]: unknown field "args"
            {"turns": [{"tool_calls": [{"name": "f", "arguments": 1}]}]} | turns[0].tool_calls[0].arguments: must be a string
            {"turns": [{"tool_calls": {}}]}                     | turns[0].tool_calls: must be an array of calls
            {"turns": [{"status": 500, "tool_calls": [{"name": "f"}]}]} | turns[0]: a turn with "status" answers
            {"turns": ["hello"]}                                | turns[0]: a turn is a JSON object, got a string "hello"
            {"turns": {}}                                       | "turns" must be an array of turns, got an object {}
            {}                                                  | "turns" must be an array of turns, got nothing
            {"turns": [], "model": "x"}                         | unknown field "model"
            [1, 2]                                              | a script is a JSON object
            {"turns": [                                         | not valid JSON
            """)
    void errors_name_the_turn_and_field(String json, String message) {
        assertThatThrownBy(() -> MockScript.parse(json))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith(message);
    }

    @Test
    void the_java_api_validates_too() {
        assertThatThrownBy(() -> MockTurn.content("x").chunkSize(0)).hasMessageContaining("chunk_size");
        assertThatThrownBy(() -> MockTurn.status(700)).hasMessageContaining("status");
        assertThatThrownBy(() -> MockTurn.content("x").header("A", "b")).hasMessageContaining("headers");
        assertThat(MockTurn.status(404).header("X", "y").headers()).isEqualTo(Map.of("X", "y"));
    }

    @Test
    void native_tool_calls_parse_with_numbered_ids_and_their_arguments_as_text() {
        MockScript script = MockScript.parse("""
                {"turns": [
                  {"content": "Reading both.", "chunk_size": 3, "tool_calls": [
                    {"id": "call_a", "name": "read_file", "arguments": {"path": "a.txt"}},
                    {"name": "read_file", "arguments": "{\\"path\\": \\"b.txt\\"}"}]},
                  {"tool_calls": [{"name": "task_completion"}], "cut_after": 1}
                ]}""");
        assertThat(script.turns().get(0).toolCalls()).containsExactly(
                new MockToolCall("call_a", "read_file", "{\"path\":\"a.txt\"}"),
                new MockToolCall("call_2", "read_file", "{\"path\": \"b.txt\"}"));
        assertThat(script.turns().get(1)).isEqualTo(MockTurn.toolCalls(MockToolCall.of("task_completion", "{}")).cutAfter(1));
    }
}
