package dev.bellows.agent;

import dev.bellows.agent.MachineState.Phase;
import dev.bellows.agent.Suspension.Entry;
import dev.bellows.agent.Suspension.State;
import dev.bellows.event.AgentEvent;
import dev.bellows.tool.LoopEndReason;
import dev.bellows.event.LoopEvent;
import dev.bellows.memory.ConversationMemory;
import dev.bellows.provider.ChatRequest;
import dev.bellows.provider.Message;
import dev.bellows.provider.NativeToolCall;
import dev.bellows.provider.ProviderException;
import dev.bellows.stream.StreamChunk;
import dev.bellows.tool.DecodedToolCall;
import dev.bellows.tool.Tool;
import dev.bellows.tool.ToolCall;
import dev.bellows.tool.ToolCallOutcome;
import dev.bellows.tool.chain.internal.Calls;
import dev.bellows.tool.chain.ToolChainResult;
import dev.bellows.tool.ToolEffect;
import dev.bellows.tool.ToolRegistry;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.function.Consumer;

/**
 * The agent loop as a step machine: a {@link MachineState} and what just happened (a
 * {@link MachineInput}) give the next state, the {@linkplain MachineEffect effects} (events,
 * turns for the conversation, a new plan, a waiting run) and the next {@link MachineStep}
 * (call the model with this request, run these calls, go on, end with this result). Every
 * rule of the loop lives here: turn bookkeeping, the history sent, the endings, the circuit
 * breaker, the iteration cap, plan updates, approvals' waiting and resuming. The machine does
 * no I/O and reads no clock: it reads the session's conversation and plan, and never writes
 * them (its effects do, applied by the driver). The same inputs, from the same conversation,
 * give the same transitions, which is what a durable driver's replay relies on.
 *
 * <p>A driver does the steps, in a loop:
 * <pre>{@code
 * AgentMachine machine = agent.machine(session);
 * MachineState state = MachineState.initial();
 * MachineInput input = MachineInput.start("What does notes.txt say?");
 * emit(new LoopEvent.LoopStart(task));
 * while (true) {
 *     Transition t = machine.next(state, input);
 *     state = t.state();
 *     t.effects().forEach(effect -> effect.applyTo(session, this::emit));
 *     switch (t.step()) {
 *         case MachineStep.CallModel call -> input = callTheModel(call);   // reader(call, emit) reads the answer
 *         case MachineStep.RunTools tools -> input = runTheCalls(tools);
 *         case MachineStep.Continue next -> input = MachineInput.proceed();
 *         case MachineStep.End end -> { emit(end.end()); return; }
 *     }
 * }
 * }</pre>
 * The agent's own drivers ({@link DefaultAgent#run}, {@link DefaultAgent#runBlocking},
 * {@link DefaultAgent#resume}; the durable runs of bellows-temporal go through them) do the
 * steps with the agent's retries and interceptors; docs/machine.md has the states.
 *
 * <p>Immutable apart from a cache of the tools' view; use one machine from one thread at a
 * time (a run's). Make one per run: it is cheap (a few references).
 */
public final class AgentMachine {

    /** What the model reads after the observation of a waiting run a person gave up. */
    static final String GAVE_UP = "[stopped: the user cancelled instead of deciding on these calls]";

    private final AgentOptions options;
    private final Protocol protocol;
    private final Session session;
    /** The run's own task_completion for a structured answer, or null. */
    private final Tool completion;
    /** The run's external tools (see {@link DefaultAgent#run(String, Session, List)}): their calls wait. */
    private final List<Tool> external;
    /** The run's view with its external tools, and the shared view it was built over. */
    private ToolRegistry externalView;
    private ToolRegistry externalBase;
    /** The tools {@link #madeChain} runs, and that chain (see {@link #toolChain}). */
    private ToolRegistry chainTools;
    private Calls madeChain;

    AgentMachine(AgentOptions options, Protocol protocol, Session session, Tool completion, List<Tool> external) {
        this.options = options;
        this.protocol = protocol;
        this.session = Objects.requireNonNull(session, "session");
        this.completion = completion;
        this.external = external;
    }

