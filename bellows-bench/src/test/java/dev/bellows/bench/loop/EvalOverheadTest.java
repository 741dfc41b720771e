package dev.bellows.bench.loop;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bellows.agent.DefaultAgent;
import dev.bellows.eval.Dataset;
import dev.bellows.openai.OpenAiProvider;
import dev.bellows.tool.ToolRegistry;
import dev.bellows.tool.ToolResult;
import dev.bellows.tool.TypedTool;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The harness benchmark's two ways do what they say, on a few cases (never a figure). */
class EvalOverheadTest {

    @Test
    void bothWaysRunEveryCaseToItsAnswerAndTheHarnessWritesTheThreeFiles(@TempDir Path dir) throws Exception {
        Path dataset = EvalOverhead.writeDataset(dir.resolve("dataset.jsonl"), 6);
        assertThat(Dataset.read(dataset).cases()).hasSize(6);
        try (JdkServerMock mock = JdkServerMock.start(JdkServerMock.Framing.LENGTH, 1, 1, 0);
             OpenAiProvider provider = OpenAiProvider.builder().baseUrl(mock.baseUrl()).build()) {
            ToolRegistry tools = new ToolRegistry().register(TypedTool.of("add", "Adds two integers", BellowsAgent.AddArguments.class,
                    (context, arguments) -> ToolResult.of("sum=" + (arguments.a() + arguments.b()))));
            DefaultAgent agent = DefaultAgent.builder().provider(provider).model("mock").toolRegistry(tools).build();
            EvalOverhead.plain(agent, null, 6, 3);                 // throws if a run ends without its answer
            long requests = mock.requests();
            assertThat(requests).isEqualTo(12);                    // two model calls a run

            Path out = Files.createDirectories(dir.resolve("out"));
            EvalOverhead.harness(dataset, out, provider, tools, 3, true);    // throws if a case fails
            assertThat(mock.requests() - requests).isEqualTo(12);
            assertThat(out.resolve("report.json")).isNotEmptyFile();
            assertThat(out.resolve("junit.xml")).content().contains("tests=\"6\" failures=\"0\"");
            assertThat(out.resolve("report.html")).content().contains("sum-0006",
                    "<script type=\"application/json\" class=\"t-events\">", "\"tool_name\":\"add\",\"arguments\":{\"a\":2,\"b\":3}");  // the transcripts' events
        }
    }
}
