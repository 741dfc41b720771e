package dev.bellows.docs;

import dev.bellows.json.internal.Jackson;
import static org.assertj.core.api.Assertions.assertThat;

import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.node.ObjectNode;
import dev.bellows.format.Observation;
import dev.bellows.tool.chain.ToolChain;
import dev.bellows.tool.chain.ToolChainResult;
import dev.bellows.format.XmlFormat;
import dev.bellows.tool.Description;
import dev.bellows.tool.Tool;
import dev.bellows.tool.ToolCall;
import dev.bellows.tool.ToolRegistry;
import dev.bellows.tool.ToolResult;
import dev.bellows.tool.TypedTool;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The schema and the errors docs/tools.md shows for its read_file tool, as the library makes them. */
class ToolsGuideTest {

    private static final ObjectMapper JSON = Jackson.JSON;

    @Description("A file to read, and which of its lines")
    record ReadFile(@Description("Path relative to the project") String path,
                    @Description("First line, from 1") Optional<Integer> from,
                    Optional<Integer> count) {
    }

    private final Tool readFile = TypedTool.of("read_file", "Reads lines of a text file.", ReadFile.class,
            (context, arguments) -> ToolResult.of(arguments.path() + " " + arguments.from().orElseThrow() + " "
                    + arguments.count().orElseThrow()));

    @Test
    void theSchemaIsThePagesSchema() throws Exception {
        assertThat(readFile.inputSchema()).isEqualTo(JSON.readTree("""
                {"type":"object","description":"A file to read, and which of its lines",
                 "properties":{"path":{"type":"string","description":"Path relative to the project"},
                               "from":{"type":"integer","description":"First line, from 1"},
                               "count":{"type":"integer"}},
                 "required":["path"],"additionalProperties":false}"""));
    }

    @Test
    void theThreeCallsGetThePagesAnswers() throws Exception {
        ToolChain chain = new ToolChain(new ToolRegistry().register(readFile));
        ToolChainResult result = chain.execute(List.of(
                new ToolCall("local", "read_file", (ObjectNode) JSON.readTree("{\"path\": \"README.md\", \"from\": \"1\", \"count\": 2.0}")),
                new ToolCall("local", "read_fil", (ObjectNode) JSON.readTree("{\"path\": \"a.txt\"}")),
                new ToolCall("local", "read_file", (ObjectNode) JSON.readTree("{\"file\": \"a.txt\"}"))));

        assertThat(Observation.format(new XmlFormat(), result.outcomes()))
                .contains("README.md 1 2")
                .contains("unknown tool \"read_fil\" on server \"local\" (did you mean \"read_file\"?); available: local: read_file")
                .contains("invalid arguments for read_file: \"file\": unknown property; the properties are \"path\", \"from\","
                        + " \"count\"; \"path\": required but missing."
                        + " Expected arguments: {\"path\": string, \"from\"?: integer, \"count\"?: integer}");
    }
}