    /**
     * The transition from {@code state} on {@code input}.
     *
     * @throws IllegalStateException when the input does not answer the state's step (an
     *                               answer while tools run, anything after the end)
     */
    public Transition next(MachineState state, MachineInput input) {
        Objects.requireNonNull(state, "state");
        Objects.requireNonNull(input, "input");
        if (state.phase == Phase.ENDED) {
            throw new IllegalStateException("the run has ended: it takes no more input");
        }
        Out out = new Out();
        return switch (input) {
            case MachineInput.Cancelled c -> out.end(state, LoopEnds.cancelled(), List.of());
            case MachineInput.Failed f -> out.end(state, new LoopEvent.LoopEnd(LoopEndReason.ERROR, f.message()),
                    List.of());
            case MachineInput.ModelFailed m -> {
                expect(state, Phase.CALLING_MODEL, input);
                yield out.end(state, m.failure().kind() == ProviderException.Kind.CANCELLED ? LoopEnds.cancelled()
                        : new LoopEvent.LoopEnd(LoopEndReason.ERROR, m.failure().getMessage()), List.of());
            }
            case MachineInput.Start s -> {
                expect(state, Phase.NEW, input);
                yield start(s.task(), out);
            }
            case Resume r -> {
                expect(state, Phase.NEW, input);
                yield resume(r, out);
            }
            case Answered a -> {
                expect(state, Phase.CALLING_MODEL, input);
                yield state.chat ? chatAnswered(state, a.reading(), out) : answered(state, a.reading(), out);
            }
            case ToolsRan t -> {
                expect(state, Phase.RUNNING_TOOLS, input);
                yield state.resuming != null ? resumed(state, t, out) : toolsRan(state, t, out);
            }
            case MachineInput.Proceed p -> {
                expect(state, Phase.CONTINUING, input);
                yield iteration(state, state.iteration + 1, state.errors, state.lastError, state.pending,
                        state.pendingInMemory, out);
            }
        };
    }

    private static void expect(MachineState state, Phase phase, MachineInput input) {
        if (state.phase != phase) {
            throw new IllegalStateException(input.getClass().getSimpleName() + " does not answer a run that is "
                    + state.phase);
        }
    }

    /**
     * A reader of one answer to {@code step}: the chunks given to it emit, to {@code emit}, the
     * stream events of the answer as they come (all but {@code complete}), and its
     * {@code finish()} is the machine's next input. One reader per attempt: a retry starts a
     * new one, so nothing of a broken attempt survives.
     */
    public Reader reader(MachineStep.CallModel step, Consumer<? super AgentEvent> emit) {
        Objects.requireNonNull(step, "step");
        // the protocol's reader is the machine's: nothing between them on the chunks' path
        return protocol.reader(step.tools(), step.turn(), emitter(emit));
    }

    /**
     * A reader of one answer of the agent's model as the machine reads it, with the agent's
     * tools as they are now: for a process that streams a model call on behalf of a run driven
     * elsewhere and shows the answer while it streams (the worker of a durable run). Its
     * events are those the run's own reader emits for the same chunks.
     */
    public Reader reader(Consumer<? super AgentEvent> emit) {
        return protocol.reader(options.plainChat() ? null : options.tools.current(null), emitter(emit));
    }

    /**
     * {@code emit} as the readers take it: the same consumer, not one wrapped around it (it
     * takes every event of the answer, one frame less on a hot path; a consumer of a supertype
     * of {@code AgentEvent} accepts every {@code AgentEvent}, so the cast is safe).
     */
    @SuppressWarnings("unchecked")
    private static Consumer<AgentEvent> emitter(Consumer<? super AgentEvent> emit) {
        return (Consumer<AgentEvent>) Objects.requireNonNull(emit, "emit");
    }

    /** Reads one streamed answer, chunk by chunk (see {@link AgentMachine#reader}). Not thread-safe. */
    public interface Reader {

        /** The next chunk of the answer. */
        void accept(StreamChunk chunk);

        /** The answer is complete: the input that gives it to the machine. */
        MachineInput finish();
    }

    /**
     * Checks decisions on the session's waiting run as a resume would take them
     * ({@link DefaultAgent#resume(Session, List)} says what fits), and changes nothing: for a
     * driver that records its inputs and must refuse decisions that do not fit before it
     * records them (a durable run, whose decisions come in an update that is refused, never
     * failed). Reads the session's waiting run (a stored session: from its store).
     *
     * @throws IllegalStateException    when no run of the session waits, or the stored one is damaged
     * @throws IllegalArgumentException when the decisions do not fit, naming the calls concerned
     */
    public void checkDecisions(List<? extends Decision> decisions) {
        checked(decisions);
    }

