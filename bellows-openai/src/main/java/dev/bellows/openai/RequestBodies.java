package dev.bellows.openai;

import static dev.bellows.http.RequestJson.wire;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.bellows.http.JsonBody;
import dev.bellows.http.OfferedTools;
import dev.bellows.http.PartedBody;
import dev.bellows.http.RequestJson;
import dev.bellows.provider.ChatRequest;
import dev.bellows.provider.Message;
import dev.bellows.provider.NativeToolCall;
import dev.bellows.provider.Role;
import dev.bellows.provider.ToolSpec;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * Writes a chat completions request body straight to UTF-8 bytes, fields in a fixed order,
 * unset options left out.
 *
 * <p>What does not change from one model call to the next is encoded once: the system message
 * (the loop passes the same {@code String} while its tools are unchanged) and the {@code tools}
 * array (the same {@link ToolSpec}s, whose schemas are compared with a copy kept of them, so a
 * schema changed in place is noticed). A body is then mostly copies of those bytes plus the
 * conversation's new messages, and the cached parts are not even copied into it: the body
 * goes to the HTTP client as its parts. Thread-safe: the caches are immutable snapshots
 * swapped whole, and nothing ever writes into a cached array.
 */
final class RequestBodies {

    private static final byte[] MODEL = ascii("{\"model\":");
    private static final byte[] MESSAGES = ascii(",\"messages\":[");
    private static final byte[] TOOLS = ascii(",\"tools\":");
    private static final byte[] STREAM = ascii(",\"stream\":true");
    private static final byte[] STREAM_OPTIONS = ascii(",\"stream_options\":{\"include_usage\":true}");
    private static final byte[] TEMPERATURE = ascii(",\"temperature\":");
    private static final byte[] TOP_P = ascii(",\"top_p\":");
    private static final byte[] STOP = ascii(",\"stop\":");

    private static final ObjectMapper JSON = RequestJson.mapper();

    private final ObjectMapper json = JSON;
    private final byte[] maxTokensField;
    private final boolean includeUsage;

    /** The last system message written and its bytes. */
    private volatile Encoded<String> system;
    /** The last tools written, copies of their schemas, and the array's bytes. */
    private volatile Encoded<OfferedTools> tools;

    private record Encoded<K>(K key, byte[] bytes) {
    }

    RequestBodies(String maxTokensField, boolean includeUsage) {
        this.maxTokensField = ascii(",\"" + maxTokensField + "\":");
        this.includeUsage = includeUsage;
    }

    PartedBody write(ChatRequest request) {
        try (JsonBody body = new JsonBody(sizeHint(request))) {
            body.raw(MODEL);
            body.string(request.model());
            body.raw(MESSAGES);
            boolean first = true;
            for (Message message : request.messages()) {
                if (!first) {
                    body.raw(',');
                }
                first = false;
                if (message.role() == Role.SYSTEM && message.toolCalls().isEmpty()) {
                    body.cached(systemMessage(message.content()));
                } else {
                    writeMessage(body.generator(), message);
                }
            }
            body.raw(']');
            if (!request.tools().isEmpty()) {
                body.raw(TOOLS);
                body.cached(tools(request.tools()));
            }
            body.raw(STREAM);
            if (includeUsage) {
                body.raw(STREAM_OPTIONS);
            }
            // Options only when set, so that the API's defaults apply otherwise.
            body.optionalNumber(TEMPERATURE, request.temperature());
            body.optionalNumber(TOP_P, request.topP());
            if (request.maxTokens().isPresent()) {
                body.raw(maxTokensField);
                body.number(request.maxTokens().get());
            }
            body.optionalStrings(STOP, request.stopSequences());
            body.raw('}');
            return body.finish();
        } catch (IOException e) {
            // Writing to memory does not fail; only the signature says it may.
            throw new UncheckedIOException("cannot write the request body", e);
        }
    }

    private byte[] systemMessage(String content) throws IOException {
        Encoded<String> cached = system;
        if (cached != null && cached.key() == content) {
            return cached.bytes();
        }
        // Written once: as text first, encoded as the text body was, lone surrogates and all.
        java.io.StringWriter text = new java.io.StringWriter(content.length() + 64);
        try (JsonGenerator generator = json.createGenerator(text)) {
            writeMessage(generator, Message.system(content));
        }
        byte[] bytes = text.toString().getBytes(StandardCharsets.UTF_8);
        system = new Encoded<>(content, bytes);
        return bytes;
    }

    private byte[] tools(List<ToolSpec> offered) throws IOException {
        Encoded<OfferedTools> cached = tools;
        if (cached != null && cached.key().sameAs(offered)) {
            return cached.bytes();
        }
        OfferedTools snapshot = OfferedTools.copyOf(offered);
        java.io.StringWriter out = new java.io.StringWriter(512 * snapshot.size());
        try (JsonGenerator generator = json.createGenerator(out)) {
            generator.writeStartArray();
            for (int i = 0; i < snapshot.size(); i++) {
                ToolSpec tool = snapshot.tool(i);
                generator.writeStartObject();
                generator.writeStringField("type", "function");
                generator.writeObjectFieldStart("function");
                generator.writeStringField("name", tool.name());
                generator.writeStringField("description", tool.description());
                generator.writeFieldName("parameters");
                // From the copy that is compared later, so the bytes are what it holds.
                generator.writeTree(snapshot.schema(i));
                generator.writeEndObject();
                generator.writeEndObject();
            }
            generator.writeEndArray();
        }
        byte[] bytes = out.toString().getBytes(StandardCharsets.UTF_8);
        tools = new Encoded<>(snapshot, bytes);
        return bytes;
    }

    private static void writeMessage(JsonGenerator json, Message message) throws IOException {
        json.writeStartObject();
        json.writeStringField("role", message.role().wireName());
        if (message.role() == Role.TOOL) {
            json.writeStringField("tool_call_id", wire(message.toolCallId()));
        }
        if (message.toolCalls().isEmpty()) {
            json.writeStringField("content", wire(message.content()));
            json.writeEndObject();
            return;
        }
        // The assistant's native calls go back with it, each answered by a tool message.
        if (message.content().isEmpty()) {
            json.writeNullField("content");
        } else {
            json.writeStringField("content", wire(message.content()));
        }
        json.writeArrayFieldStart("tool_calls");
        for (NativeToolCall call : message.toolCalls()) {
            json.writeStartObject();
            json.writeStringField("id", wire(call.id()));
            json.writeStringField("type", "function");
            json.writeObjectFieldStart("function");
            json.writeStringField("name", wire(call.name()));
            json.writeStringField("arguments", wire(call.arguments()));
            json.writeEndObject();
            json.writeEndObject();
        }
        json.writeEndArray();
        json.writeEndObject();
    }

    /** About the body's length in bytes, so that its buffer is rarely grown and copied. */
    private int sizeHint(ChatRequest request) {
        long bytes = 256;
        for (Message message : request.messages()) {
            Encoded<String> cached = system;
            bytes += cached != null && cached.key() == message.content() ? 0   // sent from the cache
                    : 40 + message.content().length() + message.content().length() / 8;
            for (NativeToolCall call : message.toolCalls()) {
                bytes += 96 + call.arguments().length();
            }
        }
        Encoded<OfferedTools> cachedTools = tools;
        bytes += cachedTools != null && cachedTools.key().size() == request.tools().size()
                ? 0 : 512L * request.tools().size();
        return (int) Math.min(bytes, 1 << 24);
    }

    private static byte[] ascii(String text) {
        return text.getBytes(StandardCharsets.US_ASCII);
    }
}
