package dev.bellows.agent;

import dev.bellows.event.LoopEndReason;
import dev.bellows.event.LoopEvent;
import dev.bellows.event.StreamEvent;
import dev.bellows.format.ToolCallOutcome;
import dev.bellows.format.ToolChain;
import dev.bellows.format.ToolChainResult;
import dev.bellows.plan.Plan;
import dev.bellows.prompt.PromptBuilder;
import dev.bellows.provider.ChatRequest;
import dev.bellows.provider.ChatStream;
import dev.bellows.provider.Message;
import dev.bellows.provider.ProviderException;
import dev.bellows.stream.ContentType;
import dev.bellows.stream.StreamChunk;
import dev.bellows.stream.StreamProcessor;
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
        LoopEvent.LoopEnd end = null;
        try {
            run.emit(new LoopEvent.LoopStart(task));
            end = agent.toolRegistry == null ? chat() : loop();
        } catch (Throwable t) {
            // Nothing escapes the run's thread: whatever broke ends the run as an error.
            end = new LoopEvent.LoopEnd(LoopEndReason.ERROR, "internal error: " + describe(t));
        } finally {
            if (end == null) {
                end = new LoopEvent.LoopEnd(LoopEndReason.ERROR, "the run ended without a result");
            }
            run.emit(end);
        }
    }

    /** The executor would not take the run: it ends before it began. */
    void rejected(Exception e) {
        run.emit(new LoopEvent.LoopStart(task));
        run.emit(new LoopEvent.LoopEnd(LoopEndReason.ERROR, "the agent's executor rejected the run: " + describe(e)));
    }

    // --- plain chat ---

    private LoopEvent.LoopEnd chat() {
        run.emit(new LoopEvent.IterationStart(1));
        List<Message> messages = new ArrayList<>();
        if (!agent.instructions.isBlank()) {
            messages.add(Message.system(agent.instructions));
        }
        messages.addAll(agent.memory.messages());
        Message user = Message.user(task);
        messages.add(user);
        Answer answer;
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
        PromptBuilder prompts = PromptBuilder.builder()
                .instructions(agent.instructions)
                .toolRegistry(agent.toolRegistry)
                .toolCallFormat(agent.toolCallFormat)
                .streamOptions(agent.streamOptions)
                .chainOfThought(agent.chainOfThought)
                .build();
        ToolChain chain = new ToolChain(agent.toolRegistry, agent.observationFormat);
        Message pending = Message.user(task);   // the current turn: the task, then observations and reminders
        boolean pendingInMemory = false;        // the task joins memory with its first answer
        int errors = 0;
        String lastError = "";
        for (int iteration = 1; ; iteration++) {
            if (run.isCancelled()) {
                return cancelled();
            }
            run.emit(new LoopEvent.IterationStart(iteration));
            List<Message> history = agent.memory.messages();
            if (pendingInMemory && !history.isEmpty() && history.getLast().equals(pending)) {
                history = history.subList(0, history.size() - 1);
            }
            List<Message> messages = prompts.build(history, pending, agent.plan(), Map.of());
            Answer answer;
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
                return new LoopEvent.LoopEnd(LoopEndReason.CIRCUIT_BREAKER, "stopped after " + errors
                        + " consecutive errors; the last: " + lastError);
            }
            if (iteration >= agent.maxIterations) {
                return new LoopEvent.LoopEnd(LoopEndReason.MAX_ITERATIONS, "stopped after " + iteration
                        + (iteration == 1 ? " iteration" : " iterations") + " without the task being finished");
            }
        }
    }

    /**
     * The loop ends the way the tool says: a {@link LoopBreak} names the reason (one of the
     * built-ins' names; any other name, a user's own loop-breaking tool, is
     * {@code task_completion}) and gives the text; any other output is the result as rendered.
     */
    private static LoopEvent.LoopEnd loopBreak(ToolCallOutcome.Succeeded call) {
        if (call.result().output() instanceof LoopBreak end) {
            LoopEndReason reason = LoopEndReason.fromWireName(end.toolName())
                    .filter(LoopEndReason::successful)
                    .orElse(LoopEndReason.TASK_COMPLETION);
            return new LoopEvent.LoopEnd(reason, end.text());
        }
        LoopEndReason reason = LoopEndReason.fromWireName(call.call().toolName())
                .filter(LoopEndReason::successful)
                .orElse(LoopEndReason.TASK_COMPLETION);
        return new LoopEvent.LoopEnd(reason, call.text());
    }

    // --- one model answer ---

    /** A complete answer: the raw text as the model wrote it (tags included) and what it parsed to. */
    private record Answer(String raw, StreamEvent.Complete complete) {
    }

    /** The attempt being read; a retry replaces it, so nothing of a broken attempt survives. */
    private final class Attempt {
        final StringBuilder raw = new StringBuilder();
        final StreamProcessor processor = new StreamProcessor(agent.streamOptions, event -> {
            if (!(event instanceof StreamEvent.Complete)) {
                run.emit(event);
            }
        });
    }

    private Answer stream(List<Message> messages) throws ProviderException {
        if (run.isCancelled()) {
            throw new ProviderException(ProviderException.Kind.CANCELLED, "the run was cancelled");
        }
        ChatRequest request = ChatRequest.builder().model(agent.model).messages(messages).build();
        Attempt[] attempt = {new Attempt()};
        ChatStream stream = agent.provider.stream(request, notice -> {
            run.emit(new LoopEvent.Retry(notice.attempt(), notice.reason(), notice.delay().toMillis()));
            // Whatever the broken attempt streamed (discardPartialOutput) is dropped here; when it
            // streamed nothing, a fresh attempt is the same as the old one.
            attempt[0] = new Attempt();
        });
        try (stream) {
            run.streamStarted(stream);
            for (StreamChunk chunk; (chunk = stream.next()) != null; ) {
                Attempt current = attempt[0];
                if (chunk.type() == ContentType.MESSAGE) {
                    current.raw.append(chunk.text());
                }
                current.processor.accept(chunk);
            }
        } finally {
            run.streamEnded();
        }
        Attempt last = attempt[0];
        return new Answer(last.raw.toString(), last.processor.finish());
    }

    private LoopEvent.LoopEnd failed(ProviderException e) {
        if (e.kind() == ProviderException.Kind.CANCELLED || run.isCancelled()) {
            return cancelled();
        }
        return new LoopEvent.LoopEnd(LoopEndReason.ERROR, e.getMessage());
    }

    private static LoopEvent.LoopEnd cancelled() {
        return new LoopEvent.LoopEnd(LoopEndReason.CANCELLED, "cancelled");
    }

    private static String describe(Throwable t) {
        String type = t.getClass().getSimpleName().isEmpty() ? t.getClass().getName() : t.getClass().getSimpleName();
        String message = t.getMessage();
        return message == null || message.isBlank() ? type : type + ": " + message;
    }
}
