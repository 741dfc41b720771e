package dev.bellows.agent;

import dev.bellows.event.LoopEndReason;
import dev.bellows.event.LoopEvent;
import dev.bellows.format.TextFormatException;
import dev.bellows.format.ToolCallOutcome;
import dev.bellows.format.ToolChain;
import dev.bellows.format.ToolChainResult;
import dev.bellows.prompt.ReActPrompts;
import dev.bellows.provider.Message;
import dev.bellows.provider.ProviderException;
import dev.bellows.stream.ActionDecoder;
import dev.bellows.tool.DecodedToolCall;
import dev.bellows.tool.LoopBreak;
import dev.bellows.tool.ToolCall;
import dev.bellows.tool.ToolCallError;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** One run of a {@link ReActAgent}. */
final class ReActLoop implements Runnable {

    private final ReActAgent agent;
    private final RunHandle run;
    private final String task;

    private int errors;
    private String lastError = "";

    ReActLoop(ReActAgent agent, RunHandle run, String task) {
        this.agent = agent;
        this.run = run;
        this.task = task;
    }

    @Override
    public void run() {
        LoopEnds.runBetweenStartAndEnd(run, task, this::loop);
    }

    private LoopEvent.LoopEnd loop() {
        ReActPrompts prompts = agent.prompts();
        ToolChain chain = new ToolChain(agent.toolRegistry, agent.textFormat, agent.outputFormat);
        ModelCall model = new ModelCall(agent.provider, agent.model, agent.streamOptions, run);
        Message taskMessage = Message.user(task);
        Message pending = taskMessage;          // the current turn: the task, then observations and corrections
        boolean pendingInMemory = false;        // the task joins memory with its first answer
        int runStart = agent.memory.turns().size();
        for (int iteration = 1; ; iteration++) {
            if (run.isCancelled()) {
                return LoopEnds.cancelled();
            }
            run.emit(new LoopEvent.IterationStart(iteration));
            List<Message> history = History.within(agent.memory, runStart, taskMessage,
                    List.of(prompts.systemMessage(), pending), pendingInMemory ? pending : null);
            if (pendingInMemory && !history.isEmpty() && history.getLast().equals(pending)) {
                history = history.subList(0, history.size() - 1);
            }
            List<Message> messages = new ArrayList<>(history.size() + 2);
            messages.add(prompts.systemMessage());
            messages.addAll(history);
            messages.add(pending);
            ModelCall.Answer answer;
            try {
                answer = model.stream(messages);
            } catch (ProviderException e) {
                return LoopEnds.failed(run, e);
            }
            if (run.isCancelled()) {
                return LoopEnds.cancelled();
            }

            List<Message> turn = new ArrayList<>(3);
            if (!pendingInMemory) {
                turn.add(pending);
            }
            turn.add(Message.assistant(answer.raw()));

            Map<String, List<String>> sections;
            try {
                sections = agent.textFormat.parse(answer.complete().message());
            } catch (TextFormatException e) {
                sections = null;
                run.emit(new LoopEvent.NoToolCall(iteration));
                error(e.getMessage());
                pending = Message.user(e.getMessage());
            }
            if (sections != null) {
                List<String> actions = sections.getOrDefault(ReActPrompts.ACTION, List.of());
                List<String> answers = sections.getOrDefault(ReActPrompts.ANSWER, List.of());
                if (actions.isEmpty() && !answers.isEmpty()) {
                    agent.memory.addTurn(turn);
                    return new LoopEvent.LoopEnd(LoopEndReason.TASK_COMPLETION, String.join("\n\n", answers));
                }
                if (actions.isEmpty()) {
                    run.emit(new LoopEvent.NoToolCall(iteration));
                    error("the answer has neither an action nor an answer");
                    pending = Message.user(prompts.noActionReminder());
                } else {
                    List<DecodedToolCall> calls = new ArrayList<>();
                    List<String> unreadable = new ArrayList<>();
                    for (String action : actions) {
                        try {
                            calls.addAll(ActionDecoder.decode(action, agent.actionFormat));
                        } catch (ActionDecoder.ActionException e) {
                            calls.add(new ToolCallError(action, e.getMessage()));
                            unreadable.add(e.getMessage());
                        }
                    }
                    if (unreadable.size() == calls.size()) {
                        // Nothing to run: the decoder's words go back as they are.
                        for (String message : unreadable) {
                            run.emit(new LoopEvent.ToolResultError(null, null, message));
                            error(message);
                        }
                        pending = Message.user(String.join("\n\n", unreadable));
                    } else {
                        ToolChainResult result = run.runTools(() -> chain.execute(calls, run::isCancelled));
                        if (run.isCancelled()) {
                            return LoopEnds.cancelled();
                        }
                        report(result);
                        Optional<ToolCallOutcome.Succeeded> breaking = result.loopBreaking();
                        if (breaking.isPresent()) {
                            agent.memory.addTurn(turn);
                            return LoopEnds.loopBreak(breaking.get());
                        }
                        pending = Message.user(answers.isEmpty()
                                ? result.text()
                                : result.text() + "\n\n" + prompts.answerIgnoredNote());
                    }
                }
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
                    String text = s.result().output() instanceof LoopBreak end ? end.text() : s.text();
                    run.emit(new LoopEvent.ToolResultEvent(s.call().serverName(), s.call().toolName(),
                            s.call().arguments(), text));
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
                    // only when cancelled, which ends the run
                }
            }
        }
    }
}
