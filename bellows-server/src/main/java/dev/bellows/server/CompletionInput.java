package dev.bellows.server;

import tools.jackson.databind.JsonNode;
import dev.bellows.provider.Message;
import java.util.ArrayList;
import java.util.List;

/**
 * An OpenAI chat completions request, read and checked: the conversation as turns of history,
 * the last user message as the task, and whether to stream. The agent answers with its own
 * model, instructions and tools; the request's {@code model}, {@code tools} and sampling
 * settings are not the client's to choose here.
 *
 * @param history   the earlier messages, as turns each starting with a user message
 * @param task      the last message, the user's (system messages of the request before it)
 * @param stream    whether the answer streams as {@code chat.completion.chunk} events
 */
record CompletionInput(List<List<Message>> history, String task, boolean stream, String model) {

    static CompletionInput parse(JsonNode body) throws HttpError {
        if (body == null || !body.isObject()) {
            throw HttpError.badRequest("", "the body must be a JSON object: a chat completions request"
                    + " ({\"model\", \"messages\", \"stream\"})");
        }
        JsonNode model = body.get("model");
        if (model != null && !model.isNull() && !model.isString()) {
            throw HttpError.badRequest("model", "must be a string, not " + AguiInput.kind(model));
        }
        JsonNode stream = body.get("stream");
        if (stream != null && !stream.isNull() && !stream.isBoolean()) {
            throw HttpError.badRequest("stream", "must be true or false, not " + AguiInput.kind(stream));
        }
        JsonNode messages = body.get("messages");
        if (messages == null || !messages.isArray() || messages.isEmpty()) {
            throw HttpError.badRequest("messages", messages == null ? "missing: give the conversation, ending with the"
                    + " user's message" : !messages.isArray() ? "must be an array, not " + AguiInput.kind(messages)
                    : "must not be empty: end it with the user's message");
        }
        List<String> system = new ArrayList<>();
        List<List<Message>> turns = new ArrayList<>();
        List<Message> turn = null;
        String task = null;
        for (int i = 0; i < messages.size(); i++) {
            JsonNode message = messages.get(i);
            String field = "messages[" + i + "]";
            if (!message.isObject()) {
                throw HttpError.badRequest(field, "must be an object {\"role\", \"content\"}, not " + AguiInput.kind(message));
            }
            JsonNode roleNode = message.get("role");
            if (roleNode == null || !roleNode.isString()) {
                throw HttpError.badRequest(field + ".role", roleNode == null ? "missing" : "must be a string");
            }
            String role = roleNode.asString();
            String text = text(message.get("content"), field + ".content", role);
            boolean last = i == messages.size() - 1;
            switch (role) {
                case "system", "developer" -> system.add(text);
                case "user" -> {
                    if (last) {
                        task = text;
                    } else {
                        if (turn != null) {
                            turns.add(turn);
                        }
                        turn = new ArrayList<>();
                        turn.add(Message.user(text));
                    }
                }
                case "assistant" -> {
                    if (turn == null) {
                        turn = new ArrayList<>();
                        turn.add(Message.user(""));
                    }
                    turn.add(Message.assistant(text));
                }
                case "tool", "function" -> throw HttpError.badRequest(field + ".role", "\"" + role + "\" messages answer"
                        + " tool calls of the client's; this endpoint's agent calls its own tools");
                default -> throw HttpError.badRequest(field + ".role", "unknown role \"" + role
                        + "\" (system, developer, user or assistant)");
            }
        }
        if (task == null) {
            throw HttpError.badRequest("messages", "the last message must be the user's: the agent answers it");
        }
        if (turn != null) {
            turns.add(turn);
        }
        if (!system.isEmpty()) {
            task = "Instructions from the application:\n" + String.join("\n\n", system) + "\n\n" + task;
        }
        return new CompletionInput(List.copyOf(turns), task, stream != null && stream.asBoolean(),
                model == null || model.isNull() ? null : model.asString());
    }

    private static String text(JsonNode content, String field, String role) throws HttpError {
        if (content == null || content.isNull()) {
            if (role.equals("assistant")) {
                return "";
            }
            throw HttpError.badRequest(field, "missing: a " + role + " message needs its text");
        }
        if (content.isString()) {
            return content.asString();
        }
        if (!content.isArray()) {
            throw HttpError.badRequest(field, "must be a string or an array of parts, not " + AguiInput.kind(content));
        }
        StringBuilder text = new StringBuilder();
        for (int i = 0; i < content.size(); i++) {
            JsonNode part = content.get(i);
            String partField = field + "[" + i + "]";
            if (!part.isObject() || !part.path("type").isString()) {
                throw HttpError.badRequest(partField, "must be a part object with a \"type\"");
            }
            if (!part.get("type").asString().equals("text")) {
                throw HttpError.badRequest(partField + ".type", "\"" + part.get("type").asString()
                        + "\" parts are not supported: this agent reads text parts only");
            }
            JsonNode partText = part.get("text");
            if (partText == null || !partText.isString()) {
                throw HttpError.badRequest(partField + ".text", "must be a string");
            }
            if (!text.isEmpty()) {
                text.append('\n');
            }
            text.append(partText.asString());
        }
        return text.toString();
    }
}
