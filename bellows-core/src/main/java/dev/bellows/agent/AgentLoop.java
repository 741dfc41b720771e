package dev.bellows.agent;

import dev.bellows.event.LoopEndReason;
import dev.bellows.event.LoopEvent;
import dev.bellows.format.ToolCallOutcome;
import dev.bellows.format.ToolChain;
import dev.bellows.format.ToolChainResult;
import dev.bellows.plan.Plan;
import dev.bellows.prompt.PromptBuilder;
import dev.bellows.provider.Message;
import dev.bellows.provider.ProviderException;
import dev.bellows.tool.DecodedToolCall;
import dev.bellows.tool.LoopBreak;
import dev.bellows.tool.ToolCall;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** One run of a {@link DefaultAgent}: the loop, or a plain chat's single call. */
final class AgentLoop implements Runnable {

    private final DefaultAgent agent;
    private final RunHandle run;
    private final String task;

    AgentLoop(DefaultAgent agent, RunHandle run, String task) {
        this.agent = agent;
        this.run = run;
        this.task = task;
    }

    @Override
    public void run() {
        LoopEnds.runBetweenStartAndEnd(run, task, () -> agent.toolRegistry == null ? chat() : loop());
    }

    /** The executor would not take the run: it ends before it began. */
    void rejected(Exception e) {
        LoopEnds.rejected(run, task, e);
    }

    // --- plain chat ---

    private LoopEvent.LoopEnd chat() {
        run.emit(new LoopEvent.IterationStart(1));
        List<Message> messages = new ArrayList<>();
        if (!agent.instructions.isBlank()) {
            messages.add(Message.system(agent.instructions));
        }
        Message user = Message.user(task);
        List<Message> frame = new ArrayList<>(messages);
        frame.add(user);
        int runStart = agent.memory.turns().size();
        messages.addAll(History.within(agent.memory, runStart, user, frame, null));
        messages.add(user);
        ModelCall.Answer answer;
        try {
            answer = stream(messages);
        } catch (ProviderException e) {
            return failed(e);
        }
        if (run.isCancelled()) {
            return cancelled();
        }
        agent.memory.addTurn(List.of(user, Message.assistant(answer.raw())));
        return new LoopEvent.LoopEnd(LoopEndReason.CONVERSE, answer.complete().message());
    }

    // --- the agent loop ---

    private LoopEvent.LoopEnd loop() {
        PromptBuilder prompts = agent.prompts();
        ToolChain chain = new ToolChain(agent.toolRegistry, agent.observationFormat);
        Message taskMessage = Message.user(task);
        Message pending = taskMessage;          // the current turn: the task, then observations and reminders
        boolean pendingInMemory = false;        // the task joins memory with its first answer
        int runStart = agent.memory.turns().size();
        int errors = 0;
        String lastError = "";
        for (int iteration = 1; ; iteration++) {
            if (run.isCancelled()) {
                return cancelled();
            }
            run.emit(new LoopEvent.IterationStart(iteration));
            Plan currentPlan = agent.plan();
            List<Message> history = History.within(agent.memory, runStart, taskMessage,
                    prompts.build(List.of(), pending, currentPlan, Map.of()), pendingInMemory ? pending : null);
            if (pendingInMemory && !history.isEmpty() && history.getLast().equals(pending)) {
                history = history.subList(0, history.size() - 1);
            }
            List<Message> messages = prompts.build(history, pending, currentPlan, Map.of());
            ModelCall.Answer answer;
            try {
                answer = stream(messages);
            } catch (ProviderException e) {
                return failed(e);
            }
            if (run.isCancelled()) {
                return cancelled();
            }

            List<Message> turn = new ArrayList<>(3);
            if (!pendingInMemory) {
                turn.add(pending);
            }
            turn.add(Message.assistant(answer.raw()));
            List<DecodedToolCall> calls = answer.complete().toolCalls();
            if (calls.isEmpty()) {
                run.emit(new LoopEvent.NoToolCall(iteration));
                errors++;
                lastError = "the answer called no tool";
                pending = Message.user(prompts.noToolCallReminder());
            } else {
                ToolChainResult result = run.runTools(() -> chain.execute(calls, run::isCancelled));
                if (run.isCancelled()) {
                    return cancelled();         // the outcomes of an interrupted batch are not reported
                }
                for (ToolCallOutcome outcome : result.outcomes()) {
                    switch (outcome) {
                        case ToolCallOutcome.Succeeded s -> {
                            errors = 0;
                            Object output = s.result().output();
                            String text = output instanceof LoopBreak end ? end.text() : s.text();
                            run.emit(new LoopEvent.ToolResultEvent(s.call().serverName(), s.call().toolName(),
                                    s.call().arguments(), text));
                            if (output instanceof Plan plan) {
                                agent.replacePlan(plan);
                                run.emit(new LoopEvent.PlanUpdate(plan.steps()));
                            }
                        }
                        case ToolCallOutcome.Failed f -> {
                            errors++;
                            lastError = f.error();
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
                Optional<ToolCallOutcome.Succeeded> breaking = result.loopBreaking();
                if (breaking.isPresent()) {
                    agent.memory.addTurn(turn);
                    return loopBreak(breaking.get());
                }
                pending = Message.user(result.text());
            }
            turn.add(pending);
            agent.memory.addTurn(turn);
            pendingInMemory = true;

            if (errors >= agent.maxConsecutiveErrors) {
                return LoopEnds.circuitBreaker(errors, lastError);
            }
            if (iteration >= agent.maxIterations) {
                return LoopEnds.maxIterations(iteration);
            }
        }
    }

    private ModelCall.Answer stream(List<Message> messages) throws ProviderException {
        return new ModelCall(agent.provider, agent.model, agent.streamOptions, run).stream(messages);
    }

    private static LoopEvent.LoopEnd loopBreak(ToolCallOutcome.Succeeded call) {
        return LoopEnds.loopBreak(call);
    }

    private LoopEvent.LoopEnd failed(ProviderException e) {
        return LoopEnds.failed(run, e);
    }

    private static LoopEvent.LoopEnd cancelled() {
        return LoopEnds.cancelled();
    }
}
