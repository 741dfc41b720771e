package dev.bellows.server;

import dev.bellows.json.internal.Jackson;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;
import dev.bellows.agent.WaitingCall;
import dev.bellows.event.AgentEvent;
import dev.bellows.event.LoopEndReason;
import dev.bellows.event.LoopEvent;
import dev.bellows.event.StreamEvent;
import dev.bellows.plan.PlanStep;
import dev.bellows.secret.Secrets;
import dev.bellows.tool.ToolCall;
import dev.bellows.tool.ToolCallError;
import java.io.IOException;
import java.security.SecureRandom;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;

/**
 * One run's Bellows events as AG-UI 1.x events, in the order {@code @ag-ui/client}'s verifier
 * asks for: {@code RUN_STARTED} first; each iteration a step; thinking as a reasoning span
 * holding one reasoning message; text as a text message; each tool call started the moment
 * its name is known ({@code TOOL_CALL_START} with {@code toolCallName}), its arguments as
 * {@code TOOL_CALL_ARGS} deltas while they stream, {@code TOOL_CALL_END}, then its
 * {@code TOOL_CALL_RESULT}; the plan as {@code STATE_SNAPSHOT} then {@code STATE_DELTA}; and
 * {@code RUN_FINISHED} or {@code RUN_ERROR} last, with everything still open closed before it.
 *
 * <p>Ids are minted per run from a random prefix, so that no two runs of a thread share one.
 * One instance per run, used by one thread.
 */
final class AguiEvents {

    /** Where the events go: one JSON object each. */
    interface Sink {
        void send(ObjectNode event) throws IOException;
    }

    static final String RETRY_EVENT = "bellows.retry";
    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;
    private static final ObjectMapper MAPPER = Jackson.JSON;
    private static final SecureRandom RANDOM = new SecureRandom();

    private final String threadId;
    private final String runId;
    private final boolean nativeToolCalls;
    private final Sink sink;
    private final String prefix;
    private final int turnsAtStart;
    private int counter;
    private int iteration;
    /** The tool blocks of the answer so far, and the native ids they used. */
    private int blocks;
    private final java.util.Set<String> nativeIds = new java.util.HashSet<>();
    /** The calls a resumed run answers first, whose results come before its first iteration. */
    private final Deque<String> resumed = new ArrayDeque<>();

    private String step;                    // the open step's name, or null
    private String text;                    // the open text message's id, or null
    private Secrets.Streaming textSecrets;  // the open text message's redactor: a secret may span deltas
    private String iterationTextId;         // the id of the iteration's last text message, for parentMessageId
    private final StringBuilder iterationText = new StringBuilder();
    private String reasoning;               // the open reasoning message's id, or null
    private Secrets.Streaming reasoningSecrets;
    private ToolBlock tool;                 // the open tool block, or null
    /** The tool calls of this iteration that ended, in order, waiting for their results. */
    private final Deque<EndedCall> awaitingResults = new ArrayDeque<>();
    private boolean stateSent;
    private boolean finished;

    private static final class ToolBlock {
        String id;
        String name;                        // null until known
        boolean started;                    // TOOL_CALL_START sent
        final ArgumentsStream arguments = new ArgumentsStream();
        final StringBuilder pending = new StringBuilder();  // content before the name was known
        boolean argumentsSent;
        final Secrets.Streaming secrets = Secrets.streaming();     // its streamed arguments' own
    }

    private record EndedCall(String id, String name, boolean decoded) {
    }

    /**
     * @param turnsAtStart the turns of the session's memory when the run started: tool-call ids
     *                     are the loop's own ({@code call_T_K}, T that plus the iteration), so an
     *                     interrupt, a waiting call and the client's answer all name a call alike
     */
    AguiEvents(String threadId, String runId, boolean nativeToolCalls, int turnsAtStart, Sink sink) {
        this.turnsAtStart = turnsAtStart;
        this.threadId = threadId;
        this.runId = runId;
        this.nativeToolCalls = nativeToolCalls;
        this.sink = sink;
        byte[] bytes = new byte[6];
        RANDOM.nextBytes(bytes);
        StringBuilder hex = new StringBuilder("b");
        for (byte b : bytes) {
            hex.append(String.format(Locale.ROOT, "%02x", b));
        }
        this.prefix = hex.toString();
    }

