package dev.bellows.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.bellows.event.AgentEvent;
import dev.bellows.tool.LoopEndReason;
import dev.bellows.event.LoopEvent;
import dev.bellows.tool.ToolRegistry;
import dev.bellows.testkit.LogCapture;
import dev.bellows.testkit.MockScript;
import dev.bellows.testkit.ScriptedProvider;
import java.util.List;
import java.util.logging.Level;
import org.junit.jupiter.api.Test;

/** What a run does with failures that are not the model's: logged, and never hidden in a result. */
class RunDiagnosticsTest {

    private static final String DONE = "<tool>{\"tool_name\": \"task_completion\", \"arguments\": {\"result\": \"42\"}}</tool>";

    private static DefaultAgent agent(AgentListener listener) {
        return DefaultAgent.builder()
                .provider(new ScriptedProvider(MockScript.builder().content(DONE).build()))
                .model("mock").toolRegistry(new ToolRegistry()).listener(listener).build();
    }

    @Test
    void aListenersExceptionIsLoggedAtWarningAndTheRunGoesOn() {
        try (LogCapture logs = LogCapture.of("dev.bellows")) {
            AgentResult result = agent(event -> {
                if (event instanceof LoopEvent.IterationStart) {
                    throw new IllegalStateException("listener bug");
                }
            }).run("What is 40 + 2?").await();

            assertThat(result).isEqualTo(new AgentResult(LoopEndReason.TASK_COMPLETION, "42"));
            assertThat(logs.lines()).anySatisfy(line -> {
                assertThat(line.level()).isEqualTo(Level.WARNING);
                assertThat(line.message()).contains("listener").contains("iteration_start");
                assertThat(line.thrown()).hasMessage("listener bug");
            });
        }
    }

    @Test
    void aVirtualMachineErrorIsRethrownNotTurnedIntoAResult() {
        AgentRun run = agent(event -> {
            if (event instanceof LoopEvent.IterationStart) {
                throw new StackOverflowError("deep");
            }
        }).run("What is 40 + 2?");

        List<AgentEvent> events = run.events().toList();   // the readers still see the end

        assertThat(events.getLast()).isInstanceOf(LoopEvent.LoopEnd.class);
        assertThatThrownBy(run::await).isInstanceOf(StackOverflowError.class).hasMessage("deep");
    }
}
