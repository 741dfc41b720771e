package dev.bellows.agent;

import static dev.bellows.agent.DefaultAgentTest.agent;
import static dev.bellows.agent.DefaultAgentTest.call;
import static dev.bellows.agent.DefaultAgentTest.complete;
import static dev.bellows.agent.DefaultAgentTest.provider;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.bellows.event.AgentEvent;
import dev.bellows.event.EventJson;
import dev.bellows.tool.LoopEndReason;
import dev.bellows.event.LoopEvent;
import dev.bellows.provider.Message;
import dev.bellows.tool.Tool;
import dev.bellows.tool.ToolResult;
import dev.bellows.tool.TypedTool;
import dev.bellows.testkit.ScriptedProvider;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/** {@link Handoff}: an agent hands the conversation to another, which answers and keeps it. */
class HandoffTest {

    private static String transfer(String to, String message) {
        return call("transfer_to_" + to, message == null ? "{}" : "{\"message\": \"" + message + "\"}");
    }

    @Test
    void theAgentHandedToAnswersInTheSameRunAndItsEventsFollowTheHandoff() {
        ScriptedProvider billingModel = provider(complete("your invoice is paid"));
        DefaultAgent billing = agent(billingModel).name("billing").instructions("You answer about invoices.").build();
        List<AgentEvent> heard = new CopyOnWriteArrayList<>();
        ScriptedProvider triageModel = provider(transfer("billing", null));
        DefaultAgent triage = agent(triageModel).name("triage").handoff(Handoff.to("billing", billing))
                .listener(heard::add).build();
        Session session = new Session();

        AgentResult result = triage.run("Is my invoice paid?", session).await();

        assertThat(result).isEqualTo(new AgentResult(LoopEndReason.TASK_COMPLETION, "your invoice is paid"));
        assertThat(heard.stream().filter(e -> e instanceof LoopEvent.LoopStart || e instanceof LoopEvent.LoopEnd))
                .hasSize(2);
        int handoff = heard.indexOf(new LoopEvent.Handoff("triage", "billing"));
        assertThat(handoff).isPositive();
        assertThat(heard.subList(handoff + 1, heard.size())).extracting(AgentEvent::type)
                .startsWith("iteration_start").endsWith("loop_end");
        assertThat(EventJson.toJson(heard.get(handoff)).toString())
                .isEqualTo("{\"type\":\"handoff\",\"from\":\"triage\",\"to\":\"billing\"}");
        // all of the history: billing's model saw the user's question and its own instructions
        String sent = billingModel.requests().getFirst().messages().toString();
        assertThat(sent).contains("Is my invoice paid?", "You answer about invoices.");
        assertThat(triageModel.requests().getFirst().tools().toString() + triageModel.requests().getFirst()
                .messages().toString()).contains("transfer_to_billing");
        assertThat(session.control()).contains(new Session.Control("billing", 0));
    }

    /**
     * The agent handed to runs its own run interceptors around its part of the run (inside the
     * first agent's, which goes on around the whole run): one that changes the end changes the run's.
     */
    @Test
    void theAgentHandedToRunsItsRunInterceptorsAroundItsPart() {
        List<String> seen = new CopyOnWriteArrayList<>();
        ScriptedProvider billingModel = provider(complete("your invoice is paid"));
        DefaultAgent billing = agent(billingModel).name("billing").runInterceptor(chain -> {
            seen.add("billing begins: " + chain.run().agentName() + ", " + billingModel.requests().size() + " asked");
            AgentResult result = chain.proceed();
            seen.add("billing ends: " + result.result());
            return new AgentResult(result.reason(), result.result() + " (checked by billing)");
        }).build();
        DefaultAgent triage = agent(provider(transfer("billing", null))).name("triage")
                .handoff(Handoff.to("billing", billing)).runInterceptor(chain -> {
                    seen.add("triage begins: " + chain.run().agentName());
                    AgentResult result = chain.proceed();
                    seen.add("triage ends: " + result.result());
                    return result;
                }).build();

        AgentResult result = triage.run("Is my invoice paid?", new Session()).await();

        assertThat(result.result()).isEqualTo("your invoice is paid (checked by billing)");
        assertThat(seen).containsExactly("triage begins: triage", "billing begins: billing, 0 asked",
                "billing ends: your invoice is paid", "triage ends: your invoice is paid (checked by billing)");
    }

