package dev.bellows.cli;

import static org.assertj.core.api.Assertions.assertThat;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@code bellows parse} through the real stream processor: the expected events are written
 * from stream-contract.md. Every test here needs {@code dev.bellows.stream.StreamProcessor}.
 */
class ParseEndToEndTest {

    /** Provider-typed thinking, a message, a tool call with whitespace around it, more message. */
    static final String[] SIMPLE = {
            "{\"type\": \"thinking\", \"content\": \"The user wants a greeting.\"}",
            "{\"content\": \"Hello\"}",
            "{\"content\": \" <tool>{\\\"name\\\": \\\"greet\\\", \\\"arguments\\\": {\\\"who\\\": \\\"world\\\"}}</tool>\"}",
            "{\"content\": \" Done.\"}"};

    static final List<JsonNode> SIMPLE_EVENTS = Cli.lines(
            "{\"type\":\"thinking_start\",\"chunk\":0,\"name\":\"thinking\",\"attributes\":{}}",
            "{\"type\":\"thinking_content\",\"chunk\":0,\"content\":\"The user wants a greeting.\"}",
            "{\"type\":\"thinking_end\",\"chunk\":1,\"content\":\"The user wants a greeting.\"}",
            "{\"type\":\"message_start\",\"chunk\":1}",
            "{\"type\":\"message_content\",\"chunk\":1,\"content\":\"Hello\"}",
            "{\"type\":\"message_end\",\"chunk\":2,\"content\":\"Hello\"}",
            "{\"type\":\"tool_call_start\",\"chunk\":2,\"name\":\"tool\",\"attributes\":{}}",
            "{\"type\":\"tool_call_name\",\"chunk\":2,\"tool_name\":\"greet\"}",
            "{\"type\":\"tool_call_content\",\"chunk\":2,\"content\":\"{\\\"name\\\": \\\"greet\\\", \\\"arguments\\\": {\\\"who\\\": \\\"world\\\"}}\"}",
            "{\"type\":\"tool_call_end\",\"chunk\":2,\"content\":\"{\\\"name\\\": \\\"greet\\\", \\\"arguments\\\": {\\\"who\\\": \\\"world\\\"}}\","
                    + "\"server_name\":\"local\",\"tool_name\":\"greet\",\"arguments\":{\"who\":\"world\"}}",
            "{\"type\":\"message_start\",\"chunk\":3}",
            "{\"type\":\"message_content\",\"chunk\":3,\"content\":\" Done.\"}",
            "{\"type\":\"message_end\",\"chunk\":4,\"content\":\" Done.\"}",
            "{\"type\":\"complete\",\"chunk\":4,\"message\":\"Hello Done.\","
                    + "\"thinking\":[{\"name\":\"thinking\",\"content\":\"The user wants a greeting.\",\"attributes\":{}}],"
                    + "\"tool_calls\":[{\"server_name\":\"local\",\"tool_name\":\"greet\",\"arguments\":{\"who\":\"world\"}}]}");

    private static String jsonl(String... lines) {
        return String.join("\n", lines) + "\n";
    }

    @Test
    void oneEventPerLineWithTypeAndChunk() {
        Cli.Run run = Cli.run(jsonl(SIMPLE), "parse");
        assertThat(run.err()).isEmpty();
        assertThat(run.status()).isZero();
        assertThat(run.out()).endsWith("\n");
        List<JsonNode> events = run.outJson();
        // Compact JSON, one event per line: each line is exactly its value written compactly.
        assertThat(run.out().split("\n")).containsExactlyElementsOf(events.stream().map(Object::toString).toList());
        assertThat(events).allSatisfy(e -> assertThat(e.propertyNames().iterator().next()).isEqualTo("type"));
        assertThat(Cli.normalized(events)).containsExactlyElementsOf(SIMPLE_EVENTS);
    }