    /** The decisions by call id, checked against the session's waiting run. */
    Map<String, Decision> checked(List<? extends Decision> decisions) {
        Objects.requireNonNull(decisions, "decisions");
        Suspension waiting = session.suspension();
        if (waiting == null) {
            throw new IllegalStateException("no run of this session waits for decisions: there is nothing to resume");
        }
        ResumeLog log = session.resumeLog();
        Map<String, Suspension.Open> open = new java.util.LinkedHashMap<>();
        for (Suspension.Open call : waiting.open()) {
            open.put(call.id(), call);
        }
        Map<String, Decision> given = new java.util.LinkedHashMap<>();
        ToolRegistry tools = null;
        for (Decision decision : decisions) {
            Objects.requireNonNull(decision, "a decision is null");
            String id = decision.callId();
            if (given.containsKey(id)) {
                throw new IllegalArgumentException("two decisions for call " + id + ": give one per waiting call");
            }
            Suspension.Open call = open.get(id);
            if (call == null) {
                throw new IllegalArgumentException("no call waits with id " + id + "; the waiting calls: "
                        + String.join(", ", open.keySet()));
            }
            Decision earlier = call.held() != null ? call.held() : log.decision(id);
            if (earlier != null && !earlier.equals(decision)) {
                throw new IllegalArgumentException("call " + id + " was decided already (" + describe(earlier)
                        + "): a decision stands once given");
            }
            boolean approval = call.kind() == WaitingCall.Kind.APPROVAL;
            if (approval && decision instanceof Decision.Respond) {
                throw new IllegalArgumentException("call " + id + " waits for approval: approve or deny it");
            }
            if (!approval && decision instanceof Decision.Approve) {
                throw new IllegalArgumentException("call " + id + " is carried out outside the run: give its result"
                        + " (Decision.respond) or deny it");
            }
            // a nested call's edited arguments are its own tool's to check, when it resumes
            if (decision instanceof Decision.Approve approve && approve.arguments() != null
                    && call.entry().state() != Suspension.State.NESTED) {
                if (tools == null) {
                    tools = options.tools.current(null);
                }
                dev.bellows.tool.chain.internal.PreparedCall prepared = protocol.toolChain(tools).prepare(call.entry().decoded());
                if (prepared.failure().isEmpty()) {
                    try {
                        prepared.check(approve.arguments());
                    } catch (dev.bellows.tool.InvalidArgumentsException e) {
                        throw new IllegalArgumentException("the edited arguments of call " + id
                                + " do not match the tool's schema: " + e.getMessage());
                    }
                }
            }
            given.put(id, decision);
        }
        List<String> missing = new java.util.ArrayList<>();
        for (Suspension.Open call : open.values()) {
            boolean decided = call.held() != null || log.decision(call.id()) != null;
            if (!decided && !given.containsKey(call.id())) {
                missing.add(call.id());
            }
        }
        if (!missing.isEmpty()) {
            throw new IllegalArgumentException("no decision for waiting call" + (missing.size() == 1 ? " " : "s ")
                    + String.join(", ", missing) + ": every waiting call needs one");
        }
        checkToolsOfApproved(open.values(), given, log, tools);
        return given;
    }

    /**
     * Refuses approvals of calls whose tool this agent does not have (a run carried on without
     * the server it began with): such a call would only fail, its approval spent. Calls that ran
     * already, or began (a resume cut short), need nothing; a denial never needs the tool. A
     * nested call's tool is its suspended tool's to find.
     *
     * @throws MissingToolException naming the first such call and its tool
     */
    private void checkToolsOfApproved(java.util.Collection<Suspension.Open> open, Map<String, Decision> given,
                                      ResumeLog log, ToolRegistry known) {
        ToolRegistry tools = known;
        for (Suspension.Open call : open) {
            Suspension.Entry entry = call.entry();
            Decision decision = given.containsKey(call.id()) ? given.get(call.id())
                    : call.held() != null ? call.held() : log.decision(call.id());
            if (!(decision instanceof Decision.Approve) || entry.state() != Suspension.State.APPROVAL
                    || log.started(entry.id()) || log.finished(entry.id()) != null) {
                continue;
            }
            if (tools == null) {
                tools = options.tools.current(null);
            }
            dev.bellows.tool.chain.internal.PreparedCall prepared = protocol.toolChain(tools).prepare(entry.decoded());
            if (prepared.failure().isPresent()
                    && prepared.failure().get().cause() instanceof dev.bellows.tool.UnknownToolException unknown) {
                throw new MissingToolException(entry.id(), unknown.serverName(), unknown.toolName());
            }
        }
    }

    private static String describe(Decision decision) {
        return switch (decision) {
            case Decision.Approve a -> "approved";
            case Decision.Deny d -> d.reason().isBlank() ? "denied" : "denied: " + d.reason();
            case Decision.Respond r -> "answered";
        };
    }