    /** A run interceptor of the agent handed to that refuses ends the run without its model asked. */
    @Test
    void aRunInterceptorOfTheAgentHandedToThatDoesNotProceedEndsTheRun() {
        ScriptedProvider billingModel = provider(complete("never"));
        DefaultAgent billing = agent(billingModel).name("billing")
                .runInterceptor(chain -> new AgentResult(LoopEndReason.ERROR, "billing is closed")).build();
        DefaultAgent triage = agent(provider(transfer("billing", null))).name("triage")
                .handoff(Handoff.to("billing", billing)).build();

        AgentResult result = triage.run("Is my invoice paid?", new Session()).await();

        assertThat(result).isEqualTo(new AgentResult(LoopEndReason.ERROR, "billing is closed"));
        assertThat(billingModel.requests()).isEmpty();
    }

    @Test
    void theSessionsNextRunGoesToTheAgentInControlThroughTheAgentItWasRunWith() {
        ScriptedProvider billingModel = provider(complete("paid"), complete("due on the 5th"));
        DefaultAgent billing = agent(billingModel).name("billing").build();
        ScriptedProvider triageModel = provider(transfer("billing", null));
        List<AgentEvent> heard = new CopyOnWriteArrayList<>();
        DefaultAgent triage = agent(triageModel).name("triage").handoff(Handoff.to("billing", billing))
                .listener(heard::add).build();
        Session session = new Session();
        triage.run("Is my invoice paid?", session).await();
        heard.clear();

        AgentResult next = triage.run("When is the next one due?", session).await();

        assertThat(next.result()).isEqualTo("due on the 5th");
        assertThat(triageModel.requests()).hasSize(1);       // triage's model was not asked again
        assertThat(heard).extracting(AgentEvent::type).doesNotContain("handoff");   // the run's listeners heard it
        assertThat(heard.getLast()).isEqualTo(new LoopEvent.LoopEnd(LoopEndReason.TASK_COMPLETION, "due on the 5th"));
    }

    @Test
    void aSummaryHandoffShowsNoHistoryButTheMessageTheModelWrote() {
        ScriptedProvider writerModel = provider(complete("a poem"));
        DefaultAgent writer = agent(writerModel).name("writer").build();
        DefaultAgent lead = agent(provider(transfer("writer", "Write a poem about rain")))
                .handoff(Handoff.to("writer", writer).history(Handoff.History.summary())).build();
        Session session = new Session();
        session.memory().addTurn(List.of(Message.user("an earlier secret question"), Message.assistant("an answer")));

        AgentResult result = lead.run("I would like a rain poem, please", session).await();

        assertThat(result.result()).isEqualTo("a poem");
        String sent = writerModel.requests().getFirst().messages().toString();
        assertThat(sent).contains("Write a poem about rain").doesNotContain("earlier secret question")
                .doesNotContain("I would like a rain poem");
    }

    @Test
    void aSummaryHandoffWithoutAMessageIsAnErrorTheModelReads() {
        DefaultAgent writer = agent(provider(complete("never"))).build();
        DefaultAgent lead = agent(provider(transfer("writer", null), complete("kept it")))
                .handoff(Handoff.to("writer", writer).history(Handoff.History.summary())).build();

        assertThat(lead.run("write").await().result()).isEqualTo("kept it");
    }

    @Test
    void lastTurnsKeepsOnlyTheNewestTurns() {
        ScriptedProvider nextModel = provider(complete("done"));
        DefaultAgent next = agent(nextModel).name("next").build();
        DefaultAgent lead = agent(provider(transfer("next", null)))
                .handoff(Handoff.to("next", next).history(Handoff.History.lastTurns(1))).build();
        Session session = new Session();
        session.memory().addTurn(List.of(Message.user("old question"), Message.assistant("old answer")));

        lead.run("new question", session).await();

        String sent = nextModel.requests().getFirst().messages().toString();
        assertThat(sent).contains("transfer_to_next").doesNotContain("old question");
    }

