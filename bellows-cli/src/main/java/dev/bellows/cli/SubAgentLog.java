package dev.bellows.cli;

import dev.bellows.event.AgentEvent;
import dev.bellows.event.EventJson;
import dev.bellows.event.LoopEvent;
import dev.bellows.event.StreamEvent;
import dev.bellows.json.internal.Jackson;
import dev.bellows.memory.SessionStoreException;
import dev.bellows.memory.StoredSession;
import dev.bellows.secret.Secrets;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * A stored session's record of its sub-agents' work (cli.md, "Agents that work together"): what
 * {@code bellows run}'s text output shows of a sub-agent (its task, the tools it calls, their
 * results, what waits for approval, its end), each event kept with the agent that emitted it and
 * the parent call of every level, so that {@code bellows sessions show} prints the tree nested as
 * the run printed it. Kept in the session's metadata, one entry per call of the run's own agent
 * that ran sub-agents ({@code subagents:CALL_ID}), written when the run's own agent goes on after
 * them (its next event), secrets redacted and long texts cut. The model never reads it: the
 * conversation is the turns.
 *
 * <p>One per stored session's run, told the run's events on the run's thread.
 */
final class SubAgentLog {

    /** The metadata keys' prefix: the rest is the id of the run's call that ran the sub-agents. */
    static final String PREFIX = "subagents:";
    /** The most events kept per call, and the longest text kept of one value. */
    private static final int MAX_EVENTS = 500;
    private static final int MAX_TEXT = 2000;

    private final StoredSession session;
    private final Map<String, ArrayNode> byCall = new LinkedHashMap<>();
    private final Set<String> unwritten = new HashSet<>();

    SubAgentLog(StoredSession session) {
        this.session = session;
    }

    /**
     * Keeps a sub-agent's event that the text output shows; any event of the run's own agent
     * writes what is kept. Synchronized: the events of sub-agents in parallel calls come on the
     * calls' threads (one at a time).
     */
    synchronized void onEvent(AgentEvent event) {
        if (!(event instanceof LoopEvent.SubAgentEvent nested)) {
            if (!unwritten.isEmpty()) {
                write();
            }
            return;
        }
        if (!shown(nested.innermost())) {
            return;
        }
        ArrayNode events = byCall.computeIfAbsent(nested.parentCallId(), call -> Jackson.JSON.createArrayNode());
        if (events.size() >= MAX_EVENTS) {
            return;
        }
        ObjectNode kept = events.addObject();
        ArrayNode path = kept.putArray("path");
        for (AgentEvent level = nested; level instanceof LoopEvent.SubAgentEvent sub; level = sub.event()) {
            path.addObject().put("agent", sub.agent()).put("parent_call_id", sub.parentCallId());
        }
        kept.set("event", cut(EventJson.toJson(nested.innermost())));
        unwritten.add(nested.parentCallId());
    }

    /** Writes what is kept and not written yet (the run's end writes it too, through its loop_end). */
    private void write() {
        Map<String, String> entries = new LinkedHashMap<>();
        for (String call : unwritten) {
            entries.put(PREFIX + call, Secrets.redact(byCall.get(call).toString()));
        }
        unwritten.clear();
        try {
            session.putMetadata(entries);
        } catch (SessionStoreException | IllegalStateException e) {
            // the store failed (or the session closed): the run's turns are what matters; its
            // own storing says so when it fails too
        }
    }

    /** The events {@link TextRenderer} shows of a sub-agent. */
    private static boolean shown(AgentEvent event) {
        return event instanceof LoopEvent.LoopStart || event instanceof StreamEvent.ToolCallName
                || event instanceof LoopEvent.ToolResultEvent || event instanceof LoopEvent.ToolResultError
                || event instanceof LoopEvent.ApprovalRequired || event instanceof LoopEvent.Approval
                || event instanceof LoopEvent.LoopEnd;
    }

    private static ObjectNode cut(ObjectNode event) {
        for (String field : List.copyOf(event.propertyNames())) {
            JsonNode value = event.get(field);
            if (value.isString() && value.asString().length() > MAX_TEXT) {
                event.put(field, value.asString().substring(0, MAX_TEXT) + "\u2026");
            }
        }
        return event;
    }

    /**
     * The sub-agents' work kept in {@code metadata} for the calls {@code callIds} (in call order),
     * as {@code bellows run}'s text output shows it; empty when none was kept. A record that
     * cannot be read is left out.
     */
    static String render(Map<String, String> metadata, List<String> callIds) {
        StringWriter text = new StringWriter();
        PrintWriter out = new PrintWriter(text);
        TextRenderer renderer = new TextRenderer(out, false);
        for (String call : callIds) {
            String kept = metadata.get(PREFIX + call);
            if (kept == null) {
                continue;
            }
            for (LoopEvent.SubAgentEvent event : read(kept)) {
                renderer.onEvent(event);
            }
        }
        renderer.close();
        out.flush();
        return text.toString();
    }

    /** The calls with sub-agents' work in {@code metadata}, in the order the keys sort. */
    static List<String> calls(Map<String, String> metadata) {
        return metadata.keySet().stream().filter(key -> key.startsWith(PREFIX)).sorted()
                .map(key -> key.substring(PREFIX.length())).toList();
    }

    private static List<LoopEvent.SubAgentEvent> read(String kept) {
        List<LoopEvent.SubAgentEvent> events = new ArrayList<>();
        try {
            for (JsonNode entry : Jackson.JSON.readTree(kept)) {
                Optional<AgentEvent> inner = EventJson.fromJson(entry.path("event"));
                JsonNode path = entry.path("path");
                if (inner.isEmpty() || !path.isArray() || path.isEmpty()) {
                    continue;
                }
                AgentEvent event = inner.get();
                for (int level = path.size() - 1; level >= 0; level--) {
                    JsonNode at = path.get(level);
                    event = new LoopEvent.SubAgentEvent(at.path("agent").asString("?"),
                            at.path("parent_call_id").asString("?"), event);
                }
                events.add((LoopEvent.SubAgentEvent) event);
            }
        } catch (RuntimeException e) {
            // not a record this version wrote: nothing of it is shown
        }
        return events;
    }
}