    private String id(String kind) {
        return prefix + "-" + kind + (++counter);
    }

    /** {@code RUN_STARTED}, then the plan the thread has, if any. */
    void started(List<PlanStep> plan) throws IOException {
        ObjectNode started = event("RUN_STARTED");
        started.put("threadId", threadId);
        started.put("runId", runId);
        sink.send(started);
        if (!plan.isEmpty()) {
            sendPlan(plan);
        }
    }

    /** Whether {@code RUN_FINISHED} or {@code RUN_ERROR} has been sent. */
    boolean finished() {
        return finished;
    }

    void on(AgentEvent event) throws IOException {
        if (finished) {
            return;
        }
        switch (event) {
            case LoopEvent.LoopStart e -> { }
            // a sub-agent's work (AG-UI's SUBAGENT_* events are not streamed yet): its answer reaches
            // the client as the tool call's result, like any tool's
            case LoopEvent.SubAgentEvent e -> { }
            // the new agent's events follow as the run's own
            case LoopEvent.Handoff e -> { }
            case LoopEvent.IterationStart e -> {
                closeAll();
                finishStep();
                resumed.clear();
                iteration = e.iteration();
                blocks = 0;
                nativeIds.clear();
                iterationText.setLength(0);
                iterationTextId = null;
                awaitingResults.clear();
                step = "iteration " + e.iteration();
                ObjectNode started = event("STEP_STARTED");
                started.put("stepName", step);
                sink.send(started);
            }
            case StreamEvent.ThinkingStart e -> {
                closeText();
                closeReasoning();
                reasoning = id("r");
                reasoningSecrets = Secrets.streaming();
                ObjectNode start = event("REASONING_START");
                start.put("messageId", reasoning);
                sink.send(start);
                ObjectNode message = event("REASONING_MESSAGE_START");
                message.put("messageId", reasoning);
                message.put("role", "reasoning");
                sink.send(message);
            }
            case StreamEvent.ThinkingContent e -> {
                if (reasoning != null) {
                    reasoningContent(reasoningSecrets.next(e.content()));
                }
            }
            case StreamEvent.ThinkingEnd e -> closeReasoning();
            case StreamEvent.MessageStart e -> {
                closeReasoning();
                closeText();
                text = id("m");
                textSecrets = Secrets.streaming();
                iterationTextId = text;
                ObjectNode start = event("TEXT_MESSAGE_START");
                start.put("messageId", text);
                start.put("role", "assistant");
                sink.send(start);
            }
            case StreamEvent.MessageContent e -> {
                if (text != null) {
                    iterationText.append(e.content());
                    textContent(textSecrets.next(e.content()));
                }
            }
            case StreamEvent.MessageEnd e -> closeText();
            case StreamEvent.ToolCallStart e -> {
                closeText();
                closeReasoning();
                closeTool(null);
                tool = new ToolBlock();
                tool.id = callId(e);
            }
            case StreamEvent.ToolCallArgument e -> {
                // AG-UI streams the arguments' text itself (TOOL_CALL_ARGS); a member read whole adds nothing
            }
            case StreamEvent.ToolCallName e -> {
                if (tool != null && !tool.started) {
                    tool.name = e.toolName();
                    startTool();
                    if (!tool.pending.isEmpty()) {
                        String before = tool.pending.toString();
                        tool.pending.setLength(0);
                        arguments(before);
                    }
                }
            }
            case StreamEvent.ToolCallContent e -> {
                if (tool != null) {
                    if (tool.started) {
                        arguments(e.content());
                    } else {
                        tool.pending.append(e.content());
                    }
                }
            }
            case StreamEvent.ToolCallEnd e -> closeTool(e);
            case StreamEvent.Section e -> { }
            case StreamEvent.Complete e -> { }
            case LoopEvent.ToolResultEvent e -> result(e.toolName(), e.result());
            case LoopEvent.ToolResultError e -> result(e.toolName(), e.error());
            case LoopEvent.NoToolCall e -> { }
            case LoopEvent.PlanUpdate e -> sendPlan(e.steps());
            case LoopEvent.ApprovalRequired e -> { }   // the interrupt of RUN_FINISHED says it
            case LoopEvent.Approval e -> { }
            case LoopEvent.Retry e -> {
                // What the failed attempt streamed is void: close it, and say so, so that a UI
                // drops what it showed of it (the new attempt starts the answer afresh).
                closeAll();
                iterationText.setLength(0);
                iterationTextId = null;
                awaitingResults.clear();
                blocks = 0;
                nativeIds.clear();
                ObjectNode custom = event("CUSTOM");
                custom.put("name", RETRY_EVENT);
                ObjectNode value = custom.putObject("value");
                value.put("attempt", e.attempt());
                value.put("reason", e.reason());
                value.put("delayMs", e.delayMs());
                sink.send(custom);
            }
            case LoopEvent.LoopEnd e -> end(e);
        }
    }

