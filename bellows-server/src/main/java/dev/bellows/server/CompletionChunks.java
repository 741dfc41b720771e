package dev.bellows.server;

import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/** The JSON of OpenAI's chat completions: whole answers, stream chunks and errors. */
final class CompletionChunks {

    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;
    private final String id;
    private final long created;
    private final String model;

    CompletionChunks(String id, long created, String model) {
        this.id = id;
        this.created = created;
        this.model = model;
    }

    String role() {
        ObjectNode chunk = chunk();
        ObjectNode choice = chunk.withArray("choices").addObject();
        choice.put("index", 0);
        choice.putObject("delta").put("role", "assistant").put("content", "");
        choice.putNull("finish_reason");
        return chunk.toString();
    }

    /** Thinking, as the reasoning channel that OpenAI-compatible servers stream it on. */
    String reasoning(String text) {
        ObjectNode chunk = chunk();
        ObjectNode choice = chunk.withArray("choices").addObject();
        choice.put("index", 0);
        choice.putObject("delta").put("reasoning_content", text);
        choice.putNull("finish_reason");
        return chunk.toString();
    }

    String content(String text) {
        ObjectNode chunk = chunk();
        ObjectNode choice = chunk.withArray("choices").addObject();
        choice.put("index", 0);
        choice.putObject("delta").put("content", text);
        choice.putNull("finish_reason");
        return chunk.toString();
    }

    String finish(String reason) {
        ObjectNode chunk = chunk();
        ObjectNode choice = chunk.withArray("choices").addObject();
        choice.put("index", 0);
        choice.putObject("delta");
        choice.put("finish_reason", reason);
        return chunk.toString();
    }

    String completion(String answer, String finishReason) {
        ObjectNode completion = NODES.objectNode();
        completion.put("id", id);
        completion.put("object", "chat.completion");
        completion.put("created", created);
        completion.put("model", model);
        ObjectNode choice = completion.putArray("choices").addObject();
        choice.put("index", 0);
        ObjectNode message = choice.putObject("message");
        message.put("role", "assistant");
        message.put("content", answer);
        choice.put("finish_reason", finishReason);
        return completion.toString();
    }

    static String error(String message, String code) {
        ObjectNode json = NODES.objectNode();
        ObjectNode error = json.putObject("error");
        error.put("message", message);
        error.put("type", "server_error");
        error.putNull("param");
        error.put("code", code);
        return json.toString();
    }

    private ObjectNode chunk() {
        ObjectNode chunk = NODES.objectNode();
        chunk.put("id", id);
        chunk.put("object", "chat.completion.chunk");
        chunk.put("created", created);
        chunk.put("model", model);
        return chunk;
    }
}
