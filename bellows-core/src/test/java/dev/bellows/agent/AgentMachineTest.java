package dev.bellows.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.bellows.event.AgentEvent;
import dev.bellows.tool.LoopEndReason;
import dev.bellows.event.LoopEvent;
import dev.bellows.provider.ChatRequest;
import dev.bellows.provider.ChatStream;
import dev.bellows.provider.Message;
import dev.bellows.provider.Provider;
import dev.bellows.provider.ProviderException;
import dev.bellows.provider.Role;
import dev.bellows.stream.StreamChunk;
import dev.bellows.tool.ToolCallOutcome;
import dev.bellows.tool.chain.ToolChainResult;
import dev.bellows.tool.ToolRegistry;
import dev.bellows.tool.ToolResult;
import dev.bellows.tool.TypedTool;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The machine alone, driven by hand: no provider is called, no tool runs, no thread is started.
 * Each transition is checked for its state, its effects and its step.
 */
class AgentMachineTest {

    record PathArguments(String path) {
    }

    /** A provider the machine must never call: it only says what to send. */
    private static final Provider UNCALLED = new Provider() {
        @Override
        public String name() {
            return "uncalled";
        }

        @Override
        public ChatStream stream(ChatRequest request) {
            throw new AssertionError("the machine called the provider");
        }

        @Override
        public void close() {
        }
    };

    private static DefaultAgent agent(int maxIterations, int maxErrors) {
        ToolRegistry tools = new ToolRegistry().register(TypedTool.of("read_file", "Reads a file", PathArguments.class,
                (context, arguments) -> ToolResult.of("contents of " + arguments.path())));
        return DefaultAgent.builder().provider(UNCALLED).model("m").instructions("Help.").toolRegistry(tools)
                .maxIterations(maxIterations).maxConsecutiveErrors(maxErrors).build();
    }

    private static String call(String tool, String arguments) {
        return "<tool>{\"tool_name\": \"" + tool + "\", \"arguments\": " + arguments + "}</tool>";
    }

    /** The model's answer to {@code step}, read as the machine reads it; its stream events go to {@code heard}. */
    private static MachineInput answer(AgentMachine machine, Transition at, String text, List<AgentEvent> heard) {
        AgentMachine.Reader reader = machine.reader((MachineStep.CallModel) at.step(), heard::add);
        reader.accept(StreamChunk.message(text));
        return reader.finish();
    }

    /** What the in-process driver would give for a fresh answer's calls: they ran, each with its outcome. */
    private static MachineInput ran(Transition at, List<ToolCallOutcome> outcomes) {
        assertThat(at.step()).isInstanceOf(MachineStep.RunTools.class);
        return new AgentMachine.ToolsRan(new ToolChainResult(outcomes), outcomes, List.of(), false);
    }

    private static void apply(Transition transition, Session session, List<AgentEvent> heard) {
        transition.effects().forEach(effect -> effect.applyTo(session, heard::add));
    }

    @Test
    void aStartAsksForTheModelWithTheTaskAndEmitsTheFirstIteration() {
        Session session = new Session();
        AgentMachine machine = agent(5, 3).machine(session);

        Transition started = machine.next(MachineState.initial(), MachineInput.start("read a"));

        assertThat(started.events()).containsExactly(new LoopEvent.IterationStart(1));
        assertThat(started.state().phase()).isEqualTo(MachineState.Phase.CALLING_MODEL);
        assertThat(started.state().task()).isEqualTo("read a");
        assertThat(started.state().iteration()).isEqualTo(1);
        ChatRequest request = ((MachineStep.CallModel) started.step()).request();
        assertThat(request.model()).isEqualTo("m");
        assertThat(request.messages().getFirst().role()).isEqualTo(Role.SYSTEM);
        assertThat(request.messages().getLast()).isEqualTo(Message.user("read a"));
        assertThat(session.memory().turns()).as("the machine writes nothing itself").isEmpty();
    }

