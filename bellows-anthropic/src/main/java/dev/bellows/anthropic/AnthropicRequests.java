package dev.bellows.anthropic;

import tools.jackson.core.JsonGenerator;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;
import dev.bellows.http.internal.JsonBody;
import dev.bellows.http.internal.OfferedTools;
import dev.bellows.http.internal.PartedBody;
import dev.bellows.http.internal.RequestJson;
import dev.bellows.provider.ChatRequest;
import dev.bellows.provider.Message;
import dev.bellows.provider.NativeToolCall;
import dev.bellows.provider.ProviderException;
import dev.bellows.provider.Role;
import dev.bellows.provider.SignedThinking;
import dev.bellows.provider.ToolSpec;
import dev.bellows.tool.Media;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Turns a {@link ChatRequest} into the Messages API's JSON body, written straight to UTF-8
 * bytes.
 *
 * <ul>
 *   <li>{@code model}, then {@code max_tokens}: the request's {@code maxTokens} when set,
 *       else the provider's default (the API requires the field).</li>
 *   <li>{@code system}: the text of every {@link Role#SYSTEM} message, wherever it stands in
 *       the conversation, in order, joined with a blank line; absent when there is none (the
 *       Messages API has no system role inside {@code messages}). With prompt caching on, it is
 *       one text block marked {@code "cache_control": {"type": "ephemeral"}} instead of a
 *       string.</li>
 *   <li>{@code messages}: the user and assistant messages with string content. The API wants
 *       user and assistant turns to alternate, so consecutive messages of one role (also
 *       those that became neighbours when a system message between them was moved out) are
 *       merged into one, their texts joined with a blank line. Messages with empty content
 *       are left out: the API refuses empty text, and they add nothing.</li>
 *   <li>The first of them must be a user message: a conversation that starts with an
 *       assistant message (or has no user or assistant message at all) is refused with a
 *       {@link ProviderException.Kind#CLIENT_ERROR} before anything is sent, rather than
 *       inventing a user turn the caller never wrote. A last assistant message is sent as it
 *       is: the API continues it (a "prefill").</li>
 *   <li>{@code stream: true}; {@code temperature}, {@code top_p} and {@code stop_sequences}
 *       only when set, so the API's defaults apply otherwise (ranges are the API's to check:
 *       its 400 answer says what is wrong).</li>
 *   <li>{@code thinking: {"type": "enabled", "budget_tokens": N}} when extended thinking is
 *       on; {@code max_tokens} must then be above the budget.</li>
 *   <li>Native tool calling: the request's tools as {@code tools} ({@code name},
 *       {@code description}, {@code input_schema}; with prompt caching on, the last one marked
 *       {@code cache_control}); an assistant message with tool calls as content blocks: its
 *       signed thinking blocks first, unchanged (the API requires them back when thinking
 *       meets tool use), then its text, then a {@code tool_use} block per call (arguments that
 *       are not a JSON object go back as {@code {}}); {@link Role#TOOL} messages as
 *       {@code tool_result} blocks of a user turn. A turn made only of text keeps the plain
 *       string form.</li>
 *   <li>Media of a user or tool message follow its text as blocks: images (JPEG, PNG, GIF,
 *       WebP) as {@code image} blocks, PDFs as {@code document} blocks, both with a
 *       {@code base64} source; a tool message's inside its {@code tool_result}, whose content
 *       is then a list of blocks. A medium of another type is not sent: a line of the text
 *       names it and says why.</li>
 * </ul>
 *
 * <p>What does not change from one model call to the next is encoded once: the {@code system}
 * value (the agent passes the same {@code String} on every call; another string with the same
 * text is recognised too) and the {@code tools} array (the same {@link ToolSpec} instances, whose
 * schemas are frozen, so the same instances mean the same bytes). They are
 * never encoded again, only copied into the body's one array as it is sent (one socket write
 * for the body, see {@code PartedBody#publisher}). The {@code input} of
 * each earlier tool call, sent again on every later request of a conversation, is encoded once
 * too (keyed by its arguments' text). Thread-safe: the caches are immutable snapshots swapped
 * whole or a concurrent map, and nothing writes into a cached array.
 */
final class AnthropicRequests {

    private static final String SEPARATOR = "\n\n";

    private static final byte[] MODEL = ascii("{\"model\":");
    private static final byte[] MAX_TOKENS = ascii(",\"max_tokens\":");
    private static final byte[] MESSAGES = ascii(",\"messages\":[");
    private static final byte[] ROLE_USER = ascii("{\"role\":\"user\",\"content\":");
    private static final byte[] ROLE_ASSISTANT = ascii("{\"role\":\"assistant\",\"content\":");
    private static final byte[] TEXT_BLOCK = ascii("{\"type\":\"text\",\"text\":");
    private static final byte[] THINKING_BLOCK = ascii("{\"type\":\"thinking\",\"thinking\":");
    private static final byte[] SIGNATURE = ascii(",\"signature\":");
    private static final byte[] REDACTED_BLOCK = ascii("{\"type\":\"redacted_thinking\",\"data\":");
    private static final byte[] TOOL_USE_BLOCK = ascii("{\"type\":\"tool_use\",\"id\":");
    private static final byte[] NAME = ascii(",\"name\":");
    private static final byte[] INPUT = ascii(",\"input\":");
    private static final byte[] TOOL_RESULT_BLOCK = ascii("{\"type\":\"tool_result\",\"tool_use_id\":");
    private static final byte[] CONTENT = ascii(",\"content\":");
    private static final byte[] STREAM = ascii(",\"stream\":true");
    private static final byte[] TEMPERATURE = ascii(",\"temperature\":");
    private static final byte[] TOP_P = ascii(",\"top_p\":");
    private static final byte[] STOP_SEQUENCES = ascii(",\"stop_sequences\":");
    private static final byte[] EMPTY_OBJECT = ascii("{}");
    private static final byte[] IMAGE_BLOCK = ascii("{\"type\":\"image\",\"source\":{\"type\":\"base64\",\"media_type\":");
    private static final byte[] DOCUMENT_BLOCK = ascii("{\"type\":\"document\",\"source\":{\"type\":\"base64\",\"media_type\":");
    private static final byte[] DATA = ascii(",\"data\":");
    /** The image types the Messages API takes; PDFs go as documents. */
    static final Set<String> IMAGE_TYPES = Set.of("image/jpeg", "image/png", "image/gif", "image/webp");
    static final String PDF = "application/pdf";
    private static final String CACHE_CONTROL = "cache_control";
    /** The longest arguments whose encoding is kept, in chars, and how many are kept at most. */
    private static final int MAX_CACHED_INPUT = 4096;
    private static final int MAX_CACHED_INPUTS = 256;

    private static final ObjectMapper JSON = RequestJson.mapper();

    private final int defaultMaxTokens;
    private final Integer thinkingBudget;
    private final boolean promptCaching;
    private final byte[] thinking;
    /** Tool call arguments to their {@code input} bytes; the arrays are never written to. */
    private final Map<String, byte[]> inputs = new ConcurrentHashMap<>();

    /** The last system text written and its bytes ({@code ,"system":...}). */
    private volatile Encoded<String> system;
    /** The last tools written, copies of their schemas, and the array's bytes. */
    private volatile Encoded<OfferedTools> tools;

    private record Encoded<K>(K key, byte[] bytes) {
    }

    /**
     * @param thinkingBudget the extended thinking budget, or null for none
     * @param promptCaching  whether the system block and the last tool are marked for caching
     */
    AnthropicRequests(int defaultMaxTokens, Integer thinkingBudget, boolean promptCaching) {
        this.defaultMaxTokens = defaultMaxTokens;
        this.thinkingBudget = thinkingBudget;
        this.promptCaching = promptCaching;
        this.thinking = thinkingBudget == null ? null
                : ascii(",\"thinking\":{\"type\":\"enabled\",\"budget_tokens\":" + thinkingBudget + "}");
    }

    /**
     * The body for a request.
     *
     * @throws ProviderException ({@link ProviderException.Kind#CLIENT_ERROR}) for a request the
     *                           API would refuse: no user message, an assistant message first,
     *                           {@code maxTokens} not above the thinking budget
     */
    PartedBody write(ChatRequest request) throws ProviderException {
        int maxTokens = request.maxTokens().orElse(defaultMaxTokens);
        if (thinkingBudget != null && maxTokens <= thinkingBudget) {
            throw new ProviderException(ProviderException.Kind.CLIENT_ERROR, "maxTokens (" + maxTokens
                    + ") must be above the thinking budget (" + thinkingBudget
                    + " tokens): the Messages API counts thinking into max_tokens");
        }
        List<Message> messages = request.messages();
        int first = nextTurn(messages, 0);
        if (first == messages.size()) {
            throw new ProviderException(ProviderException.Kind.CLIENT_ERROR,
                    "the conversation has no user message: the Anthropic Messages API needs at least one");
        }
        if (turnRole(messages.get(first)) != Role.USER) {
            throw new ProviderException(ProviderException.Kind.CLIENT_ERROR,
                    "the conversation starts with an assistant message: the Anthropic Messages API needs a"
                            + " user message first (put the task or question before it)");
        }
        try (JsonBody body = new JsonBody(sizeHint(request))) {
            body.raw(MODEL);
            body.string(request.model());
            body.raw(MAX_TOKENS);
            body.number(maxTokens);
            String systemText = systemText(messages);
            if (systemText != null) {
                body.cached(system(systemText));
            }
            body.raw(MESSAGES);
            writeTurns(body, messages, first);
            body.raw(']');
            if (!request.tools().isEmpty()) {
                body.cached(tools(request.tools()));
            }
            body.raw(STREAM);
            // Options only when set, so that the API's defaults apply otherwise.
            body.optionalNumber(TEMPERATURE, request.temperature());
            body.optionalNumber(TOP_P, request.topP());
            body.optionalStrings(STOP_SEQUENCES, request.stopSequences());
            if (thinking != null) {
                body.raw(thinking);
            }
            body.raw('}');
            return body.finish();
        } catch (IOException e) {
            // Writing to memory does not fail; only the signature says it may.
            throw new UncheckedIOException("cannot write the request body", e);
        }
    }

    /**
     * The turns from {@code first} on: each a run of consecutive messages of one role (tool
     * results are a user's), messages without blocks and system messages skipped over.
     */
    private void writeTurns(JsonBody body, List<Message> messages, int first) throws IOException {
        int start = first;
        boolean firstTurn = true;
        while (start < messages.size()) {
            Role role = turnRole(messages.get(start));
            boolean textOnly = true;
            int count = 0;
            int end = start;   // one past the turn's last message
            for (int i = start; i < messages.size(); i++) {
                Message message = messages.get(i);
                if (!hasBlocks(message)) {
                    continue;
                }
                if (turnRole(message) != role) {
                    break;
                }
                textOnly &= isText(message);
                count++;
                end = i + 1;
            }
            if (!firstTurn) {
                body.raw(',');
            }
            firstTurn = false;
            body.raw(role == Role.USER ? ROLE_USER : ROLE_ASSISTANT);
            if (textOnly) {
                body.string(count == 1 ? messages.get(start).content() : joinedText(messages, start, end));
            } else {
                body.raw('[');
                boolean firstBlock = true;
                for (int i = start; i < end; i++) {
                    Message message = messages.get(i);
                    if (hasBlocks(message)) {
                        firstBlock = writeBlocks(body, message, firstBlock);
                    }
                }
                body.raw(']');
            }
            body.raw('}');
            start = nextTurn(messages, end);
        }
    }

    /** Writes a message's content blocks; returns whether none has been written yet (still none). */
    private boolean writeBlocks(JsonBody body, Message message, boolean first) throws IOException {
        if (message.role() == Role.TOOL) {
            separate(body, first);
            body.raw(TOOL_RESULT_BLOCK);
            body.string(message.toolCallId());
            body.raw(CONTENT);
            if (message.media().isEmpty()) {
                body.string(message.content());
            } else {
                body.raw('[');
                writeWithMedia(body, message, true);
                body.raw(']');
            }
            body.raw('}');
            return false;
        }
        if (!message.media().isEmpty()) {          // a user message with media: its text, then them
            return writeWithMedia(body, message, first);
        }
        boolean none = first;
        for (SignedThinking block : message.thinking()) {
            separate(body, none);
            none = false;
            if (block.isRedacted()) {
                body.raw(REDACTED_BLOCK);
                body.string(block.redactedData());
            } else {
                body.raw(THINKING_BLOCK);
                body.string(block.thinking());
                body.raw(SIGNATURE);
                body.string(block.signature());
            }
            body.raw('}');
        }
        if (!message.content().isEmpty()) {
            separate(body, none);
            none = false;
            body.raw(TEXT_BLOCK);
            body.string(message.content());
            body.raw('}');
        }
        for (NativeToolCall call : message.toolCalls()) {
            separate(body, none);
            none = false;
            body.raw(TOOL_USE_BLOCK);
            body.string(call.id());
            body.raw(NAME);
            body.string(call.name());
            body.raw(INPUT);
            body.raw(input(call.arguments()));
            body.raw('}');
        }
        return none;
    }

    /**
     * A text block (the message's text, with a line on each medium that cannot be sent) unless
     * empty, then a block per medium sent; returns whether none was written.
     */
    private static boolean writeWithMedia(JsonBody body, Message message, boolean first) throws IOException {
        boolean none = first;
        String text = message.content() + unsentNote(message.media());
        if (!text.isEmpty()) {
            separate(body, none);
            none = false;
            body.raw(TEXT_BLOCK);
            body.string(text);
            body.raw('}');
        }
        for (Media medium : message.media()) {
            boolean image = IMAGE_TYPES.contains(medium.mediaType());
            if (image || medium.mediaType().equals(PDF)) {
                separate(body, none);
                none = false;
                body.raw(image ? IMAGE_BLOCK : DOCUMENT_BLOCK);
                body.string(medium.mediaType());
                body.raw(DATA);
                body.string(medium.base64());
                body.raw('}');
                body.raw('}');
            }
        }
        return none;
    }

    /** A line for the media the API cannot take, saying why; empty when it takes them all. */
    private static String unsentNote(List<Media> media) {
        StringBuilder unsent = new StringBuilder();
        for (Media medium : media) {
            if (!IMAGE_TYPES.contains(medium.mediaType()) && !medium.mediaType().equals(PDF)) {
                unsent.append(unsent.isEmpty() ? "" : "; ").append(medium.mediaType()).append(", ")
                        .append(medium.size()).append(" bytes");
            }
        }
        return unsent.isEmpty() ? "" : "\n(not shown to you: " + unsent
                + "; only JPEG, PNG, GIF and WebP images and PDF documents can be sent to you)";
    }

    private static void separate(JsonBody body, boolean first) throws IOException {
        if (!first) {
            body.raw(',');
        }
    }

    /** The texts of the turn's messages (all text), joined with a blank line. */
    private static String joinedText(List<Message> messages, int start, int end) {
        StringBuilder text = new StringBuilder();
        for (int i = start; i < end; i++) {
            Message message = messages.get(i);
            if (hasBlocks(message)) {
                if (!text.isEmpty()) {
                    text.append(SEPARATOR);
                }
                text.append(message.content());
            }
        }
        return text.toString();
    }

    /** The index of the next message from {@code from} that opens a turn, or the size. */
    private static int nextTurn(List<Message> messages, int from) {
        int i = from;
        while (i < messages.size() && !hasBlocks(messages.get(i))) {
            i++;
        }
        return i;
    }

    /** Whether the message gives its turn a content block (system messages never do). */
    private static boolean hasBlocks(Message message) {
        return switch (message.role()) {
            case SYSTEM -> false;
            case TOOL -> true;
            default -> !message.content().isEmpty() || !message.thinking().isEmpty() || !message.toolCalls().isEmpty()
                    || !message.media().isEmpty();
        };
    }

    /** Whether the message is a single text block. */
    private static boolean isText(Message message) {
        return message.role() != Role.TOOL && message.thinking().isEmpty() && message.toolCalls().isEmpty()
                && message.media().isEmpty();
    }

    private static Role turnRole(Message message) {
        return message.role() == Role.TOOL ? Role.USER : message.role();
    }

    /** The system messages' texts joined with a blank line, or null when there are none. */
    static String systemText(List<Message> messages) {
        String only = null;
        StringBuilder joined = null;
        for (Message message : messages) {
            if (message.role() == Role.SYSTEM && !message.content().isEmpty()) {
                if (only == null) {
                    only = message.content();
                } else {
                    if (joined == null) {
                        joined = new StringBuilder(only);
                    }
                    joined.append(SEPARATOR).append(message.content());
                }
            }
        }
        // One system message (the agent's case) is sent as it is: its String is the cache key.
        return joined != null ? joined.toString() : only;
    }

    /** {@code ,"system":...} for the text, encoded once while the text stays the same. */
    private byte[] system(String text) throws IOException {
        Encoded<String> cached = system;
        if (cached != null && (cached.key() == text || cached.key().equals(text))) {
            return cached.bytes();
        }
        StringWriter out = new StringWriter(text.length() + 96);
        out.write(",\"system\":");
        try (JsonGenerator generator = JSON.createGenerator(out)) {
            if (promptCaching) {
                generator.writeStartArray();
                generator.writeStartObject();
                generator.writeStringProperty("type", "text");
                generator.writeStringProperty("text", text);
                writeCacheControl(generator);
                generator.writeEndObject();
                generator.writeEndArray();
            } else {
                generator.writeString(text);
            }
        }
        // Encoded as the text body was: a lone surrogate becomes '?'.
        byte[] bytes = out.toString().getBytes(StandardCharsets.UTF_8);
        system = new Encoded<>(text, bytes);
        return bytes;
    }

    /** {@code ,"tools":[...]}, encoded once while the tools and their schemas stay the same. */
    private byte[] tools(List<ToolSpec> offered) throws IOException {
        Encoded<OfferedTools> cached = tools;
        if (cached != null && cached.key().sameAs(offered)) {
            return cached.bytes();
        }
        OfferedTools snapshot = OfferedTools.copyOf(offered);
        StringWriter out = new StringWriter(512 * snapshot.size());
        out.write(",\"tools\":");
        try (JsonGenerator generator = JSON.createGenerator(out)) {
            generator.writeStartArray();
            for (int i = 0; i < snapshot.size(); i++) {
                ToolSpec tool = snapshot.tool(i);
                generator.writeStartObject();
                generator.writeStringProperty("name", tool.name());
                generator.writeStringProperty("description", tool.description());
                generator.writeName("input_schema");
                // From the copy that is compared later, so the bytes are what it holds.
                generator.writeTree(snapshot.schema(i));
                if (promptCaching && i == snapshot.size() - 1) {
                    writeCacheControl(generator);
                }
                generator.writeEndObject();
            }
            generator.writeEndArray();
        }
        byte[] bytes = out.toString().getBytes(StandardCharsets.UTF_8);
        tools = new Encoded<>(snapshot, bytes);
        return bytes;
    }

    /** Caching marks everything up to here as a prefix the API keeps for a while (5 minutes). */
    private static void writeCacheControl(JsonGenerator generator) throws IOException {
        generator.writeObjectPropertyStart(CACHE_CONTROL);
        generator.writeStringProperty("type", "ephemeral");
        generator.writeEndObject();
    }

    /**
     * The {@code input} bytes for a call's arguments: the object they hold, or {@code {}} when
     * they are not one. A conversation sends its earlier calls again on every request, so each
     * is encoded once and kept (small ones, a bounded number: the map is emptied when full).
     */
    private byte[] input(String arguments) {
        byte[] cached = inputs.get(arguments);
        if (cached != null) {
            return cached;
        }
        byte[] bytes = encodeInput(arguments);
        if (arguments.length() <= MAX_CACHED_INPUT) {
            if (inputs.size() >= MAX_CACHED_INPUTS) {
                inputs.clear();
            }
            inputs.put(arguments, bytes);
        }
        return bytes;
    }

    /**
     * Read as a tree and written as text, then encoded, as the body was before: the object goes
     * back as Jackson reads it (duplicate keys once, numbers in its form, a lone surrogate as
     * '?'), text after it ignored.
     */
    static byte[] encodeInput(String arguments) {
        if (arguments.isBlank()) {
            return EMPTY_OBJECT;
        }
        try {
            JsonNode node = JSON.readTree(arguments);
            return node != null && node.isObject() ? node.toString().getBytes(StandardCharsets.UTF_8) : EMPTY_OBJECT;
        } catch (JacksonException e) {
            return EMPTY_OBJECT;
        }
    }

    /** About the body's length in bytes, so that its buffer is rarely grown and copied. */
    private int sizeHint(ChatRequest request) {
        // The fixed fields and punctuation, then the options that are set.
        long bytes = 96 + request.model().length() + (thinking == null ? 0 : thinking.length)
                + (request.temperature().isPresent() ? 40 : 0) + (request.topP().isPresent() ? 40 : 0);
        for (String stop : request.stopSequences()) {
            bytes += 24 + stop.length();
        }
        for (Message message : request.messages()) {
            if (message.role() == Role.SYSTEM) {
                continue;   // the system text is a part of its own
            }
            bytes += (message.role() == Role.TOOL ? 64 + message.toolCallId().length() : 40)
                    + message.content().length() + message.content().length() / 8;
            for (NativeToolCall call : message.toolCalls()) {
                bytes += 96 + call.arguments().length();
            }
            for (SignedThinking block : message.thinking()) {
                bytes += 64 + block.thinking().length()
                        + (block.isRedacted() ? block.redactedData().length() : block.signature().length());
            }
            for (Media medium : message.media()) {
                bytes += 96 + 4L * (medium.size() + 2) / 3;
            }
        }
        return (int) Math.min(bytes, 1 << 24);
    }

    private static byte[] ascii(String text) {
        return text.getBytes(StandardCharsets.US_ASCII);
    }
}
