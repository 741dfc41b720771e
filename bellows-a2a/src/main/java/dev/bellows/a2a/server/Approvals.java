package dev.bellows.a2a.server;

import dev.bellows.a2a.A2aError;
import dev.bellows.a2a.A2aException;
import dev.bellows.a2a.Message;
import dev.bellows.a2a.Part;
import dev.bellows.agent.Decision;
import dev.bellows.agent.WaitingCall;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * The approval dialogue of a task that waits: the {@code input-required} status message (a
 * data part {@code {"waiting": [{"id", "tool", "arguments"}]}} and a text part asking), and the
 * decisions read from the client's next message (a data part {@code {"approve": [ids], "deny":
 * [{"id", "reason"}]}}, or the text {@code approve} / {@code deny REASON} when one call waits).
 */
final class Approvals {

    private Approvals() {
    }

    /** The parts of the status message that asks about the waiting calls. */
    static List<Part> question(List<WaitingCall> waiting) {
        List<Map<String, Object>> calls = new ArrayList<>();
        StringBuilder text = new StringBuilder();
        for (WaitingCall call : waiting) {
            Map<String, Object> entry = new LinkedHashMap<>();
            entry.put("id", call.id());
            entry.put("tool", call.toolName());
            entry.put("arguments", Json.MAPPER.convertValue(call.arguments(), Map.class));
            calls.add(entry);
            text.append(text.isEmpty() ? "" : "\n").append("The agent wants to call ").append(call.toolName())
                    .append(' ').append(call.arguments()).append(" (call ").append(call.id()).append(").");
        }
        text.append(waiting.size() == 1
                ? " Approve it? Answer \"approve\", or \"deny\" and a reason."
                : " Decide each: answer with a data part {\"approve\": [ids], \"deny\": [{\"id\": id, \"reason\": text}]}.");
        return List.of(Part.data(Map.of("waiting", calls)), Part.text(text.toString()));
    }

    /**
     * The decisions the message gives, one for each waiting call.
     *
     * @throws A2aException (InvalidParams) when the message decides none, not every one, or a call that does not wait
     */
    static List<Decision> decisions(Message message, List<WaitingCall> waiting) {
        Set<String> ids = new LinkedHashSet<>();
        waiting.forEach(call -> ids.add(call.id()));
        for (Part part : message.parts()) {
            if (part.data() instanceof Map<?, ?> data && (data.containsKey("approve") || data.containsKey("deny"))) {
                return fromData(data, ids);
            }
        }
        for (Part part : message.parts()) {
            if (part.text() == null) {
                continue;
            }
            String text = part.text().strip();
            String word = text.split("\\s+", 2)[0].toLowerCase(Locale.ROOT);
            if (word.equals("approve") || word.equals("deny")) {
                if (ids.size() != 1) {
                    throw invalid(ids.size() + " calls wait: decide each with a data part {\"approve\": [ids],"
                            + " \"deny\": [{\"id\": id, \"reason\": text}]}");
                }
                String id = ids.iterator().next();
                if (word.equals("approve")) {
                    return List.of(Decision.approve(id));
                }
                String reason = text.length() > 4 ? text.substring(4).strip() : "";
                return List.of(Decision.deny(id, reason.isEmpty() ? "denied by the client" : reason));
            }
        }
        throw invalid("the task waits for approval of " + ids + ": answer \"approve\" or \"deny REASON\" (one call),"
                + " or a data part {\"approve\": [ids], \"deny\": [{\"id\": id, \"reason\": text}]}");
    }

    private static List<Decision> fromData(Map<?, ?> data, Set<String> waiting) {
        Map<String, Decision> decided = new LinkedHashMap<>();
        Object approve = data.get("approve");
        if (approve != null) {
            if (!(approve instanceof List<?> list)) {
                throw invalid("approve: a list of call ids");
            }
            for (Object id : list) {
                decided.put(known(String.valueOf(id), waiting), Decision.approve(String.valueOf(id)));
            }
        }
        Object deny = data.get("deny");
        if (deny != null) {
            if (!(deny instanceof List<?> list)) {
                throw invalid("deny: a list of {\"id\", \"reason\"}");
            }
            for (Object entry : list) {
                String id;
                String reason = "denied by the client";
                if (entry instanceof Map<?, ?> map) {
                    id = String.valueOf(map.get("id"));
                    if (map.get("reason") != null) {
                        reason = String.valueOf(map.get("reason"));
                    }
                } else {
                    id = String.valueOf(entry);
                }
                if (decided.containsKey(known(id, waiting))) {
                    throw invalid("call " + id + " is both approved and denied");
                }
                decided.put(id, Decision.deny(id, reason));
            }
        }
        Set<String> missing = new LinkedHashSet<>(waiting);
        missing.removeAll(decided.keySet());
        if (!missing.isEmpty()) {
            throw invalid("undecided: " + missing + "; every waiting call needs a decision");
        }
        List<Decision> inOrder = new ArrayList<>();
        waiting.forEach(id -> inOrder.add(decided.get(id)));
        return inOrder;
    }

    private static String known(String id, Set<String> waiting) {
        if (!waiting.contains(id)) {
            throw invalid("no call " + id + " waits (waiting: " + waiting + ")");
        }
        return id;
    }

    private static A2aException invalid(String message) {
        return new A2aException(A2aError.INVALID_PARAMS, message);
    }
}