    @Test
    void aToolCallRunsThenTheTurnIsRememberedAndTheNextIterationSendsItsObservation() {
        Session session = new Session();
        AgentMachine machine = agent(5, 3).machine(session);
        List<AgentEvent> heard = new ArrayList<>();
        Transition t = machine.next(MachineState.initial(), MachineInput.start("read a"));
        apply(t, session, heard);

        t = machine.next(t.state(), answer(machine, t, call("read_file", "{\"path\": \"a\"}"), heard));
        assertThat(t.state().phase()).isEqualTo(MachineState.Phase.RUNNING_TOOLS);
        assertThat(((MachineStep.RunTools) t.step()).callIds()).containsExactly("call_1_1");
        assertThat(((MachineStep.RunTools) t.step()).resuming()).isFalse();
        assertThat(t.effects()).isEmpty();

        dev.bellows.tool.ToolCall read = new dev.bellows.tool.ToolCall("local", "read_file",
                tools.jackson.databind.node.JsonNodeFactory.instance.objectNode().put("path", "a"));
        t = machine.next(t.state(), ran(t, List.of(new ToolCallOutcome.Succeeded(read, ToolResult.of("contents of a"), "contents of a"))));
        assertThat(t.step()).isInstanceOf(MachineStep.Continue.class);
        assertThat(t.events()).extracting(AgentEvent::type).containsExactly("tool_result");
        assertThat(t.effects().getLast()).isInstanceOfSatisfying(MachineEffect.Remember.class, remember ->
                assertThat(remember.turn()).extracting(Message::role).containsExactly(Role.USER, Role.ASSISTANT, Role.USER));
        assertThat(session.memory().turns()).as("effects are the driver's to apply").isEmpty();
        apply(t, session, heard);
        assertThat(session.memory().turns()).hasSize(1);

        t = machine.next(t.state(), MachineInput.proceed());
        assertThat(t.events()).containsExactly(new LoopEvent.IterationStart(2));
        assertThat(t.state().iteration()).isEqualTo(2);
        assertThat(t.state().task()).isEqualTo("read a");
        List<Message> sent = ((MachineStep.CallModel) t.step()).request().messages();
        assertThat(sent.getLast().content()).contains("contents of a");
        assertThat(sent).filteredOn(m -> m.equals(Message.user("read a"))).hasSize(1);
    }

    @Test
    void taskCompletionEndsTheRunWithItsResultAndTheTurnRemembered() {
        Session session = new Session();
        AgentMachine machine = agent(5, 3).machine(session);
        Transition t = machine.next(MachineState.initial(), MachineInput.start("say hi"));

        t = machine.next(t.state(), answer(machine, t, call("task_completion", "{\"result\": \"hi\"}"),
                new ArrayList<>()));
        // the built-in tool runs as any call: its outcome ends the run
        assertThat(t.step()).isInstanceOf(MachineStep.RunTools.class);
        ToolChainResult result = new ToolChainResult(agent(5, 3).protocol.toolChain(t.state().tools)
                .execute(t.state().calls, () -> false));
        t = machine.next(t.state(), new AgentMachine.ToolsRan(result, result.outcomes(), List.of(), false));

        assertThat(t.step()).isInstanceOfSatisfying(MachineStep.End.class, end ->
                assertThat(end.end()).isEqualTo(new LoopEvent.LoopEnd(LoopEndReason.TASK_COMPLETION, "hi")));
        assertThat(t.state().phase()).isEqualTo(MachineState.Phase.ENDED);
        assertThat(t.effects()).filteredOn(MachineEffect.Remember.class::isInstance).hasSize(1);
        Transition ended = t;
        assertThatThrownBy(() -> machine.next(ended.state(), MachineInput.proceed()))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("ended");
    }

    @Test
    void answersWithoutACallCountTowardsTheCircuitBreaker() {
        Session session = new Session();
        AgentMachine machine = agent(10, 2).machine(session);
        Transition t = machine.next(MachineState.initial(), MachineInput.start("do it"));

        t = machine.next(t.state(), answer(machine, t, "I will not call a tool.", new ArrayList<>()));
        assertThat(t.events()).contains(new LoopEvent.NoToolCall(1));
        assertThat(t.state().consecutiveErrors()).isEqualTo(1);
        assertThat(t.step()).isInstanceOf(MachineStep.Continue.class);
        apply(t, session, new ArrayList<>());

        t = machine.next(t.state(), MachineInput.proceed());
        t = machine.next(t.state(), answer(machine, t, "Nor now.", new ArrayList<>()));
        assertThat(t.step()).isInstanceOfSatisfying(MachineStep.End.class, end ->
                assertThat(end.end().reason()).isEqualTo(LoopEndReason.CIRCUIT_BREAKER));
    }

