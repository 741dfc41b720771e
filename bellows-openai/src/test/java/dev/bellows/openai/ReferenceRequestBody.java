package dev.bellows.openai;

import dev.bellows.json.internal.Jackson;
import tools.jackson.core.JsonGenerator;
import tools.jackson.databind.ObjectMapper;
import dev.bellows.openai.OpenAiProvider.MaxTokensField;
import dev.bellows.provider.ChatRequest;
import dev.bellows.provider.Message;
import dev.bellows.provider.NativeToolCall;
import dev.bellows.provider.Role;
import dev.bellows.provider.ToolSpec;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;

/** How the provider wrote request bodies before it wrote bytes with cached parts: the reference. */
final class ReferenceRequestBody {

    private static final ObjectMapper JSON = Jackson.JSON;

    private ReferenceRequestBody() {
    }

    /** The JSON body for a request, fields in a fixed order; unset options are left out. */
    static String requestBody(ChatRequest request, MaxTokensField maxTokensField, boolean includeUsage) {
        // Written straight to text (no tree first): the body is built for every model call.
        StringWriter out = new StringWriter(sizeHint(request));
        try (JsonGenerator json = JSON.createGenerator(out)) {
            json.writeStartObject();
            json.writeStringProperty("model", request.model());
            json.writeArrayPropertyStart("messages");
            for (Message message : request.messages()) {
                writeMessage(json, message);
            }
            json.writeEndArray();
            if (!request.tools().isEmpty()) {
                json.writeArrayPropertyStart("tools");
                for (ToolSpec tool : request.tools()) {
                    json.writeStartObject();
                    json.writeStringProperty("type", "function");
                    json.writeObjectPropertyStart("function");
                    json.writeStringProperty("name", tool.name());
                    json.writeStringProperty("description", tool.description());
                    json.writeName("parameters");
                    json.writeTree(tool.parameters());
                    json.writeEndObject();
                    json.writeEndObject();
                }
                json.writeEndArray();
            }
            json.writeBooleanProperty("stream", true);
            if (includeUsage) {
                json.writeObjectPropertyStart("stream_options");
                json.writeBooleanProperty("include_usage", true);
                json.writeEndObject();
            }
            if (request.temperature().isPresent()) {
                json.writeNumberProperty("temperature", request.temperature().get());
            }
            if (request.topP().isPresent()) {
                json.writeNumberProperty("top_p", request.topP().get());
            }
            if (request.maxTokens().isPresent()) {
                json.writeNumberProperty(maxTokensField.jsonName(), request.maxTokens().get());
            }
            if (!request.stopSequences().isEmpty()) {
                json.writeArrayPropertyStart("stop");
                for (String stop : request.stopSequences()) {
                    json.writeString(stop);
                }
                json.writeEndArray();
            }
            json.writeEndObject();
        } catch (IOException e) {
            // Writing to a StringWriter does not fail; only the signature says it may.
            throw new UncheckedIOException("cannot write the request body", e);
        }
        return out.toString();
    }

    /** About the body's length, so that its buffer is not grown and copied again and again. */
    private static int sizeHint(ChatRequest request) {
        long chars = 256;
        for (Message message : request.messages()) {
            chars += 32 + message.content().length();
            for (NativeToolCall call : message.toolCalls()) {
                chars += 96 + call.arguments().length();
            }
        }
        chars += 512L * request.tools().size();
        return (int) Math.min(chars + chars / 8, 1 << 24);
    }

    private static void writeMessage(JsonGenerator json, Message message) throws IOException {
        json.writeStartObject();
        json.writeStringProperty("role", message.role().wireName());
        if (message.role() == Role.TOOL) {
            json.writeStringProperty("tool_call_id", message.toolCallId());
        }
        if (message.toolCalls().isEmpty()) {
            json.writeStringProperty("content", message.content());
            json.writeEndObject();
            return;
        }
        // The assistant's native calls go back with it, each answered by a tool message.
        if (message.content().isEmpty()) {
            json.writeNullProperty("content");
        } else {
            json.writeStringProperty("content", message.content());
        }
        json.writeArrayPropertyStart("tool_calls");
        for (NativeToolCall call : message.toolCalls()) {
            json.writeStartObject();
            json.writeStringProperty("id", call.id());
            json.writeStringProperty("type", "function");
            json.writeObjectPropertyStart("function");
            json.writeStringProperty("name", call.name());
            json.writeStringProperty("arguments", call.arguments());
            json.writeEndObject();
            json.writeEndObject();
        }
        json.writeEndArray();
        json.writeEndObject();
    }

}
