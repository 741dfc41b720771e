package dev.bellows.agent;

import static dev.bellows.agent.DefaultAgentTest.READ_FILE;
import static dev.bellows.agent.DefaultAgentTest.call;
import static dev.bellows.agent.DefaultAgentTest.complete;
import static org.assertj.core.api.Assertions.assertThat;

import dev.bellows.event.AgentEvent;
import dev.bellows.tool.LoopEndReason;
import dev.bellows.event.LoopEvent;
import dev.bellows.provider.ChatStream;
import dev.bellows.provider.Provider;
import dev.bellows.provider.ProviderException;
import dev.bellows.stream.StreamChunk;
import dev.bellows.testkit.ScriptedProvider;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import org.junit.jupiter.api.Test;

/**
 * A driver of the machine written against its public API alone (as docs/machine.md shows one)
 * gives the same run as the agent's own driver: the same events, the same conversation, and
 * a run it stops at an approval is carried on by the agent's {@code resume}.
 */
class MachineDriverTest {

    private static final String PLAN = call("update_plan",
            "{\"steps\": [{\"description\": \"Read a.txt\", \"status\": \"in_progress\"}]}");

    /** The run's context as the hand driver keeps it: the task and the iteration from the machine's state. */
    private static final class Context implements RunContext {
        private final ConcurrentMap<String, Object> attributes = new ConcurrentHashMap<>();
        volatile MachineState state = MachineState.initial();

        @Override
        public String agentName() {
            return "bellows";
        }

        @Override
        public Optional<String> sessionName() {
            return Optional.empty();
        }

        @Override
        public String task() {
            return state.task();
        }

        @Override
        public int iteration() {
            return state.iteration();
        }

        @Override
        public boolean isCancelled() {
            return false;
        }

        @Override
        public ConcurrentMap<String, Object> attributes() {
            return attributes;
        }
    }

    /** The whole run, one step at a time, on this thread. */
    private static MachineStep.End drive(AgentMachine machine, Session session, Provider provider, String task,
                                         List<AgentEvent> heard) {
        Context context = new Context();
        heard.add(new LoopEvent.LoopStart(task));
        MachineInput input = MachineInput.start(task);
        while (true) {
            Transition transition = machine.next(context.state, input);
            context.state = transition.state();
            transition.effects().forEach(effect -> effect.applyTo(session, heard::add));
            switch (transition.step()) {
                case MachineStep.CallModel call -> {
                    AgentMachine.Reader reader = machine.reader(call, heard::add);
                    try (ChatStream stream = provider.stream(call.request())) {
                        for (StreamChunk chunk; (chunk = stream.next()) != null; ) {
                            reader.accept(chunk);
                        }
                        input = reader.finish();
                    } catch (ProviderException e) {
                        input = MachineInput.modelFailed(e);
                    }
                }
                case MachineStep.RunTools tools -> input = machine.runTools(tools, context, heard::add);
                case MachineStep.Continue next -> input = MachineInput.proceed();
                case MachineStep.HandOff handOff -> throw new AssertionError("no handoff here: " + handOff);
                case MachineStep.End end -> {
                    heard.add(end.end());
                    return end;
                }
            }
        }
    }

    private static DefaultAgent.Builder agent(List<AgentEvent> heard) {
        return DefaultAgentTest.agent(DefaultAgentTest.provider(), READ_FILE).listener(heard::add);
    }

    @Test
    void aHandDriverGivesTheSameRunAsTheAgentsOwn() {
        String[] script = {PLAN, call("read_file", "{\"path\": \"a.txt\"}"), "no call here", complete("done")};
        List<AgentEvent> own = new ArrayList<>();
        Session ownSession = new Session();
        AgentResult result = DefaultAgentTest.agent(DefaultAgentTest.provider(script), READ_FILE).listener(own::add)
                .build().runBlocking("read a.txt", ownSession);

        List<AgentEvent> driven = new ArrayList<>();
        Session session = new Session();
        MachineStep.End end = drive(agent(new ArrayList<>()).build().machine(session), session,
                DefaultAgentTest.provider(script), "read a.txt", driven);

        assertThat(result.reason()).isEqualTo(LoopEndReason.TASK_COMPLETION);
        assertThat(end.end()).isEqualTo(new LoopEvent.LoopEnd(result.reason(), result.result()));
        assertThat(driven).isEqualTo(own.stream().filter(e -> !e.type().equals("complete")).toList());
        assertThat(driven).extracting(AgentEvent::type).contains("plan_update", "tool_result", "no_tool_call");
        assertThat(session.memory().turns()).isEqualTo(ownSession.memory().turns());
        assertThat(session.plan()).isEqualTo(ownSession.plan());
    }

    @Test
    void aRunTheHandDriverStopsAtAnApprovalIsCarriedOnByTheAgent() {
        String[] script = {call("read_file", "{\"path\": \"a.txt\"}"), complete("read it")};
        ScriptedProvider provider = DefaultAgentTest.provider(script);
        List<AgentEvent> resumed = new ArrayList<>();
        DefaultAgent agent = DefaultAgentTest.agent(provider, READ_FILE).requireApproval("local/read_file")
                .listener(resumed::add).build();
        Session session = new Session();
        List<AgentEvent> driven = new ArrayList<>();

        MachineStep.End end = drive(agent.machine(session), session, provider, "read a.txt", driven);

        assertThat(end.end().reason()).isEqualTo(LoopEndReason.INTERRUPTED);
        assertThat(end.waiting()).extracting(WaitingCall::id).containsExactly("call_1_1");
        assertThat(driven).filteredOn(LoopEvent.ApprovalRequired.class::isInstance).hasSize(1);
        assertThat(session.waiting()).extracting(WaitingCall::id).containsExactly("call_1_1");
        assertThat(session.hasWaitingRun()).isTrue();

        AgentResult result = agent.resume(session, List.of(Decision.approve("call_1_1"))).await();

        assertThat(result).isEqualTo(new AgentResult(LoopEndReason.TASK_COMPLETION, "read it"));
        assertThat(resumed).extracting(AgentEvent::type).contains("approval", "tool_result");
        assertThat(session.hasWaitingRun()).isFalse();
        assertThat(provider.requests()).hasSize(2);
    }
}