    @Test
    void theIterationCapEndsTheRun() {
        Session session = new Session();
        AgentMachine machine = agent(1, 5).machine(session);
        Transition t = machine.next(MachineState.initial(), MachineInput.start("do it"));

        t = machine.next(t.state(), answer(machine, t, "thinking aloud", new ArrayList<>()));

        assertThat(t.step()).isInstanceOfSatisfying(MachineStep.End.class, end ->
                assertThat(end.end()).isEqualTo(LoopEnds.maxIterations(1)));
    }

    @Test
    void cancellationAndFailuresEndTheRunKeepingNothingOfTheStep() {
        AgentMachine machine = agent(5, 3).machine(new Session());
        Transition t = machine.next(MachineState.initial(), MachineInput.start("do it"));

        Transition cancelled = machine.next(t.state(), MachineInput.cancelled());
        assertThat(cancelled.effects()).isEmpty();
        assertThat(((MachineStep.End) cancelled.step()).end().reason()).isEqualTo(LoopEndReason.CANCELLED);

        Transition failed = machine.next(t.state(), MachineInput.modelFailed(
                new ProviderException(ProviderException.Kind.SERVER_ERROR, "the API is down")));
        assertThat(((MachineStep.End) failed.step()).end())
                .isEqualTo(new LoopEvent.LoopEnd(LoopEndReason.ERROR, "the API is down"));

        Transition stopped = machine.next(t.state(), MachineInput.modelFailed(
                new ProviderException(ProviderException.Kind.CANCELLED, "stopped")));
        assertThat(((MachineStep.End) stopped.step()).end().reason()).isEqualTo(LoopEndReason.CANCELLED);
    }

    @Test
    void anInputThatDoesNotAnswerTheStepIsRefused() {
        AgentMachine machine = agent(5, 3).machine(new Session());
        Transition t = machine.next(MachineState.initial(), MachineInput.start("do it"));

        assertThatThrownBy(() -> machine.next(t.state(), MachineInput.proceed()))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("CALLING_MODEL");
        assertThatThrownBy(() -> machine.next(t.state(), MachineInput.start("again")))
                .isInstanceOf(IllegalStateException.class);
    }

    @Test
    void theSameInputsGiveTheSameTransitions() {
        List<List<AgentEvent>> runs = new ArrayList<>();
        List<List<List<Message>>> requests = new ArrayList<>();
        for (int run = 0; run < 2; run++) {
            Session session = new Session();
            AgentMachine machine = agent(5, 3).machine(session);
            List<AgentEvent> heard = new ArrayList<>();
            List<List<Message>> sent = new ArrayList<>();
            Transition t = machine.next(MachineState.initial(), MachineInput.start("do it"));
            for (String text : List.of("first", "second")) {
                apply(t, session, heard);
                sent.add(((MachineStep.CallModel) t.step()).request().messages());
                t = machine.next(t.state(), answer(machine, t, text, heard));
                apply(t, session, heard);
                t = machine.next(t.state(), MachineInput.proceed());
            }
            runs.add(heard);
            requests.add(sent);
        }
        assertThat(runs.get(1)).isEqualTo(runs.get(0));
        assertThat(requests.get(1)).isEqualTo(requests.get(0));
    }

    @Test
    void aPlainChatIsOneModelCallThatEndsConverse() {
        DefaultAgent chat = DefaultAgent.builder().provider(UNCALLED).model("m").build();
        Session session = new Session();
        AgentMachine machine = chat.machine(session);
        Transition t = machine.next(MachineState.initial(), MachineInput.start("hello"));
        assertThat(((MachineStep.CallModel) t.step()).tools()).isNull();

        t = machine.next(t.state(), answer(machine, t, "hi there", new ArrayList<>()));

        assertThat(((MachineStep.End) t.step()).end())
                .isEqualTo(new LoopEvent.LoopEnd(LoopEndReason.CONVERSE, "hi there"));
        apply(t, session, new ArrayList<>());
        assertThat(session.memory().messages()).containsExactly(Message.user("hello"), Message.assistant("hi there"));
    }
}
