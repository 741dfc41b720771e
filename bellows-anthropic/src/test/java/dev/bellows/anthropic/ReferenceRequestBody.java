package dev.bellows.anthropic;

import dev.bellows.json.internal.Jackson;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;
import dev.bellows.provider.ChatRequest;
import dev.bellows.provider.Message;
import dev.bellows.provider.NativeToolCall;
import dev.bellows.provider.SignedThinking;
import dev.bellows.provider.ToolSpec;
import dev.bellows.provider.ProviderException;
import dev.bellows.provider.Role;
import java.util.ArrayList;
import java.util.List;

/**
 * How the provider wrote the Messages API's JSON body before it wrote bytes with cached parts:
 * a Jackson tree and a {@code String} per request. Kept as the reference the new writer is
 * compared with; the rules below are the ones {@code AnthropicRequests} keeps. Public, and the
 * only class of this module's test jar, because bellows-bench measures it as the "before" of
 * the Anthropic request path (the writer as of commit {@code 5c74f8e}): one copy for both.
 *
 * <ul>
 *   <li>{@code model}, then {@code max_tokens}: the request's {@code maxTokens} when set,
 *       else the provider's default (the API requires the field).</li>
 *   <li>{@code system}: the text of every {@link Role#SYSTEM} message, wherever it stands in
 *       the conversation, in order, joined with a blank line; absent when there is none (the
 *       Messages API has no system role inside {@code messages}).</li>
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
 *       {@code description}, {@code input_schema}); an assistant message with tool calls as
 *       content blocks: its signed thinking blocks first, unchanged (the API requires them back
 *       when thinking meets tool use), then its text, then a {@code tool_use} block per call;
 *       {@link Role#TOOL} messages as {@code tool_result} blocks of a user turn. A turn made
 *       only of text keeps the plain string form.</li>
 * </ul>
 */
public final class ReferenceRequestBody {

    private static final ObjectMapper JSON = Jackson.JSON;
    private static final String SEPARATOR = "\n\n";

    private ReferenceRequestBody() {
    }

    /** A user or assistant turn after merging: its content blocks. */
    record Turn(Role role, List<ObjectNode> blocks) {
        /** The text of a turn made only of text blocks, joined as they are sent. */
        String content() {
            return String.join(SEPARATOR, blocks.stream().map(b -> b.path("text").asString()).toList());
        }
    }

    /** The request's JSON body as the old writer wrote it; {@code thinkingBudget} null when off. */
    public static String body(ChatRequest request, int defaultMaxTokens, Integer thinkingBudget) throws ProviderException {
        int maxTokens = request.maxTokens().orElse(defaultMaxTokens);
        if (thinkingBudget != null && maxTokens <= thinkingBudget) {
            throw new ProviderException(ProviderException.Kind.CLIENT_ERROR, "maxTokens (" + maxTokens
                    + ") must be above the thinking budget (" + thinkingBudget
                    + " tokens): the Messages API counts thinking into max_tokens");
        }
        List<Turn> turns = turns(request.messages());
        if (turns.isEmpty()) {
            throw new ProviderException(ProviderException.Kind.CLIENT_ERROR,
                    "the conversation has no user message: the Anthropic Messages API needs at least one");
        }
        if (turns.getFirst().role() != Role.USER) {
            throw new ProviderException(ProviderException.Kind.CLIENT_ERROR,
                    "the conversation starts with an assistant message: the Anthropic Messages API needs a"
                            + " user message first (put the task or question before it)");
        }

        ObjectNode body = JSON.createObjectNode();
        body.put("model", request.model());
        body.put("max_tokens", maxTokens);
        String system = system(request.messages());
        if (system != null) {
            body.put("system", system);
        }
        ArrayNode messages = body.putArray("messages");
        for (Turn turn : turns) {
            ObjectNode message = messages.addObject().put("role", turn.role().wireName());
            if (turn.blocks().stream().allMatch(b -> b.path("type").asString().equals("text"))) {
                List<String> texts = turn.blocks().stream().map(b -> b.path("text").asString()).toList();
                message.put("content", String.join(SEPARATOR, texts));
            } else {
                ArrayNode content = message.putArray("content");
                turn.blocks().forEach(content::add);
            }
        }
        if (!request.tools().isEmpty()) {
            ArrayNode tools = body.putArray("tools");
            for (ToolSpec tool : request.tools()) {
                tools.addObject().put("name", tool.name()).put("description", tool.description())
                        .set("input_schema", tool.parameters());
            }
        }
        body.put("stream", true);
        request.temperature().ifPresent(value -> body.put("temperature", value));
        request.topP().ifPresent(value -> body.put("top_p", value));
        if (!request.stopSequences().isEmpty()) {
            ArrayNode stops = body.putArray("stop_sequences");
            request.stopSequences().forEach(stops::add);
        }
        if (thinkingBudget != null) {
            body.putObject("thinking").put("type", "enabled").put("budget_tokens", thinkingBudget);
        }
        return body.toString();
    }

    /** The system messages' texts joined with a blank line, or null when there are none. */
    static String system(List<Message> messages) {
        List<String> parts = new ArrayList<>();
        for (Message message : messages) {
            if (message.role() == Role.SYSTEM && !message.content().isEmpty()) {
                parts.add(message.content());
            }
        }
        return parts.isEmpty() ? null : String.join(SEPARATOR, parts);
    }

    /**
     * The user and assistant messages as content blocks, consecutive ones of a role merged
     * (tool results are a user's), empty text dropped.
     */
    static List<Turn> turns(List<Message> messages) {
        List<Turn> turns = new ArrayList<>();
        for (Message message : messages) {
            if (message.role() == Role.SYSTEM) {
                continue;
            }
            List<ObjectNode> blocks = blocks(message);
            if (blocks.isEmpty()) {
                continue;
            }
            Role role = message.role() == Role.TOOL ? Role.USER : message.role();
            if (!turns.isEmpty() && turns.getLast().role() == role) {
                turns.getLast().blocks().addAll(blocks);
            } else {
                turns.add(new Turn(role, new ArrayList<>(blocks)));
            }
        }
        return turns;
    }

    private static List<ObjectNode> blocks(Message message) {
        List<ObjectNode> blocks = new ArrayList<>();
        if (message.role() == Role.TOOL) {
            ObjectNode result = JSON.createObjectNode().put("type", "tool_result").put("tool_use_id", message.toolCallId());
            result.put("content", message.content());
            blocks.add(result);
            return blocks;
        }
        for (SignedThinking thinking : message.thinking()) {
            blocks.add(thinking.isRedacted()
                    ? JSON.createObjectNode().put("type", "redacted_thinking").put("data", thinking.redactedData())
                    : JSON.createObjectNode().put("type", "thinking").put("thinking", thinking.thinking())
                            .put("signature", thinking.signature()));
        }
        if (!message.content().isEmpty()) {
            blocks.add(JSON.createObjectNode().put("type", "text").put("text", message.content()));
        }
        for (NativeToolCall call : message.toolCalls()) {
            ObjectNode use = JSON.createObjectNode().put("type", "tool_use").put("id", call.id()).put("name", call.name());
            use.set("input", input(call.arguments()));
            blocks.add(use);
        }
        return blocks;
    }

    /** The call's arguments as the object the API wants back; arguments that were not one go back empty. */
    private static JsonNode input(String arguments) {
        try {
            JsonNode node = arguments.isBlank() ? null : JSON.readTree(arguments);
            return node != null && node.isObject() ? node : JSON.createObjectNode();
        } catch (tools.jackson.core.JacksonException e) {
            return JSON.createObjectNode();
        }
    }
}
