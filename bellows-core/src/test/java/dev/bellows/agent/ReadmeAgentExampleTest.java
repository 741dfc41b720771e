package dev.bellows.agent;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bellows.tool.LoopEndReason;
import dev.bellows.event.StreamEvent;
import dev.bellows.provider.Provider;
import dev.bellows.tool.Description;
import dev.bellows.tool.ToolRegistry;
import dev.bellows.tool.ToolResult;
import dev.bellows.tool.TypedTool;
import dev.bellows.testkit.MockScript;
import dev.bellows.testkit.MockTurn;
import dev.bellows.testkit.ScriptedProvider;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** README's "Build an agent", as written there, against a scripted model. */
class ReadmeAgentExampleTest {

    record WeatherQuery(@Description("City name") String city, @Description("Days ahead") int days) { }

    record Forecast(String city, double temperature) { }

    @Test
    void theReadmeAgentRunsToCompletion() {
        Provider provider = new ScriptedProvider(MockScript.of(
                MockTurn.content("<thinking>Look it up.</thinking>\n<tool>{\"tool_name\": \"get_weather\", "
                        + "\"arguments\": {\"city\": \"Oslo\", \"days\": 3}}</tool>").chunkSize(7),
                MockTurn.content("<tool>{\"tool_name\": \"task_completion\", "
                        + "\"arguments\": {\"result\": \"Yes: 23 degrees.\"}}</tool>").chunkSize(5)));
        ToolRegistry tools = new ToolRegistry().register(TypedTool.of("get_weather", "Weather forecast for a city",
                WeatherQuery.class, (context, query) -> ToolResult.of(new Forecast(query.city(), 20.0 + query.days()))));
        List<String> shown = new ArrayList<>();

        Agent agent = DefaultAgent.builder()
                .provider(provider)
                .model("llama3.1")
                .instructions("You answer questions about the weather.")
                .toolRegistry(tools)
                .listener(event -> {
                    if (event instanceof StreamEvent.ToolCallName name) {
                        shown.add("calling " + name.toolName() + "...");
                    }
                })
                .build();

        AgentRun run = agent.run("Will it be warm in Oslo in three days?");
        AgentResult result = run.await();

        assertThat(result).isEqualTo(new AgentResult(LoopEndReason.TASK_COMPLETION, "Yes: 23 degrees."));
        // The README's last line, and the output it shows for it.
        assertThat(result.reason().wireName() + ": " + result.result()).isEqualTo("task_completion: Yes: 23 degrees.");
        assertThat(shown).containsExactly("calling get_weather...", "calling task_completion...");
    }
}