    /** Ends the run with {@code RUN_ERROR} (the run could not go on: the server stops it, or its store failed). */
    void error(String message, String code) throws IOException {
        if (finished) {
            return;
        }
        closeAll();
        finishStep();
        ObjectNode error = event("RUN_ERROR");
        error.put("message", message);
        error.put("code", code);
        finished = true;
        sink.send(error);
    }

    private void end(LoopEvent.LoopEnd end) throws IOException {
        closeAll();
        finishStep();
        LoopEndReason reason = end.reason();
        if (reason == LoopEndReason.INTERRUPTED) {
            return;     // interrupted(...) ends it, with the calls that wait
        }
        if (reason.successful()) {
            String answer = end.result();
            // The answer of a loop-breaking tool is not text the model streamed: show it as the
            // assistant's message, which is what a chat UI renders. A plain chat's answer is.
            if (!answer.isBlank() && !answer.strip().equals(iterationText.toString().strip())) {
                String id = id("m");
                ObjectNode start = event("TEXT_MESSAGE_START");
                start.put("messageId", id);
                start.put("role", "assistant");
                sink.send(start);
                ObjectNode content = event("TEXT_MESSAGE_CONTENT");
                content.put("messageId", id);
                content.put("delta", answer);
                sink.send(content);
                ObjectNode endText = event("TEXT_MESSAGE_END");
                endText.put("messageId", id);
                sink.send(endText);
            }
            ObjectNode finishedEvent = event("RUN_FINISHED");
            finishedEvent.put("threadId", threadId);
            finishedEvent.put("runId", runId);
            finishedEvent.put("result", answer);
            finishedEvent.putObject("outcome").put("type", "success");
            finished = true;
            sink.send(finishedEvent);
        } else if (reason == LoopEndReason.CANCELLED) {
            ObjectNode finishedEvent = event("RUN_FINISHED");
            finishedEvent.put("threadId", threadId);
            finishedEvent.put("runId", runId);
            finishedEvent.putObject("outcome").put("type", "cancelled");
            finished = true;
            sink.send(finishedEvent);
        } else {
            ObjectNode error = event("RUN_ERROR");
            error.put("message", end.result());
            error.put("code", reason.wireName());
            finished = true;
            sink.send(error);
        }
    }

