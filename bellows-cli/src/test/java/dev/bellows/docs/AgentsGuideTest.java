package dev.bellows.docs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bellows.agent.AgentResult;
import dev.bellows.agent.AgentTool;
import dev.bellows.agent.DefaultAgent;
import dev.bellows.event.AgentEvent;
import dev.bellows.event.LoopEvent;
import dev.bellows.provider.Provider;
import dev.bellows.testkit.MockScript;
import dev.bellows.testkit.MockTurn;
import dev.bellows.testkit.ScriptedProvider;
import dev.bellows.tool.ToolRegistry;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The example of docs/agents.md runs and prints what the page says (DocumentationSnippetsTest compiles it). */
class AgentsGuideTest {

    @Test
    void theLeadAnswersWithTheResearchersHelpAndHearsItsEventsNamed() {
        Provider researcherModel = new ScriptedProvider(MockScript.of(
                MockTurn.content("<tool>{\"tool_name\": \"task_completion\", \"arguments\": {\"result\": \"100 C at sea level\"}}</tool>")));
        Provider leadModel = new ScriptedProvider(MockScript.of(
                MockTurn.content("<tool>{\"tool_name\": \"researcher\", \"arguments\": {\"task\": \"When does water boil?\"}}</tool>"),
                MockTurn.content("<tool>{\"tool_name\": \"task_completion\", \"arguments\": {\"result\": \"Water boils at 100 C.\"}}</tool>")));

        DefaultAgent researcher = DefaultAgent.builder().provider(researcherModel).model("mock")
                .instructions("You find facts.").build();
        List<AgentEvent> events = new ArrayList<>();
        DefaultAgent lead = DefaultAgent.builder().provider(leadModel).model("mock")
                .instructions("You plan and delegate.")
                .toolRegistry(new ToolRegistry().register(AgentTool.of("researcher", "Finds facts", researcher)))
                .listener(events::add)
                .build();

        AgentResult result = lead.runBlocking("Tell me when water boils");

        assertThat(result.result()).isEqualTo("Water boils at 100 C.");
        List<LoopEvent.SubAgentEvent> nested = events.stream().filter(LoopEvent.SubAgentEvent.class::isInstance)
                .map(LoopEvent.SubAgentEvent.class::cast).toList();
        assertThat(nested).extracting(LoopEvent.SubAgentEvent::agent).containsOnly("researcher");
        assertThat(nested.getFirst().innermost().type()).isEqualTo("loop_start");
        assertThat(nested.getLast().innermost().type()).isEqualTo("loop_end");
        assertThat(nested).extracting(LoopEvent.SubAgentEvent::parentCallId).containsOnly(nested.getFirst().parentCallId());
    }
}