    /**
     * Does a {@link MachineStep.RunTools} step on the calling thread, as the agent's own runs
     * do it, and returns the next input: each call found and its arguments checked, the calls
     * that need approval ({@link AgentBuilder#requireApproval}) decided by the agent's
     * {@link ApprovalHandler} or left waiting (the run then stops {@code interrupted}), the rest
     * run through the agent's tool interceptors (the order is in docs/machine.md); a resume's
     * calls run from where they stopped, each once, what they do written to the session's
     * resume log before each goes on. The {@code approval} events of the handler's decisions go
     * to {@code emit} as they are taken. A run cancelled meanwhile ({@code run.isCancelled()})
     * gives {@link MachineInput#cancelled()}.
     */
    public MachineInput runTools(MachineStep.RunTools step, RunContext run, Consumer<? super AgentEvent> emit) {
        Objects.requireNonNull(step, "step");
        Objects.requireNonNull(run, "run");
        Objects.requireNonNull(emit, "emit");
        return new ToolStep(options.toolInterceptors, options.approvals, options.approvalHandler,
                options.parallelToolCalls, !options.interceptsTools(), ToolStep.DIRECTLY)
                .run(step, toolChain(step.tools), run, session, emit);
    }

    /** The chain that runs this run's tool calls, made again only when the tools are other ones. */
    Calls toolChain(ToolRegistry tools) {
        if (madeChain == null || chainTools != tools) {
            madeChain = protocol.toolChain(tools).withResultLimit(options.resultLimit);
            chainTools = tools;
        }
        return madeChain;
    }

    // --- starting ---

    private Transition start(String task, Out out) {
        ConversationMemory memory = session.memory();
        Message user = Message.user(task);
        int runStart = memory.turns().size();
        if (!options.plainChat()) {
            MachineState at = new MachineState(Phase.CONTINUING, task, false, 0, 0, "", runStart, user, List.of(user),
                    false, List.of(), null, "", null, null, false, null);
            return iteration(at, 1, 0, "", List.of(user), false, out);
        }
        out.emit(new LoopEvent.IterationStart(1));
        Protocol.Frame frame = new Protocol.Frame(
                options.instructions.isBlank() ? null : Message.system(options.instructions), List.of(user));
        List<Message> history = History.within(memory, runStart, user, frame.all(), List.of(), session.historyFrom());
        MachineState at = new MachineState(Phase.CALLING_MODEL, task, true, 1, 0, "", runStart, user, List.of(user),
                false, List.of(), null, "", null, null, false, null);
        return out.then(at, new MachineStep.CallModel(request(frame, history, null), null));
    }

    private Transition chatAnswered(MachineState at, AnswerReader.Reading answer, Out out) {
        out.add(new MachineEffect.Remember(List.of(at.taskMessage, answer.assistant())));
        return out.end(at, new LoopEvent.LoopEnd(LoopEndReason.CONVERSE, answer.text()), List.of());
    }

    // --- the loop ---

    /** The tools the model is offered now: the agent's view, plus the run's external tools when it has any. */
    private ToolRegistry tools() {
        ToolRegistry base = options.tools.current(completion);
        if (external.isEmpty()) {
            return base;
        }
        if (base != externalBase) {         // the first call, or the agent's registry changed
            externalView = options.tools.withExternal(completion, external);
            externalBase = base;
        }
        return externalView;
    }

    /** Iteration {@code iteration} begins: {@code iteration_start}, and the model call with the current turn. */
    private Transition iteration(MachineState at, int iteration, int errors, String lastError, List<Message> pending,
                                 boolean pendingInMemory, Out out) {
        out.emit(new LoopEvent.IterationStart(iteration));
        ConversationMemory memory = session.memory();
        ToolRegistry tools = tools();
        Protocol.Frame frame = protocol.frame(tools, pending, session.plan());
        List<Message> history = History.within(memory, at.runStart, at.taskMessage, frame.all(),
                pendingInMemory ? pending : List.of(), session.historyFrom());
        if (pendingInMemory && history.size() >= pending.size()
                && history.subList(history.size() - pending.size(), history.size()).equals(pending)) {
            history = history.subList(0, history.size() - pending.size());
        }
        MachineState next = new MachineState(Phase.CALLING_MODEL, at.task, false, iteration, errors, lastError,
                at.runStart, at.taskMessage, pending, pendingInMemory, List.of(), null, "", tools, null, false, null);
        return out.then(next, new MachineStep.CallModel(request(frame, history, tools), tools, at.runStart + iteration));
    }

    /** The system message (when there is one), the history, then the current turn, within the memory's limit. */
    private ChatRequest request(Protocol.Frame frame, List<Message> history, ToolRegistry tools) {
        List<Message> messages = new ArrayList<>(history.size() + frame.current().size() + 1);
        if (frame.system() != null) {
            messages.add(frame.system());
        }
        messages.addAll(history);
        messages.addAll(frame.current());
        // The limit is a hard cap: a turn larger than it alone is cut in its middle, never sent whole.
        return ChatRequest.builder().model(options.model).messages(ContextCap.fit(messages, session.memory()))
                .tools(tools == null ? List.of() : protocol.toolSpecs(tools)).build();
    }

