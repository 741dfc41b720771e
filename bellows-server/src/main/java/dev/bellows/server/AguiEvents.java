package dev.bellows.server;

import dev.bellows.json.internal.Jackson;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;
import dev.bellows.agent.WaitingCall;
import dev.bellows.event.AgentEvent;
import dev.bellows.tool.LoopEndReason;
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
 * <p>A sub-agent's work (an agent offered as a tool, {@link LoopEvent.SubAgentEvent}) is streamed
 * between {@code SUBAGENT_STARTED} ({@code subagentRunId}, {@code name}, {@code parentToolCallId},
 * and {@code parentSubagentRunId} when it is itself a sub-agent's) and {@code SUBAGENT_FINISHED}
 * or {@code SUBAGENT_ERROR}, each of its events mapped as the run's own are and carrying its
 * {@code subagentRunId}: one child instance per sub-agent invocation, sharing the run's sink and
 * ids. A sub-agent's tool calls are named {@code PARENT_CALL/ITS_CALL} (its own loop's id under
 * the AG-UI id of the call that runs it), so that ids stay unique in the run and say where a call
 * sits; a sub-agent's plan is not sent (the thread's state is its own agent's plan).
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
    static final String HANDOFF_EVENT = "bellows.handoff";
    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;
    private static final ObjectMapper MAPPER = Jackson.JSON;
    private static final SecureRandom RANDOM = new SecureRandom();

    private final String threadId;
    private final String runId;
    private final boolean nativeToolCalls;
    private final Ids ids;
    private final int turnsAtStart;
    private boolean askEveryWait;
    private int iteration;
    /** A sub-agent's: its AG-UI id, and what its calls' ids start with; null and "" for the run's own agent. */
    private final String subagentRunId;
    private final String callPrefix;
    /** The AG-UI ids of this agent's calls, by its loop's ids (the ids its sub-agents' events name). */
    private final java.util.Map<String, String> shownIds = new java.util.HashMap<>();
    /** The sub-agents running in this agent's calls, by the call's loop id and the sub-agent's name. */
    private final java.util.Map<String, AguiEvents> children = new java.util.LinkedHashMap<>();
    /** A sub-agent's: the AG-UI ids of its calls that wait for approval, and whether it has ended. */
    private final List<String> waitingIds = new java.util.ArrayList<>();
    private boolean subagentEnded;
    /**
     * A sub-agent's run ended at calls that wait: it is told once it is known whether the whole
     * run waits for them (suspended) or the call that ran it failed (an error).
     */
    private boolean endsWaiting;
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
        String loopId;                      // the loop's own id (the id above without a sub-agent's prefix)
        String name;                        // null until known
        boolean started;                    // TOOL_CALL_START sent
        final ArgumentsStream arguments = new ArgumentsStream();
        final StringBuilder pending = new StringBuilder();  // content before the name was known
        boolean argumentsSent;
        final Secrets.Streaming secrets = Secrets.streaming();     // its streamed arguments' own
    }

    private record EndedCall(String id, String loopId, String name, boolean decoded) {
    }

    /**
     * What a run's agent and its sub-agents share: the sink, the random prefix ids are minted
     * from, and which agent (its subagentRunId, "" for the run's own) showed each tool call id.
     */
    private static final class Ids {
        final Sink sink;
        final String prefix;
        int counter;
        final java.util.Map<String, String> callOwners = new java.util.HashMap<>();
        /** The run ends waiting for calls: a sub-agent that stopped at its own waits with it. */
        boolean runWaits;

        Ids(Sink sink) {
            this.sink = sink;
            byte[] bytes = new byte[6];
            RANDOM.nextBytes(bytes);
            StringBuilder hex = new StringBuilder("b");
            for (byte b : bytes) {
                hex.append(String.format(Locale.ROOT, "%02x", b));
            }
            this.prefix = hex.toString();
        }

        /**
         * {@code wanted}, or, when another agent of the run showed a call with that id already
         * (two agents of a sequence under one call), {@code wanted~N}: AG-UI ties an id to the
         * agent that opened it. The same agent may show an id again (a retried answer).
         */
        String callId(String wanted, String owner) {
            String id = wanted;
            for (int n = 2; ; n++) {
                String had = callOwners.putIfAbsent(id, owner);
                if (had == null || had.equals(owner)) {
                    return id;
                }
                id = wanted + "~" + n;
            }
        }
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
        this.ids = new Ids(sink);
        this.subagentRunId = null;
        this.callPrefix = "";
    }

    /** A sub-agent's, running in the call {@code parentCallId} (its AG-UI id) of {@code parent}'s agent. */
    private AguiEvents(AguiEvents parent, String parentCallId) {
        this.threadId = parent.threadId;
        this.runId = parent.runId;
        this.nativeToolCalls = false;       // its own calls' ids are read from their start (see callId)
        this.ids = parent.ids;
        this.turnsAtStart = 0;              // a sub-agent starts a fresh session
        this.subagentRunId = id("s");
        this.callPrefix = parentCallId + "/";
    }

    private String id(String kind) {
        return ids.prefix + "-" + kind + (++ids.counter);
    }

    private void send(ObjectNode event) throws IOException {
        ids.sink.send(event);
    }

    /** {@code RUN_STARTED}, then the plan the thread has, if any. */
    void started(List<PlanStep> plan) throws IOException {
        ObjectNode started = event("RUN_STARTED");
        started.put("threadId", threadId);
        started.put("runId", runId);
        send(started);
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
            case LoopEvent.SubAgentEvent e -> nested(e);
            case LoopEvent.Handoff e -> {
                // the new agent's events follow as the run's own: a UI may show who took over
                ObjectNode custom = event("CUSTOM");
                custom.put("name", HANDOFF_EVENT);
                custom.putObject("value").put("from", e.from()).put("to", e.to());
                send(custom);
            }
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
                send(started);
            }
            case StreamEvent.ThinkingStart e -> {
                closeText();
                closeReasoning();
                reasoning = id("r");
                reasoningSecrets = Secrets.streaming();
                ObjectNode start = event("REASONING_START");
                start.put("messageId", reasoning);
                send(start);
                ObjectNode message = event("REASONING_MESSAGE_START");
                message.put("messageId", reasoning);
                message.put("role", "reasoning");
                send(message);
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
                send(start);
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
                named(tool, e);
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
            case LoopEvent.PlanUpdate e -> {
                if (subagentRunId == null) {
                    sendPlan(e.steps());
                }
            }
            case LoopEvent.ApprovalRequired e -> {
                // the interrupt of RUN_FINISHED says it; a sub-agent's suspended outcome names it
                if (subagentRunId != null) {
                    waitingIds.add(shownIds.getOrDefault(e.id(), callPrefix + e.id()));
                }
            }
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
                send(custom);
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
        send(error);
    }

    private void end(LoopEvent.LoopEnd end) throws IOException {
        if (subagentRunId == null && end.reason() == LoopEndReason.INTERRUPTED) {
            ids.runWaits = true;        // its sub-agents that stopped at waiting calls wait with it
            return;     // interrupted(...) ends it, with the calls that wait (its sub-agents' named first)
        }
        closeAll();
        finishStep();
        LoopEndReason reason = end.reason();
        if (subagentRunId != null) {
            subagentEnded(reason, end.result());
            return;
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
                send(start);
                ObjectNode content = event("TEXT_MESSAGE_CONTENT");
                content.put("messageId", id);
                content.put("delta", answer);
                send(content);
                ObjectNode endText = event("TEXT_MESSAGE_END");
                endText.put("messageId", id);
                send(endText);
            }
            ObjectNode finishedEvent = event("RUN_FINISHED");
            finishedEvent.put("threadId", threadId);
            finishedEvent.put("runId", runId);
            finishedEvent.put("result", answer);
            finishedEvent.putObject("outcome").put("type", "success");
            finished = true;
            send(finishedEvent);
        } else if (reason == LoopEndReason.CANCELLED) {
            ObjectNode finishedEvent = event("RUN_FINISHED");
            finishedEvent.put("threadId", threadId);
            finishedEvent.put("runId", runId);
            finishedEvent.putObject("outcome").put("type", "cancelled");
            finished = true;
            send(finishedEvent);
        } else {
            ObjectNode error = event("RUN_ERROR");
            error.put("message", end.result());
            error.put("code", reason.wireName());
            finished = true;
            send(error);
        }
    }

    /**
     * Ends a run that stopped for waiting calls. Calls waiting for a person's approval, or a
     * sub-agent's calls waiting for an answer (a remote agent's question), make AG-UI interrupts
     * ({@code outcome} {@code interrupt}, one per waiting call, reason {@code tool_approval} or,
     * for a call whose result comes from outside, {@code tool_result}); when only the run's own
     * outside calls wait (the client's own tools), the run finished with them
     * pending ({@code outcome} {@code success}, {@code pendingToolCallIds}), and the client sends
     * each result as a {@code tool} message next.
     */
    void interrupted(List<WaitingCall> waiting) throws IOException {
        if (finished) {
            return;
        }
        ids.runWaits = true;
        for (WaitingCall call : waiting) {
            noteWaiting(call.id(), call.id());
        }
        closeAll();
        finishStep();
        ObjectNode finishedEvent = event("RUN_FINISHED");
        finishedEvent.put("threadId", threadId);
        finishedEvent.put("runId", runId);
        ObjectNode outcome = finishedEvent.putObject("outcome");
        // a sub-agent's call (ID/THEIRS) is never one of the client's own tools: it is asked as an interrupt
        boolean asked = askEveryWait || waiting.stream().anyMatch(w -> w.kind() == WaitingCall.Kind.APPROVAL
                || w.id().contains("/"));
        if (asked || waiting.isEmpty()) {
            outcome.put("type", "interrupt");
            ArrayNode interrupts = outcome.putArray("interrupts");
            for (WaitingCall call : waiting) {
                ObjectNode interrupt = interrupts.addObject();
                interrupt.put("id", call.id());
                boolean approval = call.kind() == WaitingCall.Kind.APPROVAL;
                interrupt.put("reason", approval ? "tool_approval" : "tool_result");
                // an agent's question (a remote task's) is asked as it is
                JsonNode question = call.arguments().path("question");
                interrupt.put("message", !approval && question.isString() && !question.asString().isBlank()
                        ? call.toolName() + " asks: " + question.asString()
                        : (approval ? "Run " : "Give the result of ") + call.serverName() + "/"
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
        send(finishedEvent);
    }

    /**
     * Asks every call the run stops at as an interrupt, none as the client's own pending tool
     * call: the agent's waits are its own (a remote agent's question).
     */
    void askEveryWait() {
        askEveryWait = true;
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

    /**
     * The loop's id of the tool block starting now (see the constructor), or for a sub-agent's
     * block that id under its parent call's (a sub-agent's tool mode is its own: the provider's
     * id is taken when its start carries one).
     */
    private void named(ToolBlock block, StreamEvent.ToolCallStart start) {
        blocks++;
        String provided = nativeToolCalls || subagentRunId != null ? start.attributes().get("id") : null;
        String loopId = provided != null && !provided.isEmpty() && nativeIds.add(provided) ? provided
                : "call_" + (turnsAtStart + iteration) + "_" + blocks;
        block.loopId = loopId;
        block.id = ids.callId(callPrefix + loopId, subagentRunId == null ? "" : subagentRunId);
        shownIds.put(loopId, block.id);
    }

    /** The AG-UI id of this agent's call that the loop names {@code loopId}. */
    private String shownId(String loopId) {
        return shownIds.getOrDefault(loopId, callPrefix + loopId);
    }

    /**
     * A sub-agent's event: to the sub-agent's own mapper, started ({@code SUBAGENT_STARTED}) by
     * its first event and let go of after its last ({@code loop_end}). Deeper levels go on down.
     */
    private void nested(LoopEvent.SubAgentEvent nested) throws IOException {
        String key = nested.parentCallId() + " " + nested.agent();
        AguiEvents child = children.get(key);
        if (child == null) {
            String parentCallId = shownId(nested.parentCallId());
            child = new AguiEvents(this, parentCallId);
            children.put(key, child);
            ObjectNode started = event("SUBAGENT_STARTED");
            started.remove("subagentRunId");    // here it names the sub-agent; its parent's is parentSubagentRunId
            started.put("subagentRunId", child.subagentRunId);
            started.put("name", nested.agent());
            started.put("parentToolCallId", parentCallId);
            if (subagentRunId != null) {
                started.put("parentSubagentRunId", subagentRunId);
            }
            if (nested.event() instanceof LoopEvent.LoopStart start) {
                // the task it was given (a workflow's later agents get another than the call's)
                started.putObject("metadata").put("task", start.task());
            }
            send(started);
        }
        child.on(nested.event());
        if (child.subagentEnded) {
            children.remove(key);
        }
    }

    /**
     * The waiting call {@code id} as one its sub-agents wait on (each level down to the one that
     * made it), for their {@code suspended} outcome: a call that waits for an answer from outside
     * (a remote agent's question) has no {@code approval_required} to name it. {@code below} is
     * the part of the id under this agent: its call's loop id, {@code /}, the sub-agent's own.
     */
    private void noteWaiting(String id, String below) {
        int slash = below.indexOf('/');
        if (slash < 0) {
            return;
        }
        String loopId = below.substring(0, slash);
        for (java.util.Map.Entry<String, AguiEvents> entry : children.entrySet()) {
            if (entry.getKey().startsWith(loopId + " ")) {
                AguiEvents child = entry.getValue();
                if (!child.waitingIds.contains(id)) {
                    child.waitingIds.add(id);
                }
                child.noteWaiting(id, below.substring(slash + 1));
            }
        }
    }

    /**
     * A sub-agent's end: {@code SUBAGENT_FINISHED} with its answer when it answered, with
     * {@code outcome} {@code suspended} (its waiting calls' ids) when it stopped at calls that
     * wait and the whole run waits for them, else {@code SUBAGENT_ERROR} with the reason in words
     * and its name as the code. A stop at waiting calls is told later ({@link #closeChildren}).
     */
    private void subagentEnded(LoopEndReason reason, String result) throws IOException {
        if (subagentEnded) {
            return;
        }
        if (reason == LoopEndReason.INTERRUPTED && !ids.runWaits) {
            endsWaiting = true;
            return;
        }
        subagentEnded = true;
        if (reason.successful() || reason == LoopEndReason.INTERRUPTED) {
            ObjectNode finishedEvent = event("SUBAGENT_FINISHED");
            ObjectNode outcome = finishedEvent.putObject("outcome");
            if (reason.successful()) {
                finishedEvent.put("result", result);
                outcome.put("type", "success");
            } else {
                outcome.put("type", "suspended");
                ArrayNode waiting = outcome.putArray("interruptIds");
                waitingIds.forEach(waiting::add);
            }
            send(finishedEvent);
        } else {
            subagentError(result.isBlank() ? "the sub-agent ended " + reason.wireName() : result, reason.wireName());
        }
    }

    private void subagentError(String message, String code) throws IOException {
        subagentEnded = true;
        ObjectNode error = event("SUBAGENT_ERROR");
        error.put("message", message);
        error.put("code", code);
        send(error);
    }

    /** Ends the sub-agents still open in this agent's calls ({@code under} one call's loop id, or all when null). */
    private void closeChildren(String under) throws IOException {
        for (Iterator<java.util.Map.Entry<String, AguiEvents>> it = children.entrySet().iterator(); it.hasNext(); ) {
            java.util.Map.Entry<String, AguiEvents> entry = it.next();
            if (under == null || entry.getKey().startsWith(under + " ")) {
                AguiEvents child = entry.getValue();
                child.closeAll();
                child.finishStep();
                if (child.endsWaiting && ids.runWaits) {
                    child.subagentEnded(LoopEndReason.INTERRUPTED, "");
                } else if (child.endsWaiting) {
                    // the run goes on: the call that ran it failed, and its waiting calls never run
                    child.subagentError("it stopped at calls that wait for approval (" + String.join(", ", child.waitingIds)
                            + "), which its caller's run does not wait for", LoopEndReason.INTERRUPTED.wireName());
                } else {
                    // no loop_end reached us: the call that ran it ended first (cancelled, or failed)
                    child.subagentEnded(LoopEndReason.CANCELLED, "the call that ran it ended before it did");
                }
                it.remove();
            }
        }
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
            send(snapshot);
        } else {
            ObjectNode delta = event("STATE_DELTA");
            ObjectNode replace = delta.putArray("delta").addObject();
            replace.put("op", "replace");
            replace.put("path", "/plan");
            replace.set("value", plan);
            send(delta);
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
        send(start);
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
            send(args);
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
                    send(args);
                }
            }
            sendArguments(block.secrets.flush());
            ObjectNode endEvent = event("TOOL_CALL_END");
            endEvent.put("toolCallId", block.id);
            send(endEvent);
            if (end != null) {
                awaitingResults.add(new EndedCall(block.id, block.loopId, block.name, decoded));
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
                send(result);
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
        closeChildren(call.loopId());
        ObjectNode result = event("TOOL_CALL_RESULT");
        result.put("messageId", id("t"));
        result.put("toolCallId", call.id());
        result.put("content", content);
        result.put("role", "tool");
        send(result);
    }

    /** A delta of the open text message, unless redaction held it all back. */
    private void textContent(String delta) throws IOException {
        if (!delta.isEmpty()) {
            ObjectNode content = event("TEXT_MESSAGE_CONTENT");
            content.put("messageId", text);
            content.put("delta", delta);
            send(content);
        }
    }

    private void reasoningContent(String delta) throws IOException {
        if (!delta.isEmpty()) {
            ObjectNode content = event("REASONING_MESSAGE_CONTENT");
            content.put("messageId", reasoning);
            content.put("delta", delta);
            send(content);
        }
    }

    private void closeAll() throws IOException {
        closeChildren(null);
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
            send(end);
        }
    }

    private void closeReasoning() throws IOException {
        if (reasoning != null) {
            reasoningContent(reasoningSecrets.flush());
            ObjectNode end = event("REASONING_MESSAGE_END");
            end.put("messageId", reasoning);
            send(end);
            ObjectNode span = event("REASONING_END");
            span.put("messageId", reasoning);
            reasoning = null;
            send(span);
        }
    }

    private void finishStep() throws IOException {
        if (step != null) {
            ObjectNode finishedStep = event("STEP_FINISHED");
            finishedStep.put("stepName", step);
            step = null;
            send(finishedStep);
        }
    }

    /** An event of this agent's: a sub-agent's carries its {@code subagentRunId}. */
    private ObjectNode event(String type) {
        ObjectNode event = NODES.objectNode();
        event.put("type", type);
        event.put("timestamp", System.currentTimeMillis());
        if (subagentRunId != null) {
            event.put("subagentRunId", subagentRunId);
        }
        return event;
    }

    static JsonNode tree(String json) throws IOException {
        return MAPPER.readTree(json);
    }
}
