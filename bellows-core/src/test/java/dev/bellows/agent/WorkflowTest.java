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
import dev.bellows.tool.ToolResult;
import dev.bellows.tool.TypedTool;
import dev.bellows.testkit.ScriptedProvider;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** Loop and router workflows, a workflow run by itself, and the state the agents of a run share. */
class WorkflowTest {

    record Note(String text) { }

    static final SharedState.Key<Integer> NOTES = SharedState.Key.of("notes", Integer.class);

    @Test
    void aLoopRunsItsAgentOnEachAnswerUntilTheConditionHolds() {
        ScriptedProvider model = provider(complete("draft 1"), complete("draft 2 good"), complete("never asked"));
        AgentTool editor = AgentTool.of("editor", "Improves a text", agent(model).build());
        AgentTool loop = AgentTool.loop("polish", "Polishes until good", editor, answer -> answer.contains("good"), 5);

        AgentResult result = loop.asAgent().run("a text").await();

        assertThat(result).isEqualTo(new AgentResult(LoopEndReason.TASK_COMPLETION, "draft 2 good"));
        assertThat(model.requests()).hasSize(2);
        assertThat(model.requests().get(1).messages().toString()).contains("draft 1");
    }

    @Test
    void aLoopStopsAtItsMaximumWithTheLastAnswer() {
        ScriptedProvider model = provider(complete("one"), complete("two"), complete("three"));
        AgentTool loop = AgentTool.loop("again", "Again", AgentTool.of("w", "Works", agent(model).build()),
                answer -> false, 2);

        assertThat(loop.asAgent().run("go").await().result()).isEqualTo("two");
        assertThat(model.requests()).hasSize(2);
        assertThatThrownBy(() -> AgentTool.loop("x", "x", loop, a -> true, 0)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aRouterRunsTheAgentItsFunctionPicks() {
        ScriptedProvider billingModel = provider(complete("billing answer"));
        ScriptedProvider techModel = provider(complete("tech answer"));
        AgentTool router = AgentTool.router("desk", "Routes", List.of(
                AgentTool.of("billing", "Invoices", agent(billingModel).build()),
                AgentTool.of("tech", "Bugs", agent(techModel).build())),
                task -> task.contains("invoice") ? "billing" : "tech");

        assertThat(router.asAgent().run("my invoice").await().result()).isEqualTo("billing answer");
        assertThat(techModel.requests()).isEmpty();
        assertThat(router.asAgent().run("a crash").await().result()).isEqualTo("tech answer");
    }

    @Test
    void aRouterAsksItsModelWhichAgentAndFailsOnAnAnswerThatNamesNone() {
        ScriptedProvider chooserModel = provider(complete("tech."), complete("nobody"));
        ScriptedProvider techModel = provider(complete("tech answer"));
        AgentTool router = AgentTool.router("desk", "Routes", List.of(
                AgentTool.of("billing", "Invoices", agent(provider()).build()),
                AgentTool.of("tech", "Bugs", agent(techModel).build())), agent(chooserModel).build());
        List<AgentEvent> events = new CopyOnWriteArrayList<>();
        AgentRun run = router.asAgent().run("it crashes");
        run.forEach(events::add);

        assertThat(run.await().result()).isEqualTo("tech answer");
        assertThat(chooserModel.requests().getFirst().messages().toString()).contains("billing: Invoices", "tech: Bugs",
                "it crashes");
        assertThat(events).filteredOn(LoopEvent.SubAgentEvent.class::isInstance)
                .extracting(e -> ((LoopEvent.SubAgentEvent) e).agent()).containsSubsequence("desk", "tech");
        AgentResult none = router.asAgent().run("hm").await();
        assertThat(none.reason()).isEqualTo(LoopEndReason.ERROR);
        assertThat(none.result()).contains("desk could not pick an agent", "\"nobody\"");
    }

    @Test
    void workflowsNestAndAWorkflowRunByItselfMarksItsAgentsEvents() {
        AgentTool first = AgentTool.of("first", "First", agent(provider(complete("a"))).build());
        AgentTool second = AgentTool.of("second", "Second", agent(provider(complete("b"))).build());
        AgentTool both = AgentTool.parallel("both", "Both", List.of(first, second), null, 2);
        AgentTool loop = AgentTool.loop("once", "Once", both, answer -> true, 3);
        List<AgentEvent> events = new CopyOnWriteArrayList<>();
        AgentRun run = AgentTool.sequence("all", "All", List.of(loop)).asAgent().run("go");
        run.forEach(events::add);

        assertThat(run.await().result()).isEqualTo("## first\na\n\n## second\nb");
        assertThat(events.getFirst()).isEqualTo(new LoopEvent.LoopStart("go"));
        assertThat(events.getLast()).isEqualTo(new LoopEvent.LoopEnd(LoopEndReason.TASK_COMPLETION,
                "## first\na\n\n## second\nb"));
        assertThat(events.subList(1, events.size() - 1)).allSatisfy(event ->
                assertThat(EventJson.toJson(event).get("parent_call_id").asString()).isEqualTo("all"));
    }

    @Test
    void theAgentsAndToolsOfOneRunShareItsState() {
        TypedTool<Note, String> note = TypedTool.of("note", "Notes something", Note.class, (context, args) -> {
            SharedState.current().update(NOTES, n -> n == null ? 1 : n + 1);
            return ToolResult.of("noted");
        });
        DefaultAgent researcher = agent(provider(call("note", "{\"text\": \"x\"}"), complete("found")), note).build();
        DefaultAgent lead = agent(provider(call("note", "{\"text\": \"y\"}"),
                call("researcher", "{\"task\": \"find\"}"), complete("done")), note,
                AgentTool.of("researcher", "Finds", researcher)).build();
        Session session = new Session();

        assertThat(lead.run("work", session).await().result()).isEqualTo("done");

        assertThat(session.state().get(NOTES)).contains(2);     // the lead's note and its sub-agent's
        assertThatThrownBy(SharedState::current).isInstanceOf(IllegalStateException.class);
        session.state().put(SharedState.Key.of("notes", String.class), "text");
        assertThatThrownBy(() -> session.state().get(NOTES)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("java.lang.String, not a java.lang.Integer");
    }

    @Test
    void aParallelWorkflowRunsNoMoreThanItsBoundAtOnce() {
        AtomicInteger running = new AtomicInteger();
        AtomicInteger most = new AtomicInteger();
        java.util.concurrent.CountDownLatch entered = new java.util.concurrent.CountDownLatch(1);
        Agent slow = new Agent() {
            @Override
            public AgentRun run(String task) {
                return run(task, new Session());
            }

            @Override
            public AgentRun run(String task, Session session) {
                int now = running.incrementAndGet();
                most.accumulateAndGet(now, Math::max);
                try {
                    Thread.sleep(20);   // long enough for a second branch to start if the bound let it
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                running.decrementAndGet();
                return agent(provider(complete(task))).build().run(task, session);
            }
        };
        List<AgentTool> branches = List.of(AgentTool.of("a", "A", slow), AgentTool.of("b", "B", slow),
                AgentTool.of("c", "C", slow));

        assertThat(AgentTool.parallel("p", "P", branches, null, 1).asAgent().run("t").await().reason())
                .isEqualTo(LoopEndReason.TASK_COMPLETION);
        assertThat(most.get()).isEqualTo(1);
    }
}
