package dev.bellows.server;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.JsonNodeFactory;
import dev.bellows.memory.SessionNames;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * An AG-UI {@code RunAgentInput}, read and checked: every field the server uses, with a
 * {@link HttpError#badRequest 400} naming the field at fault (as {@code messages[2].role}) for
 * anything malformed.
 *
 * @param messages the conversation as the client sends it: all of it, or only what is new
 * @param tools    the client's own tools (name, description, JSON Schema)
 * @param context  the client's context entries, as {@code description: value} lines
 * @param resume   answers to the interrupts of the thread's last run
 */
record AguiInput(String threadId, String runId, List<InMessage> messages, List<ClientTool> tools, List<String> context,
                 List<Resume> resume) {

    /** The roles of AG-UI 1.x messages. */
    static final Set<String> ROLES = Set.of("user", "assistant", "system", "developer", "tool", "reasoning", "activity");

    /**
     * One message.
     *
     * @param index      its position in {@code messages}, for error messages
     * @param text       its text (a user message's text parts joined), or "" when it has none
     * @param toolCallId a {@code tool} message's call id, else null
     */
    record InMessage(int index, String id, String role, String text, String toolCallId) {
    }

    /** A tool of the client's: the model may call it; the client runs it. */
    record ClientTool(String name, String description, JsonNode parameters) {
    }

    /**
     * An answer to an interrupt.
     *
     * @param status  {@code resolved} or {@code cancelled}
     * @param payload the answer ({@code {"approved": true}} and so on), or null
     */
    record Resume(int index, String interruptId, String status, JsonNode payload) {
    }

    static AguiInput parse(JsonNode body) throws HttpError {
        if (body == null || !body.isObject()) {
            throw HttpError.badRequest("", "the body must be a JSON object: an AG-UI RunAgentInput"
                    + " ({\"threadId\", \"runId\", \"messages\", ...})");
        }
        String threadId = requiredString(body, "threadId", "threadId");
        try {
            SessionNames.check(threadId);
        } catch (IllegalArgumentException e) {
            throw HttpError.badRequest("threadId", "names the thread's session, so it must be 1 to 100 letters,"
                    + " digits, '.', '_' or '-', not starting with '.' or '-' (a UUID is fine)");
        }
        String runId = requiredString(body, "runId", "runId");
        JsonNode messagesNode = body.get("messages");
        if (messagesNode == null || !messagesNode.isArray()) {
            throw HttpError.badRequest("messages", messagesNode == null ? "missing: give the conversation as an array"
                    + " of messages (all of it, or only the new ones)" : "must be an array of messages, not " + kind(messagesNode));
        }
        List<InMessage> messages = new ArrayList<>(messagesNode.size());
        for (int i = 0; i < messagesNode.size(); i++) {
            messages.add(message(messagesNode.get(i), i));
        }
        List<ClientTool> tools = new ArrayList<>();
        JsonNode toolsNode = optionalArray(body, "tools");
        for (int i = 0; i < toolsNode.size(); i++) {
            JsonNode tool = toolsNode.get(i);
            String field = "tools[" + i + "]";
            if (!tool.isObject()) {
                throw HttpError.badRequest(field, "must be an object {\"name\", \"description\", \"parameters\"}");
            }
            String name = requiredString(tool, "name", field + ".name");
            JsonNode description = tool.get("description");
            if (description != null && !description.isString()) {
                throw HttpError.badRequest(field + ".description", "must be a string");
            }
            JsonNode parameters = tool.get("parameters");
            if (parameters != null && !parameters.isNull() && !parameters.isObject()) {
                throw HttpError.badRequest(field + ".parameters", "must be a JSON Schema object");
            }
            tools.add(new ClientTool(name, description == null ? "" : description.asString(),
                    parameters == null || parameters.isNull() ? null : parameters));
        }
        List<String> context = new ArrayList<>();
        JsonNode contextNode = optionalArray(body, "context");
        for (int i = 0; i < contextNode.size(); i++) {
            JsonNode entry = contextNode.get(i);
            String field = "context[" + i + "]";
            if (!entry.isObject()) {
                throw HttpError.badRequest(field, "must be an object {\"description\", \"value\"}");
            }
            context.add(requiredString(entry, "description", field + ".description", true) + ": "
                    + requiredString(entry, "value", field + ".value", true));
        }
        List<Resume> resume = new ArrayList<>();
        JsonNode resumeNode = optionalArray(body, "resume");
        for (int i = 0; i < resumeNode.size(); i++) {
            JsonNode entry = resumeNode.get(i);
            String field = "resume[" + i + "]";
            if (!entry.isObject()) {
                throw HttpError.badRequest(field, "must be an object {\"interruptId\", \"status\", \"payload\"}");
            }
            String interruptId = requiredString(entry, "interruptId", field + ".interruptId");
            String status = requiredString(entry, "status", field + ".status");
            if (!status.equals("resolved") && !status.equals("cancelled")) {
                throw HttpError.badRequest(field + ".status", "must be \"resolved\" or \"cancelled\", not \"" + status + "\"");
            }
            JsonNode payload = entry.get("payload");
            resume.add(new Resume(i, interruptId, status, payload == null || payload.isNull() ? null : payload));
        }
        return new AguiInput(threadId, runId, List.copyOf(messages), List.copyOf(tools), List.copyOf(context),
                List.copyOf(resume));
    }

    private static InMessage message(JsonNode node, int index) throws HttpError {
        String field = "messages[" + index + "]";
        if (!node.isObject()) {
            throw HttpError.badRequest(field, "must be an object {\"id\", \"role\", \"content\"}, not " + kind(node));
        }
        String id = requiredString(node, "id", field + ".id");
        String role = requiredString(node, "role", field + ".role");
        if (!ROLES.contains(role)) {
            throw HttpError.badRequest(field + ".role", "unknown role \"" + role
                    + "\" (user, assistant, system, developer, tool, reasoning or activity)");
        }
        JsonNode content = node.get("content");
        String text = "";
        if (role.equals("user")) {
            text = userText(content, field + ".content");
        } else if (content != null && !content.isNull() && !role.equals("activity")) {
            if (!content.isString()) {
                if (role.equals("tool") && content.isArray()) {
                    text = parts(content, field + ".content");
                } else {
                    throw HttpError.badRequest(field + ".content", "must be a string, not " + kind(content));
                }
            } else {
                text = content.asString();
            }
        } else if (role.equals("system") || role.equals("developer") || role.equals("tool")) {
            throw HttpError.badRequest(field + ".content", "missing: a " + role + " message needs its text");
        }
        String toolCallId = null;
        if (role.equals("tool")) {
            toolCallId = requiredString(node, "toolCallId", field + ".toolCallId");
        }
        return new InMessage(index, id, role, text, toolCallId);
    }

    private static String userText(JsonNode content, String field) throws HttpError {
        if (content == null || content.isNull()) {
            throw HttpError.badRequest(field, "missing: a user message needs its text");
        }
        if (content.isString()) {
            return content.asString();
        }
        if (content.isArray()) {
            return parts(content, field);
        }
        throw HttpError.badRequest(field, "must be a string or an array of parts, not " + kind(content));
    }

    /** The text parts joined; the agent reads text, so other parts are refused by name. */
    private static String parts(JsonNode content, String field) throws HttpError {
        StringBuilder text = new StringBuilder();
        for (int i = 0; i < content.size(); i++) {
            JsonNode part = content.get(i);
            String partField = field + "[" + i + "]";
            if (!part.isObject() || !part.path("type").isString()) {
                throw HttpError.badRequest(partField, "must be a part object with a \"type\"");
            }
            String type = part.get("type").asString();
            if (!type.equals("text")) {
                throw HttpError.badRequest(partField + ".type", "\"" + type + "\" parts are not supported: this agent"
                        + " reads text parts only");
            }
            if (!text.isEmpty()) {
                text.append('\n');
            }
            text.append(requiredString(part, "text", partField + ".text", true));
        }
        return text.toString();
    }

    private static JsonNode optionalArray(JsonNode body, String name) throws HttpError {
        JsonNode node = body.get(name);
        if (node == null || node.isNull()) {
            return JsonNodeFactory.instance.arrayNode();
        }
        if (!node.isArray()) {
            throw HttpError.badRequest(name, "must be an array, not " + kind(node));
        }
        return node;
    }

    private static String requiredString(JsonNode node, String name, String field) throws HttpError {
        return requiredString(node, name, field, false);
    }

    private static String requiredString(JsonNode node, String name, String field, boolean mayBeEmpty) throws HttpError {
        JsonNode value = node.get(name);
        if (value == null || value.isNull()) {
            throw HttpError.badRequest(field, "missing (a string)");
        }
        if (!value.isString()) {
            throw HttpError.badRequest(field, "must be a string, not " + kind(value));
        }
        if (!mayBeEmpty && value.asString().isEmpty()) {
            throw HttpError.badRequest(field, "must not be empty");
        }
        return value.asString();
    }

    static String kind(JsonNode node) {
        return switch (node.getNodeType()) {
            case ARRAY -> "an array";
            case OBJECT, POJO -> "an object";
            case STRING -> "a string";
            case NUMBER -> "a number";
            case BOOLEAN -> "a boolean";
            case NULL, MISSING -> "null";
            case BINARY -> "binary data";
        };
    }
}
