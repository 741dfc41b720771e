package dev.bellows.opentelemetry;

import dev.bellows.json.internal.Jackson;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;
import dev.bellows.provider.Message;
import dev.bellows.provider.NativeToolCall;
import dev.bellows.provider.Role;
import dev.bellows.stream.StreamOptions;
import java.util.List;
import java.util.Optional;
import java.util.function.UnaryOperator;

/**
 * The opt-in content attributes, in the shapes the GenAI conventions' JSON schemas give
 * ({@code gen_ai.input.messages}: role and parts; {@code gen_ai.output.messages}: the same plus
 * {@code finish_reason}), serialised to JSON text as the conventions say to do on spans. Every
 * text passes through the redactor before it is put in: secret values never reach a span.
 */
final class Content {

    private static final ObjectMapper JSON = Jackson.JSON;
    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

    private final UnaryOperator<String> redactor;

    Content(UnaryOperator<String> redactor) {
        this.redactor = redactor;
    }

    String redact(String text) {
        return text == null ? null : redactor.apply(text);
    }

    /**
     * The messages sent to the model, in order; with the loop's stream options, an assistant
     * message's text (a tag-mode answer, kept as the model wrote it) is read as the loop read it:
     * its thinking as reasoning parts, its calls as tool calls.
     */
    String inputMessages(List<Message> messages, Optional<StreamOptions> options) {
        ArrayNode array = NODES.arrayNode();
        for (Message message : messages) {
            ObjectNode node = array.addObject().put("role", message.role().wireName());
            ArrayNode parts = node.putArray("parts");
            if (message.role() == Role.TOOL) {
                parts.addObject().put("type", "tool_call_response").put("id", message.toolCallId())
                        .put("response", redact(message.content()));
                continue;
            }
            if (message.role() == Role.ASSISTANT && options.isPresent() && !message.content().isEmpty()) {
                ReadAnswer read = ReadAnswer.of(message.content(), options.get());
                reasoning(parts, read.reasoning());
                if (!read.text().isEmpty()) {
                    text(parts, read.text());
                }
                for (NativeToolCall call : read.toolCalls()) {
                    toolCall(parts, call.id(), call.name(), call.arguments());
                }
            } else if (!message.content().isEmpty()) {
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
     * @param reasoning  its reasoning, one entry per thinking block (an empty one is left out)
     * @param text       its text, or empty
     * @param toolCalls  its tool calls (id, empty for one written in the text; name; arguments' JSON text)
     * @param finish     why it stopped, in the conventions' words ({@code stop}, {@code length},
     *                   {@code tool_call}, ...), or the provider's own
     */
    String outputMessage(List<String> reasoning, String text, List<NativeToolCall> toolCalls, String finish) {
        ArrayNode array = NODES.arrayNode();
        ObjectNode node = array.addObject().put("role", "assistant");
        ArrayNode parts = node.putArray("parts");
        reasoning(parts, reasoning);
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

    /** A {@code reasoning} part per thinking block (the conventions' ReasoningPart); empty ones left out. */
    private void reasoning(ArrayNode parts, List<String> thoughts) {
        for (String thought : thoughts) {
            if (!thought.isEmpty()) {
                parts.addObject().put("type", "reasoning").put("content", redact(thought));
            }
        }
    }

    private void text(ArrayNode parts, String text) {
        parts.addObject().put("type", "text").put("content", redact(text));
    }

    private void toolCall(ArrayNode parts, String id, String name, String arguments) {
        ObjectNode part = parts.addObject().put("type", "tool_call");
        if (id != null && !id.isEmpty()) {     // a call written in the text has none yet: the loop names it later
            part.put("id", id);
        }
        part.put("name", name);
        // The conventions want an object: the arguments' JSON when it parses, else the text.
        String redacted = redact(arguments == null ? "" : arguments);
        try {
            part.set("arguments", redacted.isBlank() ? NODES.objectNode() : JSON.readTree(redacted));
        } catch (JacksonException e) {
            part.put("arguments", redacted);
        }
    }

    private static String write(JsonNode node) {
        try {
            return JSON.writeValueAsString(node);
        } catch (JacksonException e) {
            throw new IllegalStateException("a JSON tree could not be written", e);
        }
    }
}