    @Test
    void blankLinesAreSkippedAndAreNotChunks() {
        String withBlanks = "\n" + SIMPLE[0] + "\n   \n\t\r\n" + SIMPLE[1] + "\r\n\n" + SIMPLE[2] + "\n" + SIMPLE[3] + "\n\n";
        Cli.Run plain = Cli.run(jsonl(SIMPLE), "parse");
        Cli.Run blanks = Cli.run(withBlanks, "parse");
        assertThat(blanks.status()).isZero();
        assertThat(blanks.out()).isEqualTo(plain.out());
    }

    @Test
    void eachChunksEventsAreWrittenBeforeTheNextLineIsRead() {
        List<String> seenBeforeLine = new ArrayList<>();
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        byte[][] lines = new byte[SIMPLE.length][];
        for (int i = 0; i < lines.length; i++) {
            lines[i] = (SIMPLE[i] + "\n").getBytes(StandardCharsets.UTF_8);
        }
        InputStream oneLinePerRead = new InputStream() {
            private int next;

            @Override
            public int read() {
                throw new AssertionError("read byte by byte");
            }

            @Override
            public int read(byte[] b, int off, int len) {
                seenBeforeLine.add(out.toString(StandardCharsets.UTF_8));
                if (next == lines.length) {
                    return -1;
                }
                byte[] line = lines[next++];
                System.arraycopy(line, 0, b, off, line.length);
                return line.length;
            }
        };
        Cli.Run run = Cli.run(oneLinePerRead, out, "parse");
        assertThat(run.status()).isZero();
        // Before line 2 (chunk 1) is read, chunk 0's events are out: the thinking block has begun.
        List<JsonNode> beforeSecondLine = new Cli.Run(0, seenBeforeLine.get(1), "").outJson();
        assertThat(Cli.normalized(beforeSecondLine)).containsExactlyElementsOf(SIMPLE_EVENTS.subList(0, 2));
        // Before the end of input is seen, everything up to chunk 3's message text is out.
        List<JsonNode> beforeEnd = new Cli.Run(0, seenBeforeLine.get(4), "").outJson();
        assertThat(Cli.normalized(beforeEnd)).containsExactlyElementsOf(SIMPLE_EVENTS.subList(0, 12));
    }

    @Test
    void batchWritesOneArrayPerStream() {
        String stream = "{\"chunks\": [" + String.join(", ", SIMPLE) + "]}";
        Cli.Run run = Cli.run(stream + "\n\n{\"chunks\": []}\n", "parse", "--batch");
        assertThat(run.err()).isEmpty();
        assertThat(run.status()).isZero();
        List<JsonNode> lines = run.outJson();
        assertThat(lines).hasSize(2);
        assertThat(Cli.normalized((ArrayNode) lines.get(0))).containsExactlyElementsOf(SIMPLE_EVENTS);
        assertThat(lines.get(1)).isEqualTo(Cli.json(
                "[{\"type\":\"complete\",\"chunk\":0,\"message\":\"\",\"thinking\":[],\"tool_calls\":[]}]"));
    }

    @Test
    void noInputIsAnEmptyStream() {
        Cli.Run run = Cli.run("", "parse");
        assertThat(run.status()).isZero();
        assertThat(run.outJson()).containsExactlyElementsOf(Cli.lines(
                "{\"type\":\"complete\",\"chunk\":0,\"message\":\"\",\"thinking\":[],\"tool_calls\":[]}"));
    }

    @Test
    void thinkingOpenStartsInsideAThinkBlockEvenWithoutChunks() {
        Cli.Run run = Cli.run("\n", "parse", "--thinking-open");
        assertThat(run.status()).isZero();
        assertThat(Cli.normalized(run.outJson())).containsExactlyElementsOf(Cli.lines(
                "{\"type\":\"thinking_start\",\"chunk\":0,\"name\":\"think\",\"attributes\":{}}",
                "{\"type\":\"thinking_end\",\"chunk\":0,\"content\":\"\"}",
                "{\"type\":\"complete\",\"chunk\":0,\"message\":\"\","
                        + "\"thinking\":[{\"name\":\"think\",\"content\":\"\",\"attributes\":{}}],\"tool_calls\":[]}"));
    }

