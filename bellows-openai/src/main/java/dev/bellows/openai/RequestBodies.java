package dev.bellows.openai;

import static dev.bellows.http.internal.RequestJson.wire;

import tools.jackson.core.JsonGenerator;
import tools.jackson.databind.ObjectMapper;
import dev.bellows.http.internal.JsonBody;
import dev.bellows.http.internal.OfferedTools;
import dev.bellows.http.internal.PartedBody;
import dev.bellows.http.internal.RequestJson;
import dev.bellows.provider.ChatRequest;
import dev.bellows.provider.Message;
import dev.bellows.provider.NativeToolCall;
import dev.bellows.provider.Role;
import dev.bellows.provider.ToolSpec;
import dev.bellows.tool.Media;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * Writes a chat completions request body straight to UTF-8 bytes, fields in a fixed order,
 * unset options left out.
 *
 * <p>What does not change from one model call to the next is encoded once: the system message
 * (the loop passes the same {@code String} while its tools are unchanged) and the {@code tools}
 * array (the same {@link ToolSpec} instances, whose schemas are frozen, so the same instances
 * mean the same bytes: nothing is copied or compared tree by tree). A body is then mostly copies of those bytes plus the
 * conversation's new messages, and the cached parts are not even copied into it: the body
 * goes to the HTTP client as its parts. Thread-safe: the caches are immutable snapshots
 * swapped whole, and nothing ever writes into a cached array.
 *
 * <p>Media: a user message's images become {@code image_url} content parts after its text
 * ({@code data:} URLs in Base64). A tool message's content can only be text in this API, so the
 * images of the tool messages that answer one turn follow them in a user message of their own,
 * each call's images after a line naming the call. A medium that cannot be sent (not one of
 * the image types the API takes, or images turned off for a model without vision) is named
 * in the text instead, with the reason, so that the model knows what it was not shown.
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

    /** The image types OpenAI's chat completions take as {@code image_url} parts (and compatible servers with them). */
    static final Set<String> IMAGE_TYPES = Set.of("image/png", "image/jpeg", "image/gif", "image/webp");

    private static final ObjectMapper JSON = RequestJson.mapper();

    private final ObjectMapper json = JSON;
    private final byte[] maxTokensField;
    private final boolean includeUsage;
    private final boolean images;

    /** The last system message written and its bytes. */
    private volatile Encoded<String> system;
    /** The last tools written, copies of their schemas, and the array's bytes. */
    private volatile Encoded<OfferedTools> tools;

    private record Encoded<K>(K key, byte[] bytes) {
    }

    /** @param images whether images are sent to the model (false for a model without vision) */
    RequestBodies(String maxTokensField, boolean includeUsage, boolean images) {
        this.maxTokensField = ascii(",\"" + maxTokensField + "\":");
        this.includeUsage = includeUsage;
        this.images = images;
    }

    PartedBody write(ChatRequest request) {
        try (JsonBody body = new JsonBody(sizeHint(request))) {
            body.raw(MODEL);
            body.string(request.model());
            body.raw(MESSAGES);
            boolean first = true;
            List<Message> toolMedia = null;      // the tool messages just written whose images follow them
            for (Message message : request.messages()) {
                if (toolMedia != null && message.role() != Role.TOOL) {
                    body.raw(',');
                    writeToolMedia(body.generator(), toolMedia);
                    toolMedia = null;
                }
                if (!first) {
                    body.raw(',');
                }
                first = false;
                if (message.role() == Role.SYSTEM && message.toolCalls().isEmpty()) {
                    body.cached(systemMessage(message.content()));
                } else {
                    writeMessage(body.generator(), message);
                    if (message.role() == Role.TOOL && sendsAny(message.media())) {
                        if (toolMedia == null) {
                            toolMedia = new ArrayList<>(2);
                        }
                        toolMedia.add(message);
                    }
                }
            }
            if (toolMedia != null) {
                body.raw(',');
                writeToolMedia(body.generator(), toolMedia);
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
                generator.writeStringProperty("type", "function");
                generator.writeObjectPropertyStart("function");
                generator.writeStringProperty("name", tool.name());
                generator.writeStringProperty("description", tool.description());
                generator.writeName("parameters");
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

    private void writeMessage(JsonGenerator json, Message message) throws IOException {
        json.writeStartObject();
        json.writeStringProperty("role", message.role().wireName());
        if (message.role() == Role.TOOL) {
            json.writeStringProperty("tool_call_id", wire(message.toolCallId()));
        }
        if (!message.media().isEmpty()) {
            writeWithMedia(json, message);
            json.writeEndObject();
            return;
        }
        if (message.toolCalls().isEmpty()) {
            json.writeStringProperty("content", wire(message.content()));
            json.writeEndObject();
            return;
        }
        // The assistant's native calls go back with it, each answered by a tool message.
        if (message.content().isEmpty()) {
            json.writeNullProperty("content");
        } else {
            json.writeStringProperty("content", wire(message.content()));
        }
        json.writeArrayPropertyStart("tool_calls");
        for (NativeToolCall call : message.toolCalls()) {
            json.writeStartObject();
            json.writeStringProperty("id", wire(call.id()));
            json.writeStringProperty("type", "function");
            json.writeObjectPropertyStart("function");
            json.writeStringProperty("name", wire(call.name()));
            json.writeStringProperty("arguments", wire(call.arguments()));
            json.writeEndObject();
            json.writeEndObject();
        }
        json.writeEndArray();
        json.writeEndObject();
    }

    /** Whether this medium goes to the model as an image part. */
    private boolean sends(Media medium) {
        return images && IMAGE_TYPES.contains(medium.mediaType());
    }

    private boolean sendsAny(List<Media> media) {
        for (Media medium : media) {
            if (sends(medium)) {
                return true;
            }
        }
        return false;
    }

    /**
     * The content of a user or tool message with media: its text with a line on each medium
     * that is not sent, then, for a user message, an {@code image_url} part per image (a tool
     * message's images follow the turn's tool messages, {@link #writeToolMedia}).
     */
    private void writeWithMedia(JsonGenerator json, Message message) throws IOException {
        String text = message.content() + unsentNote(message.media());
        if (message.role() == Role.TOOL || !sendsAny(message.media())) {
            json.writeStringProperty("content", wire(text));
            return;
        }
        json.writeArrayPropertyStart("content");
        if (!text.isEmpty()) {
            writeTextPart(json, text);
        }
        writeImageParts(json, message.media());
        json.writeEndArray();
    }

    /** The user message that shows the model the images of the tool messages before it, call by call. */
    private void writeToolMedia(JsonGenerator json, List<Message> toolMessages) throws IOException {
        json.writeStartObject();
        json.writeStringProperty("role", "user");
        json.writeArrayPropertyStart("content");
        for (Message message : toolMessages) {
            writeTextPart(json, "The images returned for call " + message.toolCallId() + ":");
            writeImageParts(json, message.media());
        }
        json.writeEndArray();
        json.writeEndObject();
    }

    private static void writeTextPart(JsonGenerator json, String text) throws IOException {
        json.writeStartObject();
        json.writeStringProperty("type", "text");
        json.writeStringProperty("text", wire(text));
        json.writeEndObject();
    }

    private void writeImageParts(JsonGenerator json, List<Media> media) throws IOException {
        for (Media medium : media) {
            if (sends(medium)) {
                json.writeStartObject();
                json.writeStringProperty("type", "image_url");
                json.writeObjectPropertyStart("image_url");
                json.writeStringProperty("url", "data:" + medium.mediaType() + ";base64," + medium.base64());
                json.writeEndObject();
                json.writeEndObject();
            }
        }
    }

    /** A line for the media that are not sent, saying why; empty when all are sent. */
    private String unsentNote(List<Media> media) {
        StringBuilder unsent = new StringBuilder();
        for (Media medium : media) {
            if (!sends(medium)) {
                unsent.append(unsent.isEmpty() ? "" : "; ").append(medium.mediaType()).append(", ")
                        .append(medium.size()).append(" bytes");
            }
        }
        if (unsent.isEmpty()) {
            return "";
        }
        return "\n(not shown to you: " + unsent + (images
                ? "; only PNG, JPEG, GIF and WebP images can be sent to you)"
                : "; images cannot be sent to this model)");
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
            for (Media medium : message.media()) {
                bytes += 96 + 4L * (medium.size() + 2) / 3;
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
