package dev.bellows.openai;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.json.JsonWriteFeature;
import com.fasterxml.jackson.core.util.JsonRecyclerPools;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.bellows.provider.ChatRequest;
import dev.bellows.provider.Message;
import dev.bellows.provider.NativeToolCall;
import dev.bellows.provider.Role;
import dev.bellows.provider.ToolSpec;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.net.http.HttpRequest;
import java.util.ArrayList;
import java.util.Arrays;
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

    // Buffers from a pool every thread shares: runs go on on new virtual threads, which the
    // default per-thread pool would give new buffers each time.
    private static final ObjectMapper JSON = new ObjectMapper(JsonFactory.builder()
            .recyclerPool(JsonRecyclerPools.sharedConcurrentDequePool())
            // Characters outside the BMP as their four UTF-8 bytes, as the text writer this
            // replaces sent them, not as two escaped surrogates.
            .enable(JsonWriteFeature.COMBINE_UNICODE_SURROGATES_IN_UTF8)
            .build());

    private final ObjectMapper json = JSON;
    private final byte[] maxTokensField;
    private final boolean includeUsage;

    /** The last system message written and its bytes. */
    private volatile Encoded<String> system;
    /** The last tools written, copies of their schemas, and the array's bytes. */
    private volatile Encoded<Tools> tools;

    private record Encoded<K>(K key, byte[] bytes) {
    }

    private record Tools(ToolSpec[] specs, JsonNode[] schemas) {
        boolean sameAs(List<ToolSpec> offered) {
            if (offered.size() != specs.length) {
                return false;
            }
            for (int i = 0; i < specs.length; i++) {
                if (offered.get(i) != specs[i] || !schemas[i].equals(specs[i].parameters())) {
                    return false;
                }
            }
            return true;
        }
    }

    RequestBodies(String maxTokensField, boolean includeUsage) {
        this.maxTokensField = ascii(",\"" + maxTokensField + "\":");
        this.includeUsage = includeUsage;
    }

    /**
     * A body: the bytes written for this request with the cached encodings between them,
     * which are sent as they are, never copied into the body.
     */
    static final class Body {
        private final List<byte[]> arrays = new ArrayList<>(5);
        private final List<int[]> ranges = new ArrayList<>(5);
        private int length;

        private void add(byte[] array, int from, int to) {
            if (to > from) {
                arrays.add(array);
                ranges.add(new int[] {from, to});
                length += to - from;
            }
        }

        /** The body's length in bytes. */
        int length() {
            return length;
        }

        /** The body for the HTTP client: its parts in order, with the length known up front. */
        HttpRequest.BodyPublisher publisher() {
            if (arrays.size() == 1) {
                return HttpRequest.BodyPublishers.ofByteArray(arrays.get(0), ranges.get(0)[0], length);
            }
            HttpRequest.BodyPublisher[] parts = new HttpRequest.BodyPublisher[arrays.size()];
            for (int i = 0; i < parts.length; i++) {
                int[] range = ranges.get(i);
                parts[i] = HttpRequest.BodyPublishers.ofByteArray(arrays.get(i), range[0], range[1] - range[0]);
            }
            return HttpRequest.BodyPublishers.concat(parts);
        }

        /** The whole body as text (for tests). */
        String text() {
            java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream(length);
            for (int i = 0; i < arrays.size(); i++) {
                int[] range = ranges.get(i);
                out.write(arrays.get(i), range[0], range[1] - range[0]);
            }
            return out.toString(StandardCharsets.UTF_8);
        }
    }

    Body write(ChatRequest request) {
        Buffer out = new Buffer(sizeHint(request));
        List<Object> pieces = new ArrayList<>(5);   // ends in the buffer (Integer) and cached arrays, in order
        try (JsonGenerator generator = json.createGenerator(out)) {
            // Values are written one at a time at the root, with the punctuation between them
            // written here: no separator of the generator's own between root values.
            generator.setRootValueSeparator(null);
            out.write(MODEL);
            generator.writeString(wire(request.model()));
            generator.flush();
            out.write(MESSAGES);
            boolean first = true;
            for (Message message : request.messages()) {
                if (!first) {
                    out.write(',');
                }
                first = false;
                if (message.role() == Role.SYSTEM && message.toolCalls().isEmpty()) {
                    pieces.add(out.length);
                    pieces.add(systemMessage(message.content()));
                } else {
                    writeMessage(generator, message);
                    generator.flush();
                }
            }
            out.write(']');
            if (!request.tools().isEmpty()) {
                out.write(TOOLS);
                pieces.add(out.length);
                pieces.add(tools(request.tools()));
            }
            out.write(STREAM);
            if (includeUsage) {
                out.write(STREAM_OPTIONS);
            }
            if (request.temperature().isPresent()) {
                out.write(TEMPERATURE);
                generator.writeNumber(request.temperature().get());
                generator.flush();
            }
            if (request.topP().isPresent()) {
                out.write(TOP_P);
                generator.writeNumber(request.topP().get());
                generator.flush();
            }
            if (request.maxTokens().isPresent()) {
                out.write(maxTokensField);
                generator.writeNumber(request.maxTokens().get());
                generator.flush();
            }
            if (!request.stopSequences().isEmpty()) {
                out.write(STOP);
                generator.writeStartArray();
                for (String stop : request.stopSequences()) {
                    generator.writeString(wire(stop));
                }
                generator.writeEndArray();
                generator.flush();
            }
            out.write('}');
        } catch (IOException e) {
            // Writing to memory does not fail; only the signature says it may.
            throw new UncheckedIOException("cannot write the request body", e);
        }
        // Only now is the buffer's array final (it may have grown while writing).
        Body body = new Body();
        int from = 0;
        for (Object piece : pieces) {
            if (piece instanceof Integer end) {
                body.add(out.bytes, from, end);
                from = end;
            } else {
                byte[] cached = (byte[]) piece;
                body.add(cached, 0, cached.length);
            }
        }
        body.add(out.bytes, from, out.length);
        return body;
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
        Encoded<Tools> cached = tools;
        if (cached != null && cached.key().sameAs(offered)) {
            return cached.bytes();
        }
        java.io.StringWriter out = new java.io.StringWriter(512 * offered.size());
        ToolSpec[] specs = offered.toArray(new ToolSpec[0]);
        JsonNode[] schemas = new JsonNode[specs.length];
        try (JsonGenerator generator = json.createGenerator(out)) {
            generator.writeStartArray();
            for (int i = 0; i < specs.length; i++) {
                ToolSpec tool = specs[i];
                schemas[i] = tool.parameters().deepCopy();
                generator.writeStartObject();
                generator.writeStringField("type", "function");
                generator.writeObjectFieldStart("function");
                generator.writeStringField("name", tool.name());
                generator.writeStringField("description", tool.description());
                generator.writeFieldName("parameters");
                generator.writeTree(schemas[i]);
                generator.writeEndObject();
                generator.writeEndObject();
            }
            generator.writeEndArray();
        }
        byte[] bytes = out.toString().getBytes(StandardCharsets.UTF_8);
        tools = new Encoded<>(new Tools(specs, schemas), bytes);
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

    /**
     * The text as the body's UTF-8 carries it: unchanged, unless it holds a lone surrogate,
     * which becomes '?' as encoding a {@code String} to UTF-8 makes it (the body was once
     * written that way; a JSON writer on bytes would escape it instead, which strict servers
     * refuse). Only such rare text is copied.
     */
    static String wire(String text) {
        if (text == null) {
            return null;
        }
        int length = text.length();
        for (int i = 0; i < length; i++) {
            char c = text.charAt(i);
            if (Character.isSurrogate(c)) {
                if (Character.isHighSurrogate(c) && i + 1 < length && Character.isLowSurrogate(text.charAt(i + 1))) {
                    i++;
                    continue;
                }
                return new String(text.getBytes(StandardCharsets.UTF_8), StandardCharsets.UTF_8);
            }
        }
        return text;
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
        Encoded<Tools> cachedTools = tools;
        bytes += cachedTools != null && cachedTools.key().specs().length == request.tools().size()
                ? 0 : 512L * request.tools().size();
        return (int) Math.min(bytes, 1 << 24);
    }

    private static byte[] ascii(String text) {
        return text.getBytes(StandardCharsets.US_ASCII);
    }

    /** A growable byte array whose storage is handed over as it is (no copy at the end). */
    private static final class Buffer extends OutputStream {
        byte[] bytes;
        int length;

        Buffer(int size) {
            bytes = new byte[Math.max(size, 64)];
        }

        private void ensure(int more) {
            if (length + more > bytes.length) {
                bytes = Arrays.copyOf(bytes, Math.max(bytes.length * 2, length + more));
            }
        }

        @Override
        public void write(int b) {
            ensure(1);
            bytes[length++] = (byte) b;
        }

        @Override
        public void write(byte[] source) {
            write(source, 0, source.length);
        }

        @Override
        public void write(byte[] source, int offset, int count) {
            ensure(count);
            System.arraycopy(source, offset, bytes, length, count);
            length += count;
        }
    }
}
