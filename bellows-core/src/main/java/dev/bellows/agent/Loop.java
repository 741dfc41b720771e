package dev.bellows.agent;

import dev.bellows.event.LoopEndReason;
import dev.bellows.event.LoopEvent;
import dev.bellows.format.ToolCallOutcome;
import dev.bellows.format.ToolChain;
import dev.bellows.format.ToolChainResult;
import dev.bellows.memory.ConversationMemory;
import dev.bellows.plan.Plan;
import dev.bellows.provider.ChatRequest;
import dev.bellows.provider.Message;
import dev.bellows.provider.ProviderException;
import dev.bellows.tool.LoopBreak;
import dev.bellows.tool.Tool;
import dev.bellows.tool.ToolCall;
import dev.bellows.tool.ToolRegistry;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * One run: the loop every agent shares (turn bookkeeping, model call, retries, endings,
 * breaker, cap, plan, memory, events), or a plain chat's single call. What differs between
 * the ways of calling tools is the {@link Protocol}: the prompts and the {@link AnswerReader}.
 */
final class Loop implements Runnable {

    private final AgentOptions options;
    private final Protocol protocol;
    private final Session session;
    private final RunHandle run;
    private final String task;
    private final Tool completion;      // the run's own task_completion for a structured answer, or null
    private int errors;
    private String lastError = "";

    Loop(AgentOptions options, Protocol protocol, Session session, RunHandle run, String task, Tool completion) {
        this.completion = completion;
        this.options = options;
        this.protocol = protocol;
        this.session = session;
        this.run = run;
        this.task = task;
    }

    @Override
    public void run() {
        try {
            LoopEnds.runBetweenStartAndEnd(run, task, () -> {
                try {
                    return options.plainChat() ? chat() : loop();
                } catch (Ended ended) {
                    return ended.end;
                }
            });
        } finally {
            session.end(run);
        }
    }

    /** The run ended inside a step (the model call failed, or the run was cancelled). */
    private static final class Ended extends Exception {
        final LoopEvent.LoopEnd end;

        Ended(LoopEvent.LoopEnd end) {
            super(null, null, false, false);
            this.end = end;
        }
    }

    // --- plain chat ---

    private LoopEvent.LoopEnd chat() throws Ended {
        run.emit(new LoopEvent.IterationStart(1));
        ConversationMemory memory = session.memory();
        Message user = Message.user(task);
        Protocol.Frame frame = new Protocol.Frame(
                options.instructions.isBlank() ? null : Message.system(options.instructions), List.of(user));
        List<Message> history = History.within(memory, memory.turns().size(), user, frame.all(), List.of());
        AnswerReader.Reading answer = call(frame, history, null);
        memory.addTurn(List.of(user, answer.assistant()));
        return new LoopEvent.LoopEnd(LoopEndReason.CONVERSE, answer.text());
    }

    // --- the agent loop ---