    @Test
    void thinkingTagsReplaceTheDefaults() {
        Cli.Run run = Cli.run("{\"content\": \"<a k=v>x</a><thinking>y\"}\n", "parse", "--thinking-tags", "a,b");
        assertThat(run.status()).isZero();
        JsonNode complete = last(run);
        assertThat(complete.get("thinking")).isEqualTo(Cli.json("[{\"name\":\"a\",\"content\":\"x\",\"attributes\":{\"k\":\"v\"}}]"));
        assertThat(complete.get("message").asString()).isEqualTo("<thinking>y");
    }

    @Test
    void toolTagsReplaceTheDefaults() {
        Cli.Run run = Cli.run("{\"content\": \"<call>{\\\"name\\\": \\\"t\\\"}</call><tool>x</tool>\"}\n",
                "parse", "--tool-tags", "call");
        assertThat(run.status()).isZero();
        JsonNode complete = last(run);
        assertThat(complete.get("tool_calls")).isEqualTo(Cli.json("[{\"server_name\":\"local\",\"tool_name\":\"t\",\"arguments\":{}}]"));
        assertThat(complete.get("message").asString()).isEqualTo("<tool>x</tool>");
    }

    @Test
    void argumentEventsComeInTheChunkThatCompletesEachValueAndChangeNothingElse() {
        String input = jsonl("{\"content\": \"<tool>{\\\"name\\\": \\\"write_file\\\", \\\"arguments\\\": {\\\"path\\\": \\\"a.txt\\\", \\\"content\\\": \\\"x\"}",
                "{\"content\": \"y\\\"}}</tool>\"}");
        Cli.Run on = Cli.run(input, "parse", "--argument-events");
        Cli.Run off = Cli.run(input, "parse");
        assertThat(on.status()).isZero();
        assertThat(on.err()).isEmpty();
        assertThat(on.outJson()).filteredOn(e -> e.get("type").asString().equals("tool_call_argument")).containsExactly(
                Cli.json("{\"type\":\"tool_call_argument\",\"chunk\":0,\"name\":\"path\",\"value\":\"a.txt\"}"),
                Cli.json("{\"type\":\"tool_call_argument\",\"chunk\":1,\"name\":\"content\",\"value\":\"xy\"}"));
        assertThat(on.outJson()).filteredOn(e -> !e.get("type").asString().equals("tool_call_argument"))
                .containsExactlyElementsOf(off.outJson());
        assertThat(off.outJson()).noneMatch(e -> e.get("type").asString().equals("tool_call_argument"));
        // with --batch, and with a dialect
        Cli.Run batch = Cli.run("{\"chunks\": [{\"content\": \"<tool_call>get_weather<arg_key>city</arg_key><arg_value>"
                + "Paris</arg_value></tool_call>\"}]}\n", "parse", "--batch", "--dialect", "glm45", "--argument-events");
        assertThat(batch.status()).isZero();
        assertThat(batch.out()).contains("{\"type\":\"tool_call_argument\",\"chunk\":0,\"name\":\"city\",\"value\":\"Paris\"}");
    }

    @Test
    void toolEndsThinkingEndsTheReasoningAtAToolTag() {
        Cli.Run run = Cli.run("{\"content\": \"<think>r<tool_call>{\\\"name\\\": \\\"t\\\"}</tool_call></think>\"}\n",
                "parse", "--tool-ends-thinking");
        assertThat(run.status()).isZero();
        JsonNode complete = last(run);
        assertThat(complete.get("thinking")).isEqualTo(Cli.json("[{\"name\":\"think\",\"content\":\"r\",\"attributes\":{}}]"));
        assertThat(complete.get("tool_calls")).isEqualTo(Cli.json("[{\"server_name\":\"local\",\"tool_name\":\"t\",\"arguments\":{}}]"));
        assertThat(complete.get("message").asString()).isEqualTo("</think>");
    }