    private Transition answered(MachineState at, AnswerReader.Reading answer, Out out) {
        List<Message> turn = at.pendingInMemory ? List.of(answer.assistant())
                : joined(at.pending, List.of(answer.assistant()));
        Counts counts = new Counts(at.errors, at.lastError);
        switch (answer.step()) {
            case AnswerReader.Step.NoAction none -> {
                out.emit(new LoopEvent.NoToolCall(at.iteration));
                counts.error(none.error());
                return endIteration(at, at.iteration, counts, turn, List.of(Message.user(none.reply())), out);
            }
            case AnswerReader.Step.Finish done -> {
                out.add(new MachineEffect.Remember(turn));
                return out.end(at, LoopEnds.ended(new ToolEffect.EndRun(LoopEndReason.TASK_COMPLETION, done.answer())),
                        List.of());
            }
            case AnswerReader.Step.Unreadable unreadable -> {
                // Nothing to run: the decoder's words go back as they are.
                for (String message : unreadable.errors()) {
                    out.emit(new LoopEvent.ToolResultError(null, null, message));
                    counts.error(message);
                }
                return endIteration(at, at.iteration, counts, turn,
                        List.of(Message.user(String.join("\n\n", unreadable.errors()))), out);
            }
            case AnswerReader.Step.Act act -> {
                List<String> ids = callIds(answer.assistant(), act.calls(), at.runStart + at.iteration);
                Entry[] entries = new Entry[ids.size()];
                for (int i = 0; i < entries.length; i++) {
                    entries[i] = new Entry(ids.get(i), act.calls().get(i), State.HELD, null, null);
                }
                MachineState next = new MachineState(Phase.RUNNING_TOOLS, at.task, false, at.iteration, at.errors,
                        at.lastError, at.runStart, at.taskMessage, at.pending, at.pendingInMemory, turn,
                        answer.assistant(), act.note(), at.tools, null, false, act.calls());
                return out.then(next, new MachineStep.RunTools(List.of(entries), null, null, at.tools, false));
            }
        }
    }

    private Transition toolsRan(MachineState at, ToolsRan ran, Out out) {
        Counts counts = new Counts(at.errors, at.lastError);
        report(ran.newOutcomes(), ran.newIds(), counts, out);
        List<Message> turn = at.turn;       // immutable: each ending below joins onto it, none copies it first
        if (ran.suspended()) {
            return suspend(at, new Suspension(at.task, at.iteration, counts.errors, counts.lastError, turn, at.note,
                    ran.entries()), out);
        }
        ToolChainResult result = ran.result();
        Optional<ToolEffect.EndRun> ending = result.endingRun();
        if (ending.isPresent()) {
            out.add(new MachineEffect.Remember(joined(turn, protocol.closing(at.answer, result))));
            return out.end(at, LoopEnds.ended(ending.get()), List.of());
        }
        List<Message> observation = protocol.observation(at.answer, result, at.note);
        Handoff handoff = handoff(result);
        if (handoff != null) {
            return handOff(at, handoff, result.handingOff().get().message(), joined(turn, observation), out);
        }
        return endIteration(at, at.iteration, counts, turn, observation, out);
    }

    /**
     * The iteration's turn joins memory with the next current turn ({@code pending}); then the
     * circuit breaker, then the iteration cap, else the driver goes on.
     */
    private Transition endIteration(MachineState at, int iteration, Counts counts, List<Message> turn,
                                    List<Message> pending, Out out) {
        out.add(new MachineEffect.Remember(joined(turn, pending)));
        LoopEvent.LoopEnd stop = limits(iteration, counts);
        if (stop != null) {
            return out.end(at, stop, List.of());
        }
        MachineState next = new MachineState(Phase.CONTINUING, at.task, false, iteration, counts.errors,
                counts.lastError, at.runStart, at.taskMessage, pending, true, List.of(), null, "", at.tools, null,
                false, null);
        return out.then(next, new MachineStep.Continue());
    }

    /** The agent the answer's first handing-off call gives the conversation to, or null (none, or not one of this agent's). */
    private Handoff handoff(ToolChainResult result) {
        if (options.handoffs.isEmpty()) {
            return null;
        }
        return result.handingOff().map(handing -> options.handoffs.get(handing.agent())).orElse(null);
    }

