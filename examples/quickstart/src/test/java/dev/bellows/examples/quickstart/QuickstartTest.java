package dev.bellows.examples.quickstart;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.bellows.agent.AgentResult;
import dev.bellows.tool.LoopEndReason;
import dev.bellows.testkit.MockLlmServer;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class QuickstartTest {

    @Test
    void the_agent_calls_the_tool_and_sends_its_result_back_to_the_model() throws Exception {
        ByteArrayOutputStream printed = new ByteArrayOutputStream();
        try (MockLlmServer model = MockLlmServer.start(Quickstart.SCRIPT);
             PrintStream out = new PrintStream(printed, true, StandardCharsets.UTF_8)) {
            AgentResult result = Quickstart.run(model.baseUrl().toString(), out);

            assertEquals(new AgentResult(LoopEndReason.TASK_COMPLETION, "It will be 21.5 °C in Oslo in three days."), result);
            assertEquals(2, model.requests().size());
            assertTrue(model.requests().get(1).body().toString().contains("21.5"),
                    "the second request carries the tool's result to the model");
        }
        assertEquals("""
                thinking: I need the forecast for Oslo, three days ahead.
                calling get_weather...
                get_weather -> {"city":"Oslo","days":3,"celsius":21.5}
                calling task_completion...
                task_completion: It will be 21.5 °C in Oslo in three days.
                """, printed.toString(StandardCharsets.UTF_8));
    }

    @Test
    void main_runs_against_its_own_mock_server() throws Exception {
        PrintStream original = System.out;
        ByteArrayOutputStream printed = new ByteArrayOutputStream();
        System.setOut(new PrintStream(printed, true, StandardCharsets.UTF_8));
        try {
            Quickstart.main(new String[0]);
        } finally {
            System.setOut(original);
        }
        assertTrue(printed.toString(StandardCharsets.UTF_8).endsWith("task_completion: It will be 21.5 °C in Oslo in three days."
                + System.lineSeparator()));
    }
}