    /**
     * Ends a run that stopped for waiting calls. Calls waiting for a person's approval make AG-UI
     * interrupts ({@code outcome} {@code interrupt}, one per waiting call, reason
     * {@code tool_approval} or, for a call whose result comes from outside, {@code tool_result});
     * when only such outside calls wait (the client's own tools), the run finished with them
     * pending ({@code outcome} {@code success}, {@code pendingToolCallIds}), and the client sends
     * each result as a {@code tool} message next.
     */
    void interrupted(List<WaitingCall> waiting) throws IOException {
        if (finished) {
            return;
        }
        closeAll();
        finishStep();
        ObjectNode finishedEvent = event("RUN_FINISHED");
        finishedEvent.put("threadId", threadId);
        finishedEvent.put("runId", runId);
        ObjectNode outcome = finishedEvent.putObject("outcome");
        boolean approvals = waiting.stream().anyMatch(w -> w.kind() == WaitingCall.Kind.APPROVAL);
        if (approvals || waiting.isEmpty()) {
            outcome.put("type", "interrupt");
            ArrayNode interrupts = outcome.putArray("interrupts");
            for (WaitingCall call : waiting) {
                ObjectNode interrupt = interrupts.addObject();
                interrupt.put("id", call.id());
                boolean approval = call.kind() == WaitingCall.Kind.APPROVAL;
                interrupt.put("reason", approval ? "tool_approval" : "tool_result");
                interrupt.put("message", (approval ? "Run " : "Give the result of ") + call.serverName() + "/"
                        + call.toolName() + " with " + call.arguments() + (approval ? "?" : ""));
                interrupt.put("toolCallId", call.id());
                ObjectNode metadata = interrupt.putObject("metadata");
                metadata.put("serverName", call.serverName());
                metadata.put("toolName", call.toolName());
                metadata.set("arguments", call.arguments());     // frozen: shared, not copied
            }
            if (waiting.isEmpty()) {
                outcome.removeAll();
                outcome.put("type", "success");
            }
        } else {
            outcome.put("type", "success");
            ArrayNode pending = outcome.putArray("pendingToolCallIds");
            waiting.forEach(call -> pending.add(call.id()));
        }
        finished = true;
        sink.send(finishedEvent);
    }

    /** A resumed run: the results that come before its first iteration are those of these calls, in order. */
    void resumed(List<String> callIds) {
        resumed.addAll(callIds);
    }

    /** The turns the conversation held when the run's task came (the loop numbers its calls from it). */
    int turnsAtStart() {
        return turnsAtStart;
    }

    /**
     * The calls shown ({@code TOOL_CALL_START}) that have no result yet, in call order: those a
     * resumed run had still to answer, then the current iteration's. After a run that stopped
     * with calls waiting, the next run sends their results first.
     */
    List<String> unanswered() {
        List<String> ids = new java.util.ArrayList<>(resumed);
        awaitingResults.forEach(call -> ids.add(call.id()));
        return ids;
    }

    /** The loop's id of the tool block starting now (see the constructor). */
    private String callId(StreamEvent.ToolCallStart start) {
        blocks++;
        String provided = nativeToolCalls ? start.attributes().get("id") : null;
        if (provided != null && !provided.isEmpty() && nativeIds.add(provided)) {
            return provided;
        }
        return "call_" + (turnsAtStart + iteration) + "_" + blocks;
    }

    private void sendPlan(List<PlanStep> steps) throws IOException {
        ArrayNode plan = NODES.arrayNode();
        for (PlanStep step : steps) {
            ObjectNode item = plan.addObject();
            item.put("description", step.description());
            item.put("status", step.status().name().toLowerCase(Locale.ROOT));
        }
        if (!stateSent) {
            ObjectNode snapshot = event("STATE_SNAPSHOT");
            snapshot.putObject("snapshot").set("plan", plan);
            stateSent = true;
            sink.send(snapshot);
        } else {
            ObjectNode delta = event("STATE_DELTA");
            ObjectNode replace = delta.putArray("delta").addObject();
            replace.put("op", "replace");
            replace.put("path", "/plan");
            replace.set("value", plan);
            sink.send(delta);
        }
    }

    private void startTool() throws IOException {
        closeText();
        ObjectNode start = event("TOOL_CALL_START");
        start.put("toolCallId", tool.id);
        start.put("toolCallName", tool.name);
        if (iterationTextId != null) {
            start.put("parentMessageId", iterationTextId);
        }
        tool.started = true;
        sink.send(start);
    }

    /** Streamed argument text: the native call's own, or the "arguments" value of a tag's JSON. */
    private void arguments(String content) throws IOException {
        String streamed = nativeToolCalls ? content : tool.arguments.next(content);
        if (!streamed.isEmpty()) {
            tool.argumentsSent = true;      // even when redaction holds it back: its end flushes it
        }
        sendArguments(tool.secrets.next(streamed));
    }

    private void sendArguments(String delta) throws IOException {
        if (!delta.isEmpty()) {
            ObjectNode args = event("TOOL_CALL_ARGS");
            args.put("toolCallId", tool.id);
            args.put("delta", delta);
            sink.send(args);
        }
    }