    /**
     * The conversation goes to {@code handoff}'s agent: the turn is kept whole (the call and its
     * observation), {@code handoff} is said, the session gives it the conversation, and the driver
     * carries the run on with it.
     */
    private Transition handOff(MachineState at, Handoff handoff, String message, List<Message> turn, Out out) {
        out.add(new MachineEffect.Remember(turn));
        String from = session.control().map(Session.Control::agent).orElse(options.name);
        out.emit(new LoopEvent.Handoff(from, handoff.name()));
        out.add(new HandOver(handoff));
        return out.then(at.with(Phase.ENDED), new MachineStep.HandOff(handoff, message.isEmpty() ? at.task : message));
    }

    /**
     * {@code first} then {@code then}, as the immutable list the effects and the state keep as it
     * is: a turn is made once, not copied by each value that holds it.
     */
    private static List<Message> joined(List<Message> first, List<Message> then) {
        Message[] all = new Message[first.size() + then.size()];
        int at = 0;
        for (Message message : first) {
            all[at++] = message;
        }
        for (Message message : then) {
            all[at++] = message;
        }
        return List.of(all);
    }

    /** The circuit breaker, then the iteration cap, after an iteration; null to go on. */
    private LoopEvent.LoopEnd limits(int iteration, Counts counts) {
        if (counts.errors >= options.maxConsecutiveErrors) {
            return LoopEnds.circuitBreaker(counts.errors, counts.lastError);
        }
        if (iteration >= options.maxIterations) {
            return LoopEnds.maxIterations(iteration);
        }
        return null;
    }

    /** The events of a batch, in call order; each success resets the error count, each failure adds to it. */
    private static void report(List<ToolCallOutcome> outcomes, List<String> ids, Counts counts, Out out) {
        for (int i = 0; i < outcomes.size(); i++) {
            ToolCallOutcome outcome = outcomes.get(i);
            String id = i < ids.size() ? ids.get(i) : null;
            switch (outcome) {
                case ToolCallOutcome.Succeeded s -> {
                    counts.errors = 0;
                    String text = s.effect() instanceof ToolEffect.EndRun end ? end.result() : s.text();
                    out.emit(new LoopEvent.ToolResultEvent(s.call().serverName(), s.call().toolName(),
                            s.call().arguments(), text, id));
                    if (s.effect() instanceof ToolEffect.ReplacePlan replace) {
                        out.add(new MachineEffect.ReplacePlan(replace.plan()));
                        out.emit(new LoopEvent.PlanUpdate(replace.plan().steps()));
                    }
                }
                case ToolCallOutcome.Failed f -> {
                    counts.error(f.error());
                    if (f.call() instanceof ToolCall call) {
                        out.emit(new LoopEvent.ToolResultError(call.serverName(), call.toolName(), f.error(), id));
                    } else {
                        out.emit(new LoopEvent.ToolResultError(null, null, f.error(), id));
                    }
                }
                case ToolCallOutcome.Denied d ->
                        // a person's no is not the model's error: it neither counts nor resets the count
                        out.emit(new LoopEvent.ToolResultError(d.call().serverName(), d.call().toolName(), d.text(), id));
                case ToolCallOutcome.Cancelled c -> {
                    // only when cancelled, which ended the run before its outcomes came here
                }
                case ToolCallOutcome.Deferred d -> {
                    // it waits: the run stops with it
                }
            }
        }
    }

    // --- stopping and resuming ---

    /**
     * The run stops at calls that wait: the session keeps the waiting run (a stored session
     * stores it with the run's turns), one {@code approval_required} per call waiting for
     * approval, and the run ends {@code interrupted} with the waiting calls as its result.
     */
    private Transition suspend(MachineState at, Suspension waiting, Out out) {
        out.add(new Suspend(waiting));
        List<WaitingCall> calls = waiting.waiting();
        for (WaitingCall call : calls) {
            if (call.kind() == WaitingCall.Kind.APPROVAL) {
                out.emit(new LoopEvent.ApprovalRequired(call.id(), call.serverName(), call.toolName(), call.arguments()));
            }
        }
        return out.end(at, new LoopEvent.LoopEnd(LoopEndReason.INTERRUPTED, calls.size() == 1
                ? "waiting for a decision on tool call " + waiting.waitingIds()
                : "waiting for decisions on tool calls " + waiting.waitingIds()), calls);
    }

