package dev.bellows.eval;

import tools.jackson.databind.JsonNode;
import static org.assertj.core.api.Assertions.assertThat;

import dev.bellows.agent.DefaultAgent;
import dev.bellows.eval.report.EvalReports;
import dev.bellows.testkit.MockScript;
import dev.bellows.testkit.MockTurn;
import dev.bellows.testkit.ScriptedProvider;
import dev.bellows.tool.ToolRegistry;
import dev.bellows.tool.annotation.Tool;
import dev.bellows.tool.annotation.ToolParam;
import java.nio.file.Files;
import java.nio.file.Path;
import javax.xml.XMLConstants;
import javax.xml.parsers.DocumentBuilderFactory;
import javax.xml.transform.stream.StreamSource;
import javax.xml.validation.SchemaFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.w3c.dom.Element;

/**
 * The report files of a real evaluation: the runner's report.json and events files, as
 * {@code bellows eval} writes them, made into JUnit XML and the HTML page by the report writers,
 * which know only the JSON.
 */
class RunReportsTest {

    public static final class Weather {
        @Tool(description = "The weather in a city")
        public String get_weather(@ToolParam(description = "the city") String city) {
            return city + ": 5 °C, cloudy <b>";
        }
    }

    private static String call(String tool, String arguments) {
        return "<tool>{\"tool_name\": \"" + tool + "\", \"arguments\": " + arguments + "}</tool>";
    }

    @Test
    void theRunnersReportBecomesJunitXmlAndAPageWithEveryTranscript(@TempDir Path dir) throws Exception {
        Path dataset = Files.writeString(dir.resolve("weather.jsonl"), """
                {"id": "oslo", "input": "Weather in Oslo?", "expect": {"contains": "Oslo", "tools": {"match": "strict", "calls": [{"name": "get_weather", "arguments": {"city": "Oslo"}}]}}}
                {"id": "paris", "input": "Capital of France?", "expect": {"contains": "Paris"}, "repeat": 2}
                """);
        Path out = Files.createDirectories(dir.resolve("eval-out"));
        EvalReport report = EvalRunner.builder((evalCase, probe) -> {
            MockScript script = evalCase.id().equals("oslo")
                    ? MockScript.of(MockTurn.content("<thinking>I look it up.</thinking>" + call("get_weather", "{\"city\": \"Oslo\"}")),
                            MockTurn.content(call("task_completion", "{\"result\": \"Oslo: 5 °C, cloudy.\"}")))
                    : MockScript.of(MockTurn.content(call("task_completion", "{\"result\": \""
                            + (probe.index() == 1 ? "Lyon <script>x()</script>" : "Paris") + "\"}")));
            return probe.install(DefaultAgent.builder().provider(new ScriptedProvider(script)).model("mock")
                    .toolRegistry(new ToolRegistry().registerMethods(new Weather()))).build();
        }).outputDirectory(out).model("mock").build().run(Dataset.read(dataset));
        JsonNode json = ReportJson.toJson(report);
        ReportJson.WRITER.write(json, out);

        Path xml = EvalReports.writeJunitXml(out.resolve(ReportJson.FILE));
        SchemaFactory schemas = SchemaFactory.newInstance(XMLConstants.W3C_XML_SCHEMA_NS_URI);
        schemas.newSchema(new StreamSource(getClass().getResource("report/junit.xsd").toString())).newValidator()
                .validate(new StreamSource(xml.toFile()));
        Element paris = (Element) DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(xml.toFile())
                .getElementsByTagName("testcase").item(1);
        assertThat(paris.getAttribute("name")).isEqualTo("paris");
        assertThat(paris.getElementsByTagName("failure").item(0).getTextContent())
                .startsWith("contains (run 1): ").contains("Paris");

        String page = Files.readString(EvalReports.writeHtml(out.resolve(ReportJson.FILE)));
        assertThat(page).contains("<title>" + dataset + ": 1 of 2 passed</title>")
                // the transcripts, from the runner's events file, as data for the page's script
                .contains("\"tool_name\":\"get_weather\",\"arguments\":{\"city\":\"Oslo\"}")
                .contains("Oslo: 5 °C, cloudy \\u003cb>")
                .contains("{\"type\":\"thinking_end\",\"content\":\"I look it up.\"")
                .contains("Lyon &lt;script&gt;x()&lt;/script&gt;")
                .doesNotContain("class=\"t-problem\"", "<script>x()");      // every events file found and read
    }
}
