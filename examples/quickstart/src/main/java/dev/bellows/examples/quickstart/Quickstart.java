package dev.bellows.examples.quickstart;

import dev.bellows.agent.Agent;
import dev.bellows.agent.AgentResult;
import dev.bellows.agent.DefaultAgent;
import dev.bellows.event.LoopEvent;
import dev.bellows.event.StreamEvent;
import dev.bellows.openai.OpenAiProvider;
import dev.bellows.provider.Provider;
import dev.bellows.testkit.MockLlmServer;
import dev.bellows.testkit.MockScript;
import dev.bellows.testkit.MockTurn;
import dev.bellows.tool.Description;
import dev.bellows.tool.Tool;
import dev.bellows.tool.ToolRegistry;
import dev.bellows.tool.ToolResult;
import dev.bellows.tool.TypedTool;
import java.io.PrintStream;

/**
 * An agent with a tool of its own, against a scripted model served over HTTP on 127.0.0.1:
 * no model, no key, no network. Against a real server, change the base URL and the model
 * (Ollama: {@code http://localhost:11434/v1}, {@code llama3.1}).
 *
 * <pre>
 * thinking: I need the forecast for Oslo, three days ahead.
 * calling get_weather...
 * get_weather -> {"city":"Oslo","days":3,"celsius":21.5}
 * calling task_completion...
 * task_completion: It will be 21.5 °C in Oslo in three days.
 * </pre>
 */
public final class Quickstart {

    @Description("Where and when to forecast")
    record WeatherQuery(@Description("City name, e.g. Oslo") String city,
                        @Description("Days ahead, 0 for today") int days) { }

    record Forecast(String city, int days, double celsius) { }

    /** The custom tool: a record for its arguments, a lambda for what it does. */
    static Tool weatherTool() {
        return TypedTool.of("get_weather", "Weather forecast for a city", WeatherQuery.class,
                (context, query) -> ToolResult.of(new Forecast(query.city(), query.days(), 18.5 + query.days())));
    }

    /** What the scripted model answers: first a call of the tool, then the end of the task. */
    static final MockScript SCRIPT = MockScript.of(
            MockTurn.content("<thinking>I need the forecast for Oslo, three days ahead.</thinking>\n"
                    + "<tool>{\"tool_name\": \"get_weather\", \"arguments\": {\"city\": \"Oslo\", \"days\": 3}}</tool>"),
            MockTurn.content("<tool>{\"tool_name\": \"task_completion\", "
                    + "\"arguments\": {\"result\": \"It will be 21.5 °C in Oslo in three days.\"}}</tool>"));

    private Quickstart() {
    }

    public static void main(String[] args) throws Exception {
        try (MockLlmServer model = MockLlmServer.start(SCRIPT)) {
            run(model.baseUrl().toString(), System.out);
        }
    }

    /** Runs the agent against the OpenAI-compatible server at {@code baseUrl}, printing what it does. */
    static AgentResult run(String baseUrl, PrintStream out) {
        Provider provider = OpenAiProvider.builder().baseUrl(baseUrl).build();
        Agent agent = DefaultAgent.builder()
                .provider(provider)
                .model("mock")
                .instructions("You answer questions about the weather.")
                .toolRegistry(new ToolRegistry().register(weatherTool()))
                .listener(event -> {
                    switch (event) {
                        case StreamEvent.ThinkingEnd thought -> out.println("thinking: " + thought.content());
                        case StreamEvent.ToolCallName name -> out.println("calling " + name.toolName() + "...");
                        case LoopEvent.ToolResultEvent result when !result.toolName().equals("task_completion") ->
                                out.println(result.toolName() + " -> " + result.result());
                        default -> { }
                    }
                })
                .build();
        AgentResult result = agent.run("Will it be warm in Oslo in three days?").await();
        out.println(result.reason().wireName() + ": " + result.result());
        return result;
    }
}
