package dev.bellows.agent.internal;

import dev.bellows.agent.AgentListener;
import dev.bellows.agent.AgentRun;
import dev.bellows.agent.AgentTool;
import dev.bellows.agent.Session;
import dev.bellows.event.AgentEvent;
import dev.bellows.event.EventJson;
import dev.bellows.event.LoopEvent;
import dev.bellows.event.StreamEvent;
import dev.bellows.json.internal.Jackson;
import dev.bellows.memory.SessionStoreException;
import dev.bellows.memory.StoredSession;
import dev.bellows.secret.Secrets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Keeps what a run's sub-agents did ({@link AgentTool}) in its stored session, beside the
 * conversation: the events that say it (each sub-agent's task, the tools it calls, their
 * results, calls that wait for approval, its end), each with the agent that emitted it and the
 * parent call of every level, so that the tree can be shown later as the run showed it
 * ({@link #events}). The conversation the model reads is the session's turns; this is not part
 * of it.
 *
 * <pre>{@code
 * try (StoredSession stored = store.open("research")) {
 *     SubAgentTrail trail = new SubAgentTrail(stored);
 *     AgentRun run = lead.run("When does water boil?", Session.of(stored));
 *     for (AgentEvent event : run) {
 *         trail.onEvent(event);
 *     }
 * }
 * // later: SubAgentTrail.calls(info.metadata()) and SubAgentTrail.events(info.metadata(), call)
 * }</pre>
 *
 * <p>It is kept in the session's {@linkplain StoredSession#metadata() metadata}, one entry per
 * call of the run's own agent that ran sub-agents ({@value #KEY_PREFIX}{@code CALL_ID}), written
 * when the run's own agent goes on after them (its next event, the run's end at the latest),
 * secrets redacted ({@link Secrets}) and texts over 2,000 characters cut; at most 500 events per
 * call. A store that fails to write it loses it, not the run. Thread-safe: the events of
 * sub-agents in parallel calls come on the calls' threads.
 */
public final class SubAgentTrail implements AgentListener {

    /** The metadata keys' prefix: the rest of a key is the id of the call that ran the sub-agents. */
    public static final String KEY_PREFIX = "subagents:";
    private static final int MAX_EVENTS = 500;
    private static final int MAX_TEXT = 2000;

    private final StoredSession session;
    private final Map<String, ArrayNode> byCall = new LinkedHashMap<>();
    private final Set<String> unwritten = new HashSet<>();

    /** A trail kept in {@code session}, which the run must be in (its calls' ids are the session's). */
    public SubAgentTrail(StoredSession session) {
        this.session = Objects.requireNonNull(session, "session");
    }

    /** Keeps a sub-agent's event that says what it did; any event of the run's own agent writes what is kept. */
    @Override
    public synchronized void onEvent(AgentEvent event) {
        if (!(event instanceof LoopEvent.SubAgentEvent nested)) {
            if (!unwritten.isEmpty()) {
                write();
            }
            return;
        }
        if (!kept(nested.innermost())) {
            return;
        }
        ArrayNode events = byCall.computeIfAbsent(nested.parentCallId(), call -> Jackson.JSON.createArrayNode());
        if (events.size() >= MAX_EVENTS) {
            return;
        }
        ObjectNode entry = events.addObject();
        ArrayNode path = entry.putArray("path");
        for (AgentEvent level = nested; level instanceof LoopEvent.SubAgentEvent sub; level = sub.event()) {
            path.addObject().put("agent", sub.agent()).put("parent_call_id", sub.parentCallId());
        }
        entry.set("event", cut((ObjectNode) EventJson.toJson(nested.innermost()).deepCopy()));
        unwritten.add(nested.parentCallId());
    }

    private void write() {
        Map<String, String> entries = new LinkedHashMap<>();
        for (String call : unwritten) {
            entries.put(KEY_PREFIX + call, Secrets.redact(byCall.get(call).toString()));
        }
        unwritten.clear();
        try {
            session.putMetadata(entries);
        } catch (SessionStoreException | IllegalStateException e) {
            // the store failed (or the session closed): the run's turns are what matters, and
            // their own storing says so when it fails too
        }
    }

    /** The events that say what a sub-agent did (its streamed text and deltas are not kept). */
    private static boolean kept(AgentEvent event) {
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

    /** The ids of the calls whose sub-agents' work a session's {@code metadata} keeps, sorted. */
    public static List<String> calls(Map<String, String> metadata) {
        return metadata.keySet().stream().filter(key -> key.startsWith(KEY_PREFIX)).sorted()
                .map(key -> key.substring(KEY_PREFIX.length())).toList();
    }

    /**
     * The sub-agents' events that a session's {@code metadata} keeps for the call {@code callId},
     * in the order they came, each wrapped as it reached the run (one {@link LoopEvent.SubAgentEvent}
     * per level); empty when none is kept or what is kept cannot be read.
     */
    public static List<LoopEvent.SubAgentEvent> events(Map<String, String> metadata, String callId) {
        String kept = metadata.get(KEY_PREFIX + callId);
        List<LoopEvent.SubAgentEvent> events = new ArrayList<>();
        if (kept == null) {
            return events;
        }
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
            return List.of();       // not a trail this version wrote
        }
        return events;
    }
}