    /**
     * Carries the waiting run on: keeps the decisions (before anything runs), then runs the
     * answer's calls from where they stopped.
     */
    private Transition resume(Resume resume, Out out) {
        Suspension waiting = resume.waiting();
        ResumeLog log = resume.log();
        List<ResumeLog.Entry> decided = new ArrayList<>();
        Map<String, Decision> all = new LinkedHashMap<>();
        List<Suspension.Open> approvals = new ArrayList<>();
        for (Suspension.Open call : waiting.open()) {
            Decision given = resume.decisions().get(call.id());
            Decision earlier = call.held() != null ? call.held() : log.decision(call.id());
            if (earlier != null) {
                all.put(call.id(), earlier);
            } else if (given != null) {
                all.put(call.id(), given);
                decided.add(new ResumeLog.Decided(call.id(), given));
                if (call.kind() == WaitingCall.Kind.APPROVAL) {
                    approvals.add(call);
                }
            }
        }
        if (!decided.isEmpty()) {
            out.add(new LogResume(decided));         // every decision kept before a call runs
        }
        for (Suspension.Open call : approvals) {
            Decision decision = all.get(call.id());
            out.emit(new LoopEvent.Approval(call.id(), decision instanceof Decision.Approve,
                    decision instanceof Decision.Deny deny ? deny.reason() : ""));
        }
        ToolRegistry tools = tools();
        MachineState next = new MachineState(Phase.RUNNING_TOOLS, waiting.task(), false, waiting.iteration(),
                waiting.errors(), waiting.lastError(), 0, Message.user(waiting.task()), List.of(), true, waiting.head(),
                waiting.answer(), waiting.note(), tools, waiting, resume.givingUp(), null);
        return out.then(next, new MachineStep.RunTools(waiting.calls(), all, log, tools, resume.givingUp()));
    }

    /** The waiting answer's calls ran: the loop goes on as if they had run at once. */
    private Transition resumed(MachineState at, ToolsRan ran, Out out) {
        Suspension waiting = at.resuming;
        Counts counts = new Counts(at.errors, at.lastError);
        report(ran.newOutcomes(), ran.newIds(), counts, out);
        if (ran.suspended()) {
            return suspend(at, new Suspension(waiting.task(), waiting.iteration(), counts.errors, counts.lastError,
                    waiting.head(), waiting.note(), ran.entries()), out);
        }
        int runStart = session.memory().turns().size() - (waiting.iteration() - 1);
        List<Message> turn = new ArrayList<>(waiting.head());
        ToolChainResult result = ran.result();
        // Nothing waits once the turn is written, not before: should writing it fail, the stored
        // waiting run keeps the calls' logged results for the next resume instead of losing them.
        Optional<ToolEffect.EndRun> ending = at.givingUp ? Optional.empty() : result.endingRun();
        if (ending.isPresent()) {
            turn.addAll(protocol.closing(waiting.answer(), result));
            out.add(Resolved.INSTANCE);
            out.add(new MachineEffect.Remember(turn));
            return out.end(at, LoopEnds.ended(ending.get()), List.of());
        }
        List<Message> pending = protocol.observation(waiting.answer(), result, waiting.note());
        out.add(Resolved.INSTANCE);
        turn.addAll(pending);
        Handoff handoff = at.givingUp ? null : handoff(result);
        if (handoff != null) {
            return handOff(at, handoff, result.handingOff().get().message(), turn, out);
        }
        if (at.givingUp) {
            turn.add(Message.assistant(GAVE_UP));
            out.add(new MachineEffect.Remember(turn));
            return out.end(at, new LoopEvent.LoopEnd(LoopEndReason.CANCELLED, "cancelled: the waiting calls were denied"),
                    List.of());
        }
        out.add(new MachineEffect.Remember(turn));
        LoopEvent.LoopEnd stop = limits(waiting.iteration(), counts);
        if (stop != null) {
            return out.end(at, stop, List.of());
        }
        MachineState next = new MachineState(Phase.CONTINUING, waiting.task(), false, waiting.iteration(),
                counts.errors, counts.lastError, runStart, Message.user(waiting.task()), pending, true, List.of(), null,
                "", at.tools, null, false, null);
        return out.then(next, new MachineStep.Continue());
    }

    /**
     * The ids of an answer's calls: the provider's own in native mode (when each call has one
     * of its own), else {@code call_T_K}, T the turn the answer is kept as, K the call's place.
     */
    static List<String> callIds(Message assistant, List<DecodedToolCall> calls, int turn) {
        List<NativeToolCall> natives = assistant.toolCalls();
        boolean provided = natives.size() == calls.size() && !calls.isEmpty();
        String[] ids = new String[calls.size()];
        if (!provided) {
            // call_T_K alone: distinct by construction, nothing to look up (tags mode's every answer)
            for (int k = 0; k < ids.length; k++) {
                ids[k] = "call_" + turn + "_" + (k + 1);
            }
            return List.of(ids);
        }
        Set<String> seen = new HashSet<>();
        for (int k = 0; k < ids.length; k++) {
            String id = natives.get(k).id();
            if (id == null || id.isBlank() || !seen.add(id)) {
                id = "call_" + turn + "_" + (k + 1);
                seen.add(id);
            }
            ids[k] = id;
        }
        return List.of(ids);
    }

