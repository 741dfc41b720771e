package dev.bellows.server;

import tools.jackson.databind.JsonNode;
import dev.bellows.agent.Decision;
import dev.bellows.agent.WaitingCall;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The answers of a {@code RunAgentInput} to the calls a thread's run waits on, as the loop's
 * {@link Decision}s: {@code resume} entries (for an approval: {@code status} {@code resolved}
 * with {@code payload} {@code {"approved": true}} runs the call, {@code {"approved": false,
 * "reason": TEXT}} or {@code status} {@code cancelled} denies it; for a call whose result comes
 * from outside: {@code payload} {@code {"result": TEXT}}), and new {@code tool} messages whose
 * {@code toolCallId} names a waiting call (the client's own tools). Every waiting call must be
 * answered, or nothing runs (400 naming the ones left).
 */
final class AguiResume {

    private AguiResume() {
    }

    static List<Decision> decisions(AguiInput input, List<WaitingCall> waiting, Set<String> known) throws HttpError {
        Map<String, WaitingCall> byId = new LinkedHashMap<>();
        waiting.forEach(call -> byId.put(call.id(), call));
        Map<String, Decision> decided = new LinkedHashMap<>();
        for (AguiInput.Resume entry : input.resume()) {
            String field = "resume[" + entry.index() + "]";
            WaitingCall call = byId.get(entry.interruptId());
            if (call == null) {
                throw HttpError.badRequest(field + ".interruptId", "no interrupt \"" + entry.interruptId()
                        + "\" waits on thread \"" + input.threadId() + "\" (waiting: " + String.join(", ", byId.keySet()) + ")");
            }
            if (decided.containsKey(call.id())) {
                throw HttpError.badRequest(field + ".interruptId", "\"" + call.id() + "\" is answered twice");
            }
            decided.put(call.id(), decision(entry, call, field));
        }
        for (AguiInput.InMessage message : input.messages()) {
            if (!message.role().equals("tool") || known.contains(message.id())) {
                continue;
            }
            WaitingCall call = byId.get(message.toolCallId());
            if (call == null || decided.containsKey(call.id())) {
                continue;       // the client's copy of a result the agent has, or answered in resume
            }
            if (call.kind() != WaitingCall.Kind.EXTERNAL) {
                throw HttpError.badRequest("messages[" + message.index() + "].toolCallId", "\"" + call.id()
                        + "\" waits for approval, not for a result: answer it in resume");
            }
            decided.put(call.id(), Decision.respond(call.id(), message.text()));
        }
        List<String> missing = new ArrayList<>();
        List<Decision> decisions = new ArrayList<>();
        for (WaitingCall call : waiting) {
            Decision decision = decided.get(call.id());
            if (decision == null) {
                missing.add(call.id());
            } else {
                decisions.add(decision);
            }
        }
        if (!missing.isEmpty()) {
            throw HttpError.badRequest("resume", "thread \"" + input.threadId() + "\" waits on " + waiting.size()
                    + " call(s); every one must be answered in one run, unanswered: " + String.join(", ", missing));
        }
        return decisions;
    }

    /** The ids of the tool messages taken as answers, to remember. */
    static List<String> ids(AguiInput input, List<WaitingCall> waiting) {
        Set<String> waitingIds = new java.util.HashSet<>();
        waiting.forEach(call -> waitingIds.add(call.id()));
        return input.messages().stream()
                .filter(m -> m.role().equals("tool") && waitingIds.contains(m.toolCallId()))
                .map(AguiInput.InMessage::id).toList();
    }

    private static Decision decision(AguiInput.Resume entry, WaitingCall call, String field) throws HttpError {
        if (entry.status().equals("cancelled")) {
            return Decision.deny(call.id(), "the user cancelled it");
        }
        JsonNode payload = entry.payload();
        if (payload == null || !payload.isObject()) {
            throw HttpError.badRequest(field + ".payload", call.kind() == WaitingCall.Kind.APPROVAL
                    ? "give {\"approved\": true} to run the call, or {\"approved\": false, \"reason\": TEXT} to deny it"
                    : "give {\"result\": TEXT}: the call's result as the model reads it");
        }
        JsonNode approved = payload.get("approved");
        if (approved != null && !approved.isBoolean()) {
            throw HttpError.badRequest(field + ".payload.approved", "must be true or false");
        }
        if (approved != null && !approved.asBoolean()) {
            JsonNode reason = payload.get("reason");
            return Decision.deny(call.id(), reason == null || !reason.isString() ? "" : reason.asString());
        }
        if (call.kind() == WaitingCall.Kind.APPROVAL) {
            if (approved == null) {
                throw HttpError.badRequest(field + ".payload.approved", "missing: true runs the call, false denies it");
            }
            // AG-UI's approveWithEdits: the person's own arguments (checked against the tool's schema)
            JsonNode edited = payload.get("editedArgs");
            if (edited != null && !edited.isNull()) {
                if (!edited.isObject()) {
                    throw HttpError.badRequest(field + ".payload.editedArgs", "must be an object: the call's arguments");
                }
                return Decision.approve(call.id(), edited);     // the decision keeps a frozen copy
            }
            return Decision.approve(call.id());
        }
        JsonNode result = payload.get("result");
        if (result == null || !result.isString()) {
            throw HttpError.badRequest(field + ".payload.result", "missing: the call's result as text");
        }
        return Decision.respond(call.id(), result.asString());
    }
}