    @Test
    void aBadLineKeepsTheEventsOfTheLinesBeforeIt() {
        Cli.Run run = Cli.run(SIMPLE[0] + "\n\n{\"type\": \"foo\", \"content\": \"\"}\n" + SIMPLE[1] + "\n", "parse");
        assertThat(run.status()).isEqualTo(2);
        assertThat(run.err()).isEqualTo("bellows parse: line 3: unknown chunk type \"foo\" (use \"message\" or \"thinking\")"
                + System.lineSeparator());
        assertThat(Cli.normalized(run.outJson())).containsExactlyElementsOf(SIMPLE_EVENTS.subList(0, 2));
    }

    @Test
    void aBadBatchLineKeepsTheArraysOfTheLinesBeforeIt() {
        Cli.Run run = Cli.run("{\"chunks\": []}\n{\"chunks\": [{}]}\n", "parse", "--batch");
        assertThat(run.status()).isEqualTo(2);
        assertThat(run.err()).isEqualTo("bellows parse: line 2: chunks[0]: missing \"content\" (the chunk's text, a string)"
                + System.lineSeparator());
        assertThat(run.outJson()).hasSize(1);
    }

    @Test
    void aClosedPipeEndsQuietlyWithStatusOne() {
        // As in 'bellows parse | head -1': the reader went away; nothing is wrong to report.
        Cli.Run run = Cli.run(new java.io.ByteArrayInputStream(jsonl(SIMPLE).getBytes(StandardCharsets.UTF_8)),
                failing("Broken pipe"), "parse");
        assertThat(run.status()).isEqualTo(1);
        assertThat(run.err()).isEmpty();
    }

    @Test
    void anyOtherFailingStandardOutputIsStatusOneWithOneLine() {
        Cli.Run run = Cli.run(new java.io.ByteArrayInputStream(jsonl(SIMPLE).getBytes(StandardCharsets.UTF_8)),
                failing("No space left on device"), "parse");
        assertThat(run.status()).isEqualTo(1);
        assertThat(run.err()).isEqualTo("bellows parse: cannot write to standard output: No space left on device"
                + System.lineSeparator());
    }

    @Test
    void aClosedPipeEndsTheDemoQuietlyToo() {
        Cli.Run demo = Cli.run(new java.io.ByteArrayInputStream(new byte[0]), failing("Broken pipe"),
                "demo", "--output", "jsonl");
        assertThat(demo.status()).isEqualTo(1);
        assertThat(demo.err()).isEmpty();
    }

    private static OutputStream failing(String message) {
        return new OutputStream() {
            @Override
            public void write(int b) throws IOException {
                throw new IOException(message);
            }

            @Override
            public void write(byte[] b, int off, int len) throws IOException {
                throw new IOException(message);
            }
        };
    }

    @Test
    void theExampleStreamParses() throws IOException {
        Cli.Run run = Cli.run(Files.readString(Path.of("..", "examples", "stream.jsonl")), "parse");
        assertThat(run.err()).isEmpty();
        assertThat(run.status()).isZero();
        JsonNode complete = last(run);
        assertThat(complete.get("chunk").asInt()).isEqualTo(10);
        assertThat(complete.get("message").asString()).isEqualTo(
                "Comparing the two values: a < b holds for a = 3 and b = 7, so the smaller one is a.\n\n"
                        + "Saving that now.\nDone: answer.txt now says min(3, 7) = 3.");
        assertThat(complete.get("tool_calls")).isEqualTo(Cli.json("[{\"server_name\":\"local\",\"tool_name\":\"write_file\","
                + "\"arguments\":{\"path\":\"answer.txt\",\"text\":\"min(3, 7) = 3\\n\"}}]"));
        assertThat(complete.get("thinking")).hasSize(2);
        // The name is known in the chunk that completes it, long before the block closes.
        assertThat(run.outJson()).filteredOn(e -> e.get("type").asString().equals("tool_call_name"))
                .singleElement().isEqualTo(Cli.json("{\"type\":\"tool_call_name\",\"chunk\":5,\"tool_name\":\"write_file\"}"));
    }

    private static JsonNode last(Cli.Run run) {
        List<JsonNode> events = run.outJson();
        JsonNode complete = events.get(events.size() - 1);
        assertThat(complete.get("type").asString()).isEqualTo("complete");
        return complete;
    }
}