    // --- the inputs and effects only core makes ---

    /** The model's answer, as a {@link Reader} read it. */
    record Answered(AnswerReader.Reading reading) implements MachineInput {
    }

    /**
     * The carrying on of a waiting run: its decisions, by call id in the order given, checked.
     *
     * @param givingUp a resume that gives the waiting run up: no call runs, nothing goes to the model
     */
    record Resume(Suspension waiting, ResumeLog log, Map<String, Decision> decisions, boolean givingUp)
            implements MachineInput {
    }

    /**
     * The calls of an answer ran.
     *
     * @param result      every call's outcome, in call order; null when a call waits
     * @param newOutcomes the outcomes this batch gave, in call order
     * @param entries     every call as it stands now
     * @param suspended   whether a call waits: the run stops
     */
    record ToolsRan(ToolChainResult result, List<ToolCallOutcome> newOutcomes, List<Entry> entries,
                    boolean suspended, List<String> newIds) implements MachineInput {

        /** Without the calls' ids: the events then carry none. */
        ToolsRan(ToolChainResult result, List<ToolCallOutcome> newOutcomes, List<Entry> entries, boolean suspended) {
            this(result, newOutcomes, entries, suspended, List.of());
        }
    }

    /** The session keeps the waiting run (a stored session stores it). */
    record Suspend(Suspension waiting) implements MachineEffect {
        @Override
        public void applyTo(Session session, Consumer<? super AgentEvent> events) {
            session.suspend(waiting);
        }
    }

    /** What resuming did, kept (a stored session: stored) before the resume goes on. */
    record LogResume(List<ResumeLog.Entry> entries) implements MachineEffect {
        @Override
        public void applyTo(Session session, Consumer<? super AgentEvent> events) {
            session.logResume(entries);
        }
    }

    /**
     * The session's conversation goes to {@code handoff}'s agent, which sees the turns its
     * history lets it: all that the agent handing over saw, the last N, or none.
     */
    record HandOver(Handoff handoff) implements MachineEffect {
        @Override
        public void applyTo(Session session, Consumer<? super AgentEvent> events) {
            int size = session.memory().turns().size();
            int from = switch (handoff.history()) {
                case Handoff.History.All all -> Math.min(session.historyFrom(), size);
                case Handoff.History.LastTurns last -> Math.max(0, size - last.turns());
                case Handoff.History.Summary summary -> size;
            };
            session.control(new Session.Control(handoff.name(), from));
        }
    }

    /** The waiting run went on past its answer: nothing waits any more. */
    enum Resolved implements MachineEffect {
        INSTANCE;

        @Override
        public void applyTo(Session session, Consumer<? super AgentEvent> events) {
            session.resolved();
        }
    }

    /** The circuit breaker's count, within one transition. */
    private static final class Counts {
        int errors;
        String lastError;

        Counts(int errors, String lastError) {
            this.errors = errors;
            this.lastError = lastError;
        }

        void error(String message) {
            errors++;
            lastError = message;
        }
    }

    /**
     * The effects of one transition, in order. Most transitions have none, one or two (an
     * {@code iteration_start}; a result and the turn): those are kept in two fields and handed
     * over as the immutable list {@link Transition} keeps as it is, with no list grown and copied.
     */
    private static final class Out {
        private MachineEffect first;
        private MachineEffect second;
        /** From the third effect on, all of them; else null. */
        private List<MachineEffect> more;

        void emit(AgentEvent event) {
            add(new MachineEffect.Emit(event));
        }

        void add(MachineEffect effect) {
            if (more != null) {
                more.add(effect);
            } else if (first == null) {
                first = effect;
            } else if (second == null) {
                second = effect;
            } else {
                more = new ArrayList<>(6);
                more.add(first);
                more.add(second);
                more.add(effect);
            }
        }

        private List<MachineEffect> effects() {
            if (more != null) {
                return List.copyOf(more);
            }
            return first == null ? List.of() : second == null ? List.of(first) : List.of(first, second);
        }

        Transition then(MachineState state, MachineStep step) {
            return new Transition(state, effects(), step);
        }

        Transition end(MachineState at, LoopEvent.LoopEnd end, List<WaitingCall> waiting) {
            return new Transition(at.with(Phase.ENDED), effects(), new MachineStep.End(end, waiting));
        }
    }
}