    /**
     * Ends the open tool block: started now if its name only became known at the end, the
     * decoded arguments sent whole if none streamed. A block that never got a name and could
     * not be decoded has no call to show; its error comes as a result of nothing.
     */
    private void closeTool(StreamEvent.ToolCallEnd end) throws IOException {
        if (tool == null) {
            return;
        }
        ToolBlock block = tool;
        boolean decoded = end != null && end.call() instanceof ToolCall;
        if (!block.started && end != null && end.call() instanceof ToolCall call) {
            block.name = call.toolName();
            startTool();
        }
        if (block.started) {
            if (!block.argumentsSent && end != null) {
                String whole = end.call() instanceof ToolCall call ? MAPPER.writeValueAsString(call.arguments())
                        : ((ToolCallError) end.call()).content();
                if (!whole.isEmpty()) {
                    ObjectNode args = event("TOOL_CALL_ARGS");
                    args.put("toolCallId", block.id);
                    args.put("delta", whole);
                    sink.send(args);
                }
            }
            sendArguments(block.secrets.flush());
            ObjectNode endEvent = event("TOOL_CALL_END");
            endEvent.put("toolCallId", block.id);
            sink.send(endEvent);
            if (end != null) {
                awaitingResults.add(new EndedCall(block.id, block.name, decoded));
            }
        }
        tool = null;
    }

    /** The result of the next call of this iteration (by name when known), as a tool message. */
    private void result(String toolName, String content) throws IOException {
        if (iteration == 0 || !resumed.isEmpty()) {
            String id = resumed.poll();
            if (id != null) {
                ObjectNode result = event("TOOL_CALL_RESULT");
                result.put("messageId", id("t"));
                result.put("toolCallId", id);
                result.put("content", content);
                result.put("role", "tool");
                sink.send(result);
            }
            return;
        }
        EndedCall call = null;
        for (Iterator<EndedCall> it = awaitingResults.iterator(); it.hasNext(); ) {
            EndedCall candidate = it.next();
            if (toolName == null ? !candidate.decoded() : toolName.equals(candidate.name())) {
                call = candidate;
                it.remove();
                break;
            }
        }
        if (call == null) {
            return;     // a call that was never shown (no name, not decodable)
        }
        ObjectNode result = event("TOOL_CALL_RESULT");
        result.put("messageId", id("t"));
        result.put("toolCallId", call.id());
        result.put("content", content);
        result.put("role", "tool");
        sink.send(result);
    }

    /** A delta of the open text message, unless redaction held it all back. */
    private void textContent(String delta) throws IOException {
        if (!delta.isEmpty()) {
            ObjectNode content = event("TEXT_MESSAGE_CONTENT");
            content.put("messageId", text);
            content.put("delta", delta);
            sink.send(content);
        }
    }

    private void reasoningContent(String delta) throws IOException {
        if (!delta.isEmpty()) {
            ObjectNode content = event("REASONING_MESSAGE_CONTENT");
            content.put("messageId", reasoning);
            content.put("delta", delta);
            sink.send(content);
        }
    }

    private void closeAll() throws IOException {
        closeText();
        closeReasoning();
        closeTool(null);
    }

    private void closeText() throws IOException {
        if (text != null) {
            textContent(textSecrets.flush());
            ObjectNode end = event("TEXT_MESSAGE_END");
            end.put("messageId", text);
            text = null;
            sink.send(end);
        }
    }

    private void closeReasoning() throws IOException {
        if (reasoning != null) {
            reasoningContent(reasoningSecrets.flush());
            ObjectNode end = event("REASONING_MESSAGE_END");
            end.put("messageId", reasoning);
            sink.send(end);
            ObjectNode span = event("REASONING_END");
            span.put("messageId", reasoning);
            reasoning = null;
            sink.send(span);
        }
    }

    private void finishStep() throws IOException {
        if (step != null) {
            ObjectNode finishedStep = event("STEP_FINISHED");
            finishedStep.put("stepName", step);
            step = null;
            sink.send(finishedStep);
        }
    }

    private static ObjectNode event(String type) {
        ObjectNode event = NODES.objectNode();
        event.put("type", type);
        event.put("timestamp", System.currentTimeMillis());
        return event;
    }

    static JsonNode tree(String json) throws IOException {
        return MAPPER.readTree(json);
    }
}