    @Test
    void anotherKindOfAgentRunsOnTheHandedHistoryAndItsEndIsTheRuns() {
        ScriptedProvider remoteModel = provider(complete("from afar"));
        DefaultAgent inner = agent(remoteModel).build();
        Agent remote = new Agent() {        // not a DefaultAgent: as a remote agent is
            @Override
            public AgentRun run(String task) {
                return inner.run(task);
            }

            @Override
            public AgentRun run(String task, Session session) {
                return inner.run(task, session);
            }
        };
        List<AgentEvent> heard = new CopyOnWriteArrayList<>();
        DefaultAgent lead = agent(provider(transfer("remote", "go on"))).name("lead")
                .handoff(Handoff.to("remote", remote)).listener(heard::add).build();

        AgentResult result = lead.run("ask far away").await();

        assertThat(result).isEqualTo(new AgentResult(LoopEndReason.TASK_COMPLETION, "from afar"));
        assertThat(heard.stream().filter(LoopEvent.LoopStart.class::isInstance)).hasSize(1);
        assertThat(remoteModel.requests().getFirst().messages().toString()).contains("ask far away", "go on");
    }

    /**
     * As a remote agent whose task asks a question: its run stops at one external call
     * ({@code ask}), and {@link #resume} answers with what it was given, noting before it "sends".
     */
    private static final class Asking implements ResumableAgent {
        final List<Decision> decisions = new CopyOnWriteArrayList<>();
        final List<List<tools.jackson.databind.JsonNode>> notesSeen = new CopyOnWriteArrayList<>();
        private final DefaultAgent asks = agent(provider(call("ask", "{\"path\": \"Which city?\"}"))).build();
        private final Tool ask = TypedTool.of("ask", "Asks the person", DefaultAgentTest.PathArguments.class,
                (context, arguments) -> ToolResult.of("never run: external"));

        @Override
        public AgentRun run(String task) {
            return run(task, new Session());
        }

        @Override
        public AgentRun run(String task, Session session) {
            return asks.run(task, session, List.of(ask));
        }

        @Override
        public tools.jackson.databind.JsonNode waitingState(AgentResult stopped, Session session) {
            return tools.jackson.databind.node.JsonNodeFactory.instance.objectNode().put("task_id", "t-1");
        }

        @Override
        public AgentRun resume(Resumption resumption, Session session) {
            assertThat(resumption.state().get("task_id").asString()).isEqualTo("t-1");
            notesSeen.add(resumption.notes());
            decisions.addAll(resumption.decisions());
            resumption.note(tools.jackson.databind.node.JsonNodeFactory.instance.objectNode().put("sent", "m-1"));
            String answer = ((Decision.Respond) resumption.decisions().getFirst()).result();
            return agent(provider(complete("Weather in " + answer + ": sunny"))).build().run(answer, session);
        }
    }

    @Test
    void aResumableAgentHandedToThatAsksKeepsTheConversationAndTheNextRunAnswersItOnce() {
        Asking remote = new Asking();
        ScriptedProvider leadModel = provider(transfer("remote", null), complete("lead again"));
        DefaultAgent lead = agent(leadModel).name("lead").handoff(Handoff.to("remote", remote)).build();
        Session session = new Session();

        AgentResult asked = lead.run("ask me about the weather", session).await();

        assertThat(asked.reason()).isEqualTo(LoopEndReason.INTERRUPTED);
        assertThat(asked.waiting()).singleElement().satisfies(call -> {
            assertThat(call.toolName()).isEqualTo("ask");
            assertThat(call.kind()).isEqualTo(WaitingCall.Kind.EXTERNAL);
        });
        assertThat(session.control()).map(Session.Control::agent).contains("remote");
        assertThat(session.hasWaitingRun()).as("the remote agent waits, not a run of the session").isFalse();

        AgentResult answered = lead.run("Oslo", session).await();

        assertThat(answered).isEqualTo(new AgentResult(LoopEndReason.TASK_COMPLETION, "Weather in Oslo: sunny"));
        assertThat(remote.decisions).singleElement().isInstanceOf(Decision.Respond.class)
                .satisfies(d -> assertThat(d.callId()).isEqualTo(asked.waiting().getFirst().id()));
        assertThat(remote.notesSeen).containsExactly(List.of());
        assertThat(leadModel.requests()).hasSize(1);
        assertThat(session.control()).isEmpty();

        assertThat(lead.run("thanks", session).await().result()).isEqualTo("lead again");
        assertThat(remote.decisions).hasSize(1);
    }

    @Test
    void namesAreCheckedAndTwoHandoffsOfOneNameAreRefused() {
        DefaultAgent other = agent(provider()).build();
        assertThatThrownBy(() -> Handoff.to("no spaces", other)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> agent(provider()).handoff(Handoff.to("a", other)).handoff(Handoff.to("a", other)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("two handoffs named a");
        assertThatThrownBy(() -> Handoff.History.lastTurns(0)).isInstanceOf(IllegalArgumentException.class);
    }
}
