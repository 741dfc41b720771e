package dev.bellows.bench.anthropic;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.bellows.provider.ChatRequest;
import dev.bellows.provider.Message;
import dev.bellows.provider.NativeToolCall;
import dev.bellows.provider.ProviderException;
import dev.bellows.provider.Role;
import dev.bellows.provider.SignedThinking;
import dev.bellows.provider.ToolSpec;
import java.util.ArrayList;
import java.util.List;

/**
 * The Anthropic provider's request writer before session 4 (commit {@code 5c74f8e}), copied
 * unchanged but for its name: a Jackson tree and a {@code String} per request. The "before"
 * of {@link AnthropicBodyBenchmark} and {@link AnthropicRequestPath}; the provider's tests keep
 * the same code as the reference its bytes are compared with.
 */
final class TreeRequestBody {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String SEPARATOR = "\n\n";

    private TreeRequestBody() {
    }

    /** A user or assistant turn after merging: its content blocks. */
    record Turn(Role role, List<ObjectNode> blocks) {
        /** The text of a turn made only of text blocks, joined as they are sent. */
        String content() {
            return String.join(SEPARATOR, blocks.stream().map(b -> b.path("text").asText()).toList());
        }
    }

    static String body(ChatRequest request, int defaultMaxTokens, Integer thinkingBudget) throws ProviderException {
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
            if (turn.blocks().stream().allMatch(b -> b.path("type").asText().equals("text"))) {
                List<String> texts = turn.blocks().stream().map(b -> b.path("text").asText()).toList();
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
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            return JSON.createObjectNode();
        }
    }
}