    private LoopEvent.LoopEnd loop() throws Ended {
        ConversationMemory memory = session.memory();
        Message taskMessage = Message.user(task);
        List<Message> pending = List.of(taskMessage);   // the current turn: the task, then observations and reminders
        boolean pendingInMemory = false;        // the task joins memory with its first answer
        int runStart = memory.turns().size();
        for (int iteration = 1; ; iteration++) {
            checkCancelled();
            run.emit(new LoopEvent.IterationStart(iteration));
            ToolRegistry tools = options.tools.current(completion);
            Protocol.Frame frame = protocol.frame(tools, pending, session.plan());
            List<Message> history = History.within(memory, runStart, taskMessage, frame.all(),
                    pendingInMemory ? pending : List.of());
            if (pendingInMemory && history.size() >= pending.size()
                    && history.subList(history.size() - pending.size(), history.size()).equals(pending)) {
                history = history.subList(0, history.size() - pending.size());
            }
            AnswerReader.Reading answer = call(frame, history, tools);

            List<Message> turn = new ArrayList<>();
            if (!pendingInMemory) {
                turn.addAll(pending);
            }
            turn.add(answer.assistant());
            switch (answer.step()) {
                case AnswerReader.Step.NoAction none -> {
                    run.emit(new LoopEvent.NoToolCall(iteration));
                    error(none.error());
                    pending = List.of(Message.user(none.reply()));
                }
                case AnswerReader.Step.Finish done -> {
                    memory.addTurn(turn);
                    return new LoopEvent.LoopEnd(LoopEndReason.TASK_COMPLETION, done.answer());
                }
                case AnswerReader.Step.Unreadable unreadable -> {
                    // Nothing to run: the decoder's words go back as they are.
                    for (String message : unreadable.errors()) {
                        run.emit(new LoopEvent.ToolResultError(null, null, message));
                        error(message);
                    }
                    pending = List.of(Message.user(String.join("\n\n", unreadable.errors())));
                }
                case AnswerReader.Step.Act act -> {
                    ToolChain chain = protocol.toolChain(tools);
                    ToolChainResult result = run.runTools(() -> chain.execute(act.calls(), run::isCancelled));
                    checkCancelled();                   // the outcomes of an interrupted batch are not reported
                    report(result);
                    Optional<ToolCallOutcome.Succeeded> breaking = result.loopBreaking();
                    if (breaking.isPresent()) {
                        turn.addAll(protocol.closing(answer.assistant(), result));
                        memory.addTurn(turn);
                        return LoopEnds.loopBreak(breaking.get());
                    }
                    pending = protocol.observation(answer.assistant(), result, act.note());
                }
            }
            turn.addAll(pending);
            memory.addTurn(turn);
            pendingInMemory = true;

            if (errors >= options.maxConsecutiveErrors) {
                return LoopEnds.circuitBreaker(errors, lastError);
            }
            if (iteration >= options.maxIterations) {
                return LoopEnds.maxIterations(iteration);
            }
        }
    }

    private void checkCancelled() throws Ended {
        if (run.isCancelled()) {
            throw new Ended(LoopEnds.cancelled());
        }
    }

    /**
     * Sends the system message (when there is one), the history, then the current turn, and
     * reads the answer; a failed call or a cancelled run ends the run.
     */
    private AnswerReader.Reading call(Protocol.Frame frame, List<Message> history, ToolRegistry tools) throws Ended {
        List<Message> messages = new ArrayList<>(history.size() + frame.current().size() + 1);
        if (frame.system() != null) {
            messages.add(frame.system());
        }
        messages.addAll(history);
        messages.addAll(frame.current());
        ChatRequest request = ChatRequest.builder().model(options.model).messages(messages)
                .tools(tools == null ? List.of() : protocol.toolSpecs(tools)).build();
        AnswerReader.Reading answer;
        try {
            answer = ModelCall.stream(options.provider, request, run, () -> protocol.reader(tools, run::emit));
        } catch (ProviderException e) {
            throw new Ended(LoopEnds.failed(run, e));
        }
        checkCancelled();
        return answer;
    }

    private void error(String message) {
        errors++;
        lastError = message;
    }

    /** The events of a batch, in call order; each success resets the error count, each failure adds to it. */
    private void report(ToolChainResult result) {
        for (ToolCallOutcome outcome : result.outcomes()) {
            switch (outcome) {
                case ToolCallOutcome.Succeeded s -> {
                    errors = 0;
                    Object output = s.result().output();
                    String text = output instanceof LoopBreak end ? end.text() : s.text();
                    run.emit(new LoopEvent.ToolResultEvent(s.call().serverName(), s.call().toolName(),
                            s.call().arguments(), text));
                    if (output instanceof Plan plan) {
                        session.plan(plan);
                        run.emit(new LoopEvent.PlanUpdate(plan.steps()));
                    }
                }
                case ToolCallOutcome.Failed f -> {
                    error(f.error());
                    if (f.call() instanceof ToolCall call) {
                        run.emit(new LoopEvent.ToolResultError(call.serverName(), call.toolName(), f.error()));
                    } else {
                        run.emit(new LoopEvent.ToolResultError(null, null, f.error()));
                    }
                }
                case ToolCallOutcome.Cancelled c -> {
                    // only when cancelled, which ended the run above
                }
            }
        }
    }
}
