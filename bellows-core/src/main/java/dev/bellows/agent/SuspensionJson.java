package dev.bellows.agent;

import dev.bellows.json.internal.Jackson;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;
import dev.bellows.agent.Suspension.Entry;
import dev.bellows.agent.Suspension.State;
import dev.bellows.tool.LoopEndReason;
import dev.bellows.memory.internal.SessionJson;
import dev.bellows.provider.Message;
import dev.bellows.provider.Role;
import dev.bellows.tool.DecodedToolCall;
import dev.bellows.tool.Media;
import dev.bellows.tool.ToolCall;
import dev.bellows.tool.ToolCallError;
import dev.bellows.tool.ToolCallOutcome;
import dev.bellows.tool.ToolEffect;
import dev.bellows.tool.ToolResult;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * A waiting run ({@link Suspension}) and the entries of its {@link ResumeLog} as JSON text, the
 * form a stored session keeps them in. An outcome keeps what the loop needs of it: the text the
 * model reads, the media, the effect (a result's output becomes its text). Reading checks
 * everything and throws {@link IllegalArgumentException} saying what is wrong: a damaged
 * state is reported, never guessed at.
 */
final class SuspensionJson {

    static final int VERSION = 1;
    private static final ObjectMapper MAPPER = Jackson.JSON;
    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

    private SuspensionJson() {
    }

    // --- writing ---

    static String write(Suspension suspension) {
        return toJson(suspension).toString();
    }

    static ObjectNode toJson(Suspension suspension) {
        ObjectNode json = NODES.objectNode();
        json.put("version", VERSION);
        json.put("task", suspension.task());
        json.put("iteration", suspension.iteration());
        json.put("errors", suspension.errors());
        json.put("last_error", suspension.lastError());
        json.put("note", suspension.note());
        json.set("head", messages(suspension.head()));
        ArrayNode calls = json.putArray("calls");
        for (Entry entry : suspension.calls()) {
            ObjectNode item = calls.addObject();
            item.put("id", entry.id());
            item.set("call", decoded(entry.decoded()));
            item.put("state", entry.state().name().toLowerCase(Locale.ROOT));
            if (entry.outcome() != null) {
                item.set("outcome", outcome(entry.outcome()));
            }
            if (entry.decision() != null) {
                item.set("decision", decision(entry.decision()));
            }
            if (entry.nested() != null) {
                item.set("nested", nested(entry.nested()));
            }
        }
        return json;
    }

    /** Messages as a JSON array: each its role, content and, when it has them, its native parts. */
    static ArrayNode messages(List<Message> messages) {
        ArrayNode array = NODES.arrayNode();
        for (Message message : messages) {
            ObjectNode item = array.addObject();
            item.put("role", message.role().wireName());
            item.put("content", message.content());
            String parts = SessionJson.nativePartsToJson(message);
            if (parts != null) {
                item.put("parts", parts);
            }
        }
        return array;
    }

    /** @throws IllegalArgumentException saying what is wrong */
    static List<Message> messages(JsonNode array) {
        if (array == null || !array.isArray()) {
            throw new IllegalArgumentException("messages are not an array");
        }
        List<Message> messages = new ArrayList<>();
        for (JsonNode item : array) {
            Role role = role(string(item, "role"));
            JsonNode parts = item.get("parts");
            messages.add(SessionJson.message(role, string(item, "content"), parts == null ? null : parts.asString()));
        }
        return messages;
    }

    static String write(ResumeLog.Entry entry) {
        return toJson(entry).toString();
    }

    static ObjectNode toJson(ResumeLog.Entry entry) {
        ObjectNode json = NODES.objectNode();
        switch (entry) {
            case ResumeLog.Decided d -> {
                json.put("decided", d.id());
                json.set("decision", decision(d.decision()));
            }
            case ResumeLog.Started s -> json.put("started", s.id());
            case ResumeLog.Finished f -> {
                json.put("finished", f.id());
                json.set("outcome", outcome(f.outcome()));
            }
            case ResumeLog.Noted n -> {
                json.put("noted", n.id());
                json.set("note", n.note().deepCopy());
            }
        }
        return json;
    }

    /** A suspended call's tool state, its waiting calls and the decisions held for them. */
    private static ObjectNode nested(Suspension.Nested nested) {
        ObjectNode json = NODES.objectNode();
        json.set("state", nested.state().deepCopy());
        ArrayNode waiting = json.putArray("waiting");
        for (WaitingCall call : nested.waiting()) {
            ObjectNode item = waiting.addObject();
            item.put("id", call.id());
            item.put("kind", call.kind().name().toLowerCase(Locale.ROOT));
            item.set("call", decoded(call.call()));
            Decision held = nested.held().get(call.id());
            if (held != null) {
                item.set("decision", decision(held));
            }
        }
        return json;
    }

    private static Suspension.Nested nested(JsonNode json) {
        List<WaitingCall> waiting = new ArrayList<>();
        Map<String, Decision> held = new java.util.LinkedHashMap<>();
        for (JsonNode item : array(json, "waiting")) {
            String id = string(item, "id");
            WaitingCall.Kind kind;
            try {
                kind = WaitingCall.Kind.valueOf(string(item, "kind").toUpperCase(Locale.ROOT));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("nested call " + id + " waits for the unknown \""
                        + item.get("kind").asString() + "\"");
            }
            if (!(decoded(object(item, "call")) instanceof ToolCall call)) {
                throw new IllegalArgumentException("nested call " + id + " is not a tool call");
            }
            waiting.add(new WaitingCall(id, call, kind));
            JsonNode decision = item.get("decision");
            if (decision != null) {
                held.put(id, decision(decision, id));
            }
        }
        JsonNode state = json.get("state");
        if (state == null) {
            throw new IllegalArgumentException("a nested call has no \"state\"");
        }
        return new Suspension.Nested(state, waiting, held);
    }

    private static ObjectNode decoded(DecodedToolCall decoded) {
        ObjectNode json = NODES.objectNode();
        switch (decoded) {
            case ToolCall call -> {
                json.put("server", call.serverName());
                json.put("tool", call.toolName());
                json.set("arguments", call.arguments());     // frozen: shared, not copied
            }
            case ToolCallError error -> {
                json.put("content", error.content());
                json.put("error", error.error());
            }
        }
        return json;
    }

    private static ObjectNode outcome(ToolCallOutcome outcome) {
        ObjectNode json = NODES.objectNode();
        json.set("call", decoded(outcome.call()));
        switch (outcome) {
            case ToolCallOutcome.Succeeded s -> {
                json.put("kind", "succeeded");
                json.put("text", s.text());
                switch (s.effect()) {
                    case ToolEffect.None none -> { }
                    case ToolEffect.EndRun end -> {
                        ObjectNode effect = json.putObject("effect");
                        effect.put("type", "end_run");
                        effect.put("reason", end.reason().wireName());
                        effect.put("result", end.result());
                        ArrayNode suggestions = effect.putArray("suggestions");
                        end.suggestions().forEach(suggestions::add);
                    }
                    case ToolEffect.ReplacePlan replace -> {
                        ObjectNode effect = json.putObject("effect");
                        effect.put("type", "replace_plan");
                        effect.put("plan", SessionJson.planToJson(replace.plan()));
                    }
                    case ToolEffect.HandOff handOff -> {
                        ObjectNode effect = json.putObject("effect");
                        effect.put("type", "hand_off");
                        effect.put("agent", handOff.agent());
                        effect.put("message", handOff.message());
                    }
                }
                if (!s.result().media().isEmpty()) {
                    ArrayNode media = json.putArray("media");
                    for (Media item : s.result().media()) {
                        media.addObject().put("media_type", item.mediaType())
                                .put("data", Base64.getEncoder().encodeToString(item.data()));
                    }
                }
            }
            case ToolCallOutcome.Failed f -> {
                json.put("kind", "failed");
                json.put("text", f.error());
            }
            case ToolCallOutcome.Cancelled c -> json.put("kind", "cancelled");
            case ToolCallOutcome.Denied d -> {
                json.put("kind", "denied");
                json.put("reason", d.reason());
            }
            case ToolCallOutcome.Deferred d -> json.put("kind", "deferred");
        }
        return json;
    }

    private static ObjectNode decision(Decision decision) {
        ObjectNode json = NODES.objectNode();
        switch (decision) {
            case Decision.Approve a -> {
                json.put("type", "approve");
                if (a.arguments() != null) {
                    json.set("arguments", a.arguments());
                }
            }
            case Decision.Deny d -> {
                json.put("type", "deny");
                json.put("reason", d.reason());
            }
            case Decision.Respond r -> {
                json.put("type", "respond");
                json.put("result", r.result());
            }
        }
        return json;
    }

    // --- reading ---

    /** @throws IllegalArgumentException saying what is wrong */
    static Suspension readSuspension(String text) {
        return readSuspension(parse(text));
    }

    /** @throws IllegalArgumentException saying what is wrong */
    static Suspension readSuspension(JsonNode json) {
        int version = integer(json, "version");
        if (version != VERSION) {
            throw new IllegalArgumentException("it was written by another version of Bellows (format " + version
                    + ", this one reads " + VERSION + ")");
        }
        List<Message> head = messages(array(json, "head"));
        List<Entry> calls = new ArrayList<>();
        for (JsonNode item : array(json, "calls")) {
            State state;
            try {
                state = State.valueOf(string(item, "state").toUpperCase(Locale.ROOT));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("a call has the unknown state \"" + item.get("state").asString() + "\"");
            }
            JsonNode outcome = item.get("outcome");
            JsonNode decision = item.get("decision");
            DecodedToolCall decoded = decoded(object(item, "call"));
            String id = string(item, "id");
            JsonNode nested = item.get("nested");
            calls.add(new Entry(id, decoded, state,
                    outcome == null ? null : outcome(outcome),
                    decision == null ? null : decision(decision, id),
                    nested == null ? null : nested(nested)));
        }
        return new Suspension(string(json, "task"), integer(json, "iteration"), integer(json, "errors"),
                string(json, "last_error"), head, string(json, "note"), calls);
    }

    /** @throws IllegalArgumentException saying what is wrong */
    static ResumeLog.Entry readLogEntry(String text) {
        return readLogEntry(parse(text));
    }

    /** @throws IllegalArgumentException saying what is wrong */
    static ResumeLog.Entry readLogEntry(JsonNode json) {
        String text = json.toString();
        if (json.has("decided")) {
            return new ResumeLog.Decided(string(json, "decided"), decision(object(json, "decision"), string(json, "decided")));
        }
        if (json.has("started")) {
            return new ResumeLog.Started(string(json, "started"));
        }
        if (json.has("noted")) {
            JsonNode note = json.get("note");
            if (note == null) {
                throw new IllegalArgumentException("a note has no \"note\": " + abbreviate(text));
            }
            return new ResumeLog.Noted(string(json, "noted"), note);
        }
        if (json.has("finished")) {
            return new ResumeLog.Finished(string(json, "finished"), outcome(object(json, "outcome")));
        }
        throw new IllegalArgumentException("a log entry is neither a decision, a start nor an end: " + abbreviate(text));
    }

    private static DecodedToolCall decoded(JsonNode json) {
        if (json.has("error")) {
            return new ToolCallError(string(json, "content"), string(json, "error"));
        }
        return new ToolCall(string(json, "server"), string(json, "tool"), object(json, "arguments"));
    }

    private static ToolCallOutcome outcome(JsonNode json) {
        DecodedToolCall decoded = decoded(object(json, "call"));
        String kind = string(json, "kind");
        if (kind.equals("failed")) {
            return new ToolCallOutcome.Failed(decoded, string(json, "text"), null);
        }
        if (!(decoded instanceof ToolCall call)) {
            throw new IllegalArgumentException("a call that could not be decoded has a " + kind + " outcome");
        }
        return switch (kind) {
            case "succeeded" -> {
                String text = string(json, "text");
                List<Media> media = new ArrayList<>();
                JsonNode stored = json.get("media");
                if (stored != null) {
                    for (JsonNode item : stored) {
                        media.add(new Media(string(item, "media_type"), Base64.getDecoder().decode(string(item, "data"))));
                    }
                }
                yield new ToolCallOutcome.Succeeded(call, new ToolResult<>(text, media, effect(json.get("effect"))), text);
            }
            case "cancelled" -> new ToolCallOutcome.Cancelled(call);
            case "denied" -> new ToolCallOutcome.Denied(call, string(json, "reason"));
            case "deferred" -> new ToolCallOutcome.Deferred(call);
            default -> throw new IllegalArgumentException("an outcome has the unknown kind \"" + kind + "\"");
        };
    }

    private static ToolEffect effect(JsonNode json) {
        if (json == null) {
            return ToolEffect.NONE;
        }
        String type = string(json, "type");
        return switch (type) {
            case "end_run" -> {
                LoopEndReason reason = LoopEndReason.fromWireName(string(json, "reason")).orElseThrow(() ->
                        new IllegalArgumentException("an effect ends the run with the unknown reason "
                                + json.get("reason")));
                List<String> suggestions = new ArrayList<>();
                array(json, "suggestions").forEach(s -> suggestions.add(s.asString()));
                yield new ToolEffect.EndRun(reason, string(json, "result"), suggestions);
            }
            case "replace_plan" -> new ToolEffect.ReplacePlan(SessionJson.planFromJson(string(json, "plan")));
            case "hand_off" -> new ToolEffect.HandOff(string(json, "agent"), string(json, "message"));
            default -> throw new IllegalArgumentException("an effect has the unknown type \"" + type + "\"");
        };
    }

    private static Decision decision(JsonNode json, String id) {
        String type = string(json, "type");
        return switch (type) {
            case "approve" -> {
                JsonNode arguments = json.get("arguments");
                if (arguments != null && !(arguments instanceof ObjectNode)) {
                    throw new IllegalArgumentException("an approval's arguments are not an object");
                }
                yield new Decision.Approve(id, (ObjectNode) arguments);
            }
            case "deny" -> new Decision.Deny(id, string(json, "reason"));
            case "respond" -> new Decision.Respond(id, string(json, "result"));
            default -> throw new IllegalArgumentException("a decision has the unknown type \"" + type + "\"");
        };
    }

    // --- plumbing ---

    private static JsonNode parse(String text) {
        if (text == null) {
            throw new IllegalArgumentException("it is missing");
        }
        try {
            JsonNode json = MAPPER.readTree(text);
            if (!(json instanceof ObjectNode)) {
                throw new IllegalArgumentException("it is not a JSON object: " + abbreviate(text));
            }
            return json;
        } catch (JacksonException e) {
            throw new IllegalArgumentException("it is not JSON (" + e.getOriginalMessage() + "): " + abbreviate(text));
        }
    }

    private static String string(JsonNode json, String field) {
        JsonNode value = json.get(field);
        if (value == null || !value.isString()) {
            throw new IllegalArgumentException("\"" + field + "\" is missing or not a string");
        }
        return value.asString();
    }

    private static int integer(JsonNode json, String field) {
        JsonNode value = json.get(field);
        if (value == null || !value.canConvertToInt() || !value.isIntegralNumber()) {
            throw new IllegalArgumentException("\"" + field + "\" is missing or not an integer");
        }
        return value.asInt();
    }

    private static JsonNode array(JsonNode json, String field) {
        JsonNode value = json.get(field);
        if (value == null || !value.isArray()) {
            throw new IllegalArgumentException("\"" + field + "\" is missing or not an array");
        }
        return value;
    }

    private static ObjectNode object(JsonNode json, String field) {
        JsonNode value = json.get(field);
        if (!(value instanceof ObjectNode object)) {
            throw new IllegalArgumentException("\"" + field + "\" is missing or not an object");
        }
        return object;
    }

    private static Role role(String wireName) {
        for (Role role : Role.values()) {
            if (role.wireName().equals(wireName)) {
                return role;
            }
        }
        throw new IllegalArgumentException("a message has the unknown role \"" + wireName + "\"");
    }

    private static String abbreviate(String text) {
        return text.length() > 80 ? text.substring(0, 80) + "..." : text;
    }
}
