package dev.bellows.anthropic;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.bellows.provider.ChatRequest;
import dev.bellows.provider.Message;
import dev.bellows.provider.ProviderException;
import dev.bellows.provider.Role;
import java.util.ArrayList;
import java.util.List;

/**
 * Turns a {@link ChatRequest} into the Messages API's JSON body.
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
 * </ul>
 */
final class AnthropicRequests {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String SEPARATOR = "\n\n";

    private AnthropicRequests() {
    }

    /** A user or assistant turn after merging. */
    record Turn(Role role, String content) {
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
            messages.addObject().put("role", turn.role().wireName()).put("content", turn.content());
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

    /** The user and assistant messages, consecutive ones of a role merged, empty ones dropped. */
    static List<Turn> turns(List<Message> messages) {
        List<Role> roles = new ArrayList<>();
        List<StringBuilder> texts = new ArrayList<>();
        for (Message message : messages) {
            if (message.role() == Role.SYSTEM || message.content().isEmpty()) {
                continue;
            }
            if (!roles.isEmpty() && roles.getLast() == message.role()) {
                texts.getLast().append(SEPARATOR).append(message.content());
            } else {
                roles.add(message.role());
                texts.add(new StringBuilder(message.content()));
            }
        }
        List<Turn> turns = new ArrayList<>(roles.size());
        for (int i = 0; i < roles.size(); i++) {
            turns.add(new Turn(roles.get(i), texts.get(i).toString()));
        }
        return turns;
    }
}
