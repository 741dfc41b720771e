package dev.bellows.docs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.bellows.agent.AgentResult;
import dev.bellows.agent.AgentTool;
import dev.bellows.agent.Decision;
import dev.bellows.agent.DefaultAgent;
import dev.bellows.agent.Session;
import dev.bellows.tool.LoopEndReason;
import dev.bellows.tool.Tool;
import dev.bellows.tool.ToolResult;
import dev.bellows.tool.TypedTool;
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

    /** The page's nested wait: the writer's call waits, the whole run stops, the resume runs it once. */
    @Test
    void aSubAgentsCallWaitsForTheWholeRunAndTheResumeRunsItOnce() {
        record NoteFile(String path) { }

        List<String> written = new ArrayList<>();
        Tool writeFile = TypedTool.of("write_file", "Writes a file", NoteFile.class, (context, args) -> {
            written.add(args.path());
            return ToolResult.of("wrote " + args.path());
        });
        Provider writerModel = new ScriptedProvider(MockScript.of(
                MockTurn.content("<tool>{\"tool_name\": \"write_file\", \"arguments\": {\"path\": \"notes.md\"}}</tool>"),
                MockTurn.content("<tool>{\"tool_name\": \"task_completion\", \"arguments\": {\"result\": \"notes.md written\"}}</tool>")));
        Provider bossModel = new ScriptedProvider(MockScript.of(
                MockTurn.content("<tool>{\"tool_name\": \"writer\", \"arguments\": {\"task\": \"Write notes.md\"}}</tool>"),
                MockTurn.content("<tool>{\"tool_name\": \"task_completion\", \"arguments\": {\"result\": \"notes written\"}}</tool>")));

        DefaultAgent writer = DefaultAgent.builder().provider(writerModel).model("mock")
                .toolRegistry(new ToolRegistry().register(writeFile))
                .requireApproval("local/write_file").build();
        DefaultAgent boss = DefaultAgent.builder().provider(bossModel).model("mock")
                .toolRegistry(new ToolRegistry().register(AgentTool.of("writer", "Writes files", writer))).build();

        Session session = new Session();
        AgentResult stopped = boss.run("Write the notes", session).await();
        assertThat(stopped.reason()).isEqualTo(LoopEndReason.INTERRUPTED);
        assertThat(stopped.waiting().getFirst().id()).isEqualTo("call_1_1/call_1_1");
        assertThat(written).isEmpty();
        AgentResult done = boss.resume(session, List.of(Decision.approve("call_1_1/call_1_1"))).await();
        assertThat(done.result() + " " + written).isEqualTo("notes written [notes.md]");
    }
}
