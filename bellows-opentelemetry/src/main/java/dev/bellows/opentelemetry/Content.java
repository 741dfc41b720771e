package dev.bellows.opentelemetry;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.bellows.provider.Message;
import dev.bellows.provider.NativeToolCall;
import dev.bellows.provider.Role;
import java.util.List;
import java.util.function.UnaryOperator;

/**
 * The opt-in content attributes, in the shapes the GenAI conventions' JSON schemas give
 * ({@code gen_ai.input.messages}: role and parts; {@code gen_ai.output.messages}: the same plus
 * {@code finish_reason}), serialised to JSON text as the conventions say to do on spans. Every
 * text passes through the redactor before it is put in: secret values never reach a span.
 */
final class Content {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

    private final UnaryOperator<String> redactor;

    Content(UnaryOperator<String> redactor) {
        this.redactor = redactor;
    }

    String redact(String text) {
        return text == null ? null : redactor.apply(text);
    }

    /** The messages sent to the model, in order. */
    String inputMessages(List<Message> messages) {
        ArrayNode array = NODES.arrayNode();
        for (Message message : messages) {
            ObjectNode node = array.addObject().put("role", message.role().wireName());
            ArrayNode parts = node.putArray("parts");
            if (message.role() == Role.TOOL) {
                parts.addObject().put("type", "tool_call_response").put("id", message.toolCallId())
                        .put("response", redact(message.content()));
                continue;
            }
            if (!message.content().isEmpty()) {
                text(parts, message.content());
            }
            for (NativeToolCall call : message.toolCalls()) {
                toolCall(parts, call.id(), call.name(), call.arguments());
            }
        }
        return write(array);
    }

    /** The task a run was given, as the user's message. */
    String userMessage(String text) {
        ArrayNode array = NODES.arrayNode();
        text(array.addObject().put("role", "user").putArray("parts"), text);
        return write(array);
    }

    /**
     * One answer of the model.
     *
     * @param reasoning  its reasoning, or empty
     * @param text       its text, or empty
     * @param toolCalls  its native tool calls (id, name, arguments' JSON text)
     * @param finish     why it stopped, in the conventions' words ({@code stop}, {@code length},
     *                   {@code tool_call}, ...), or the provider's own
     */
    String outputMessage(String reasoning, String text, List<NativeToolCall> toolCalls, String finish) {
        ArrayNode array = NODES.arrayNode();
        ObjectNode node = array.addObject().put("role", "assistant");
        ArrayNode parts = node.putArray("parts");
        if (!reasoning.isEmpty()) {
            parts.addObject().put("type", "reasoning").put("content", redact(reasoning));
        }
        if (!text.isEmpty()) {
            text(parts, text);
        }
        for (NativeToolCall call : toolCalls) {
            toolCall(parts, call.id(), call.name(), call.arguments());
        }
        node.put("finish_reason", finish);
        return write(array);
    }

    /** A tool call's arguments (JSON text), redacted. */
    String json(JsonNode value) {
        return redact(write(value));
    }

    private void text(ArrayNode parts, String text) {
        parts.addObject().put("type", "text").put("content", redact(text));
    }

    private void toolCall(ArrayNode parts, String id, String name, String arguments) {
        ObjectNode part = parts.addObject().put("type", "tool_call");
        if (id != null) {
            part.put("id", id);
        }
        part.put("name", name);
        // The conventions want an object: the arguments' JSON when it parses, else the text.
        String redacted = redact(arguments == null ? "" : arguments);
        try {
            part.set("arguments", redacted.isBlank() ? NODES.objectNode() : JSON.readTree(redacted));
        } catch (JsonProcessingException e) {
            part.put("arguments", redacted);
        }
    }

    private static String write(JsonNode node) {
        try {
            return JSON.writeValueAsString(node);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("a JSON tree could not be written", e);
        }
    }
}
