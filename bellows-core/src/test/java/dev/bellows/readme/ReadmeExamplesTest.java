package dev.bellows.readme;

import dev.bellows.json.internal.Jackson;
import static org.assertj.core.api.Assertions.assertThat;

import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.node.ObjectNode;
import dev.bellows.event.StreamEvent;
import dev.bellows.format.Observation;
import dev.bellows.tool.chain.ToolChain;
import dev.bellows.tool.chain.ToolChainResult;
import dev.bellows.format.XmlFormat;
import dev.bellows.stream.StreamChunk;
import dev.bellows.stream.StreamOptions;
import dev.bellows.stream.StreamProcessor;
import dev.bellows.tool.BuiltinTools;
import dev.bellows.tool.Description;
import dev.bellows.tool.Tool;
import dev.bellows.tool.ToolCall;
import dev.bellows.tool.ToolRegistry;
import dev.bellows.tool.ToolResult;
import dev.bellows.tool.TypedTool;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The README's examples, as written there: if this stops compiling or passing, fix both. */
class ReadmeExamplesTest {

    enum Unit { celsius, fahrenheit }

    @Description("Where and how to report the weather")
    record WeatherQuery(@Description("City name, e.g. Oslo") String city,
                        Optional<Unit> unit,
                        @Description("Days ahead, 0 for today") List<Integer> days) { }

    record Forecast(String city, List<Double> temperatures, Unit unit) { }

    @Test
    void parseAStreamFromJava() {
        List<String> shown = new ArrayList<>();
        StreamProcessor processor = new StreamProcessor(StreamOptions.defaults(), event -> {
            switch (event) {
                case StreamEvent.MessageContent text -> shown.add("text:" + text.content());
                case StreamEvent.ThinkingContent thought -> shown.add("thought:" + thought.content());
                case StreamEvent.ToolCallName name -> shown.add("calling " + name.toolName() + "...");
                case StreamEvent.ToolCallEnd end -> shown.add("call: " + end.call());
                default -> { }
            }
        });
        for (String piece : List.of("Let me check. <to", "ol>{\"tool_name\": \"read",
                "_file\", \"arguments\": {\"path\": \"a.txt\"}}</tool>")) {
            processor.accept(StreamChunk.message(piece));
        }
        StreamEvent.Complete result = processor.finish();

        assertThat(shown).startsWith("text:Let me check.", "calling read_file...");
        assertThat(result.message()).isEqualTo("Let me check.");
        assertThat(result.toolCalls()).singleElement().isInstanceOfSatisfying(ToolCall.class,
                call -> assertThat(call.toolName()).isEqualTo("read_file"));
    }

    @Test
    void writeATool() throws Exception {
        ObjectMapper json = Jackson.JSON;

        Tool weather = TypedTool.of("get_weather", "Weather forecast for a city", WeatherQuery.class,
                (context, query) -> ToolResult.of(new Forecast(query.city(),
                        query.days().stream().map(day -> 20.0 + day).toList(),
                        query.unit().orElse(Unit.celsius))));

        ToolRegistry tools = new ToolRegistry().register(weather);
        BuiltinTools.all().forEach(tools::register);

        ToolChain chain = new ToolChain(tools);
        ToolCall toolCall = new ToolCall("local", "get_weather",
                (ObjectNode) json.readTree("{\"city\": \"Oslo\", \"days\": \"3\"}"));
        ToolChainResult result = chain.execute(List.of(toolCall));
        String forTheModel = Observation.format(new XmlFormat(), result.outcomes());
        assertThat(forTheModel).isEqualTo("""
                <observation>
                <get_weather>
                {"city":"Oslo","temperatures":[23.0],"unit":"celsius"}
                </get_weather>
                </observation>""");

        ToolCall wrong = new ToolCall("local", "get_weather",
                (ObjectNode) json.readTree("{\"city\": \"Oslo\", \"unit\": \"kelvin\"}"));
        assertThat(Observation.format(new XmlFormat(), chain.execute(List.of(wrong)).outcomes())).contains("""
                invalid arguments for get_weather: "unit": expected one of "celsius", "fahrenheit", got "kelvin"; \
                "days": required but missing. Expected arguments: \
                {"city": string, "unit"?: "celsius"|"fahrenheit", "days": integer[]}""");

        ToolCall unknown = new ToolCall("local", "get_wether", json.createObjectNode());
        assertThat(Observation.format(new XmlFormat(), chain.execute(List.of(unknown)).outcomes()))
                .contains("unknown tool \"get_wether\" on server \"local\" (did you mean \"get_weather\"?); available: ");
    }
}
